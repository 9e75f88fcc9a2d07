/*
 * faults CASE [REPEAT]: one deliberate fault from ring 3. The kernel kills
 * the program and the emulator reports the vector, error code and (for #PF)
 * CR2. Before faulting, the program prints "CASE: eip=XXXXXXXX" naming the
 * instruction that should fault (for int3, a trap, the report names the
 * instruction after it), or "CASE: cr2=XXXXXXXX" too where the address is
 * only known at run time.
 *
 * Cases that should not kill the program:
 *   vsyscall-read       prints the first byte of the vsyscall page, exits 0
 *   vsyscall-jump-odd   calls 0xfffff001, inside the stub; any clean outcome
 *   vsyscall-jump N     calls 0xfffff000 + N; any clean outcome (exit 0 or
 *                       a kill report)
 *   sysenter-by-hand    a bare "sysenter" with a hand-built stub frame: on a
 *                       working SEP it returns through SYSENTER_RETURN (exit
 *                       0); without SEP it is #UD, on a Pentium Pro #GP(0)
 * "loop" never ends: the emulator's instruction budget stops it.
 * sgdt-write and sidt-write print "eip=" and "cr2=" (the table entry they
 * write); sysenter-bad-ebp and args6-kernel-ebp print "cr2=" (the EBP they
 * enter the kernel with, where the stub's first pop faults).
 */
#include "mini/mini.h"

/*
 * The faulting instructions, each in a function of its own with a global
 * label at the instruction: at_NAME.
 */
__asm__(
    "	.text\n"
    "	.globl f_wrmsr, at_wrmsr\n"
    "f_wrmsr:\n"
    "	movl $0x174, %ecx\n"            /* SYSENTER_CS */
    "	xorl %eax, %eax\n"
    "	xorl %edx, %edx\n"
    "at_wrmsr:\n"
    "	wrmsr\n"
    "	ret\n"

    "	.globl f_rdmsr, at_rdmsr\n"
    "f_rdmsr:\n"
    "	movl $0x176, %ecx\n"            /* SYSENTER_EIP */
    "at_rdmsr:\n"
    "	rdmsr\n"
    "	ret\n"

    "	.globl f_hlt, at_hlt\n"
    "f_hlt:\n"
    "at_hlt:\n"
    "	hlt\n"
    "	ret\n"

    "	.globl f_cli, at_cli\n"
    "f_cli:\n"
    "at_cli:\n"
    "	cli\n"
    "	ret\n"

    "	.globl f_sti, at_sti\n"
    "f_sti:\n"
    "at_sti:\n"
    "	sti\n"
    "	ret\n"

    "	.globl f_lgdt, at_lgdt\n"
    "f_lgdt:\n"
    "	subl $8, %esp\n"
    "	movl $0, (%esp)\n"
    "	movl $0, 4(%esp)\n"
    "at_lgdt:\n"
    "	lgdt (%esp)\n"
    "	addl $8, %esp\n"
    "	ret\n"

    /* A GDT of our own whose entry 1 is flat ring-0 code. */
    "	.globl f_lgdt_user, at_lgdt_user\n"
    "f_lgdt_user:\n"
    "at_lgdt_user:\n"
    "	lgdt user_gdtr\n"
    "	ljmp $0x08, $1f\n"
    "1:	ret\n"

    "	.globl f_lidt, at_lidt\n"
    "f_lidt:\n"
    "	subl $8, %esp\n"
    "	movl $0, (%esp)\n"
    "	movl $0, 4(%esp)\n"
    "at_lidt:\n"
    "	lidt (%esp)\n"
    "	addl $8, %esp\n"
    "	ret\n"

    "	.globl f_mov_cr3, at_mov_cr3\n"
    "f_mov_cr3:\n"
    "	xorl %eax, %eax\n"
    "at_mov_cr3:\n"
    "	movl %eax, %cr3\n"
    "	ret\n"

    /* The exit hypercall port, from ring 3: #GP, never the hypercall. */
    "	.globl f_outb, at_outb\n"
    "f_outb:\n"
    "	xorl %eax, %eax\n"
    "at_outb:\n"
    "	outb %al, $0xe2\n"
    "	ret\n"

    /* The read port, with in: #GP as well. */
    "	.globl f_inb, at_inb\n"
    "f_inb:\n"
    "at_inb:\n"
    "	inb $0xe1, %al\n"
    "	ret\n"

    /* The same as the kernel does it: outl of a block's address. */
    "	.globl f_outl, at_outl\n"
    "f_outl:\n"
    "	movl $fake_exit_block, %eax\n"
    "at_outl:\n"
    "	outl %eax, $0xe2\n"
    "	ret\n"

    /* iret to the kernel's code segment (RPL 0 < CPL 3): #GP(0x60) */
    "	.globl f_iret, at_iret\n"
    "f_iret:\n"
    "	pushl $0x202\n"
    "	pushl $0x60\n"
    "	pushl $1f\n"
    "at_iret:\n"
    "	iret\n"
    "1:	ret\n"

    "	.globl f_sysexit, at_sysexit\n"
    "f_sysexit:\n"
    "	movl %esp, %ecx\n"
    "	movl $1f, %edx\n"
    "at_sysexit:\n"
    "	sysexit\n"
    "1:	ret\n"

    /*
     * sysenter without the vsyscall page: build the frame the stub would
     * (ECX, EDX, EBP below a return address) so that the kernel's return
     * to SYSENTER_RETURN pops it and comes back here, with getpid's result.
     */
    "	.globl f_sysenter, at_sysenter\n"
    "f_sysenter:\n"
    "	pushl %ebp\n"
    "	pushl $1f\n"
    "	pushl %ecx\n"
    "	pushl %edx\n"
    "	pushl %ebp\n"
    "	movl %esp, %ebp\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "at_sysenter:\n"
    "	sysenter\n"
    "1:	popl %ebp\n"
    "	ret\n"

    "	.globl f_ud2, at_ud2\n"
    "f_ud2:\n"
    "at_ud2:\n"
    "	ud2\n"
    "	ret\n"

    "	.globl f_div0, at_div0\n"
    "f_div0:\n"
    "	movl $1, %eax\n"
    "	xorl %edx, %edx\n"
    "	xorl %ecx, %ecx\n"
    "at_div0:\n"
    "	divl %ecx\n"
    "	ret\n"

    "	.globl f_int3, at_int3\n"
    "f_int3:\n"
    "at_int3:\n"
    "	int3\n"
    "	ret\n"

    "	.globl f_int13, at_int13\n"
    "f_int13:\n"
    "at_int13:\n"
    "	int $0x0d\n"
    "	ret\n"

    "	.globl f_kread, at_kread\n"
    "f_kread:\n"
    "at_kread:\n"
    "	movl 0xc0100000, %eax\n"
    "	ret\n"

    "	.globl f_kwrite, at_kwrite\n"
    "f_kwrite:\n"
    "	xorl %eax, %eax\n"
    "at_kwrite:\n"
    "	movl %eax, 0xc0100000\n"
    "	ret\n"

    "	.globl f_null, at_null\n"
    "f_null:\n"
    "at_null:\n"
    "	movl 0, %eax\n"
    "	ret\n"

    /* Between the end of kernel memory and the fixmap: mapped by nothing. */
    "	.globl f_hole_read, at_hole_read\n"
    "f_hole_read:\n"
    "at_hole_read:\n"
    "	movl 0xe0000000, %eax\n"
    "	ret\n"

    /* Four bytes at 0xfffffffe: the access runs past 4 GiB and wraps to
     * page 0, the never-mapped NULL guard: #PF with CR2 = 0. */
    "	.globl f_wrap_read, at_wrap_read\n"
    "f_wrap_read:\n"
    "at_wrap_read:\n"
    "	movl 0xfffffffe, %eax\n"
    "	ret\n"

    /* The same as a write: its first half lands on the read-only
     * vsyscall page, so that is the fault (CR2 = 0xfffffffe). */
    "	.globl f_wrap_write, at_wrap_write\n"
    "f_wrap_write:\n"
    "	xorl %eax, %eax\n"
    "at_wrap_write:\n"
    "	movl %eax, 0xfffffffe\n"
    "	ret\n"

    "	.globl f_vsyscall_write, at_vsyscall_write\n"
    "f_vsyscall_write:\n"
    "	xorl %eax, %eax\n"
    "at_vsyscall_write:\n"
    "	movl %eax, 0xfffff000\n"
    "	ret\n"

    /* Write over this very instruction: CR2 = EIP. */
    "	.globl f_text_write, at_text_write\n"
    "f_text_write:\n"
    "at_text_write:\n"
    "	movb $0x90, at_text_write\n"
    "	ret\n"

    "	.globl f_kernel_ds, at_kernel_ds\n"
    "f_kernel_ds:\n"
    "	movl $0x68, %eax\n"
    "at_kernel_ds:\n"
    "	movl %eax, %ds\n"
    "	movl $0x7b, %eax\n"
    "	movl %eax, %ds\n"
    "	ret\n"

    /* Selector 0x1234: LDT (TI = 1) index 0x246, past the LDT's limit. */
    "	.globl f_far_call_bad, at_far_call_bad\n"
    "f_far_call_bad:\n"
    "at_far_call_bad:\n"
    "	lcall $0x1234, $0\n"
    "	ret\n"

    "	.globl f_loop, at_loop\n"
    "f_loop:\n"
    "at_loop:\n"
    "	jmp at_loop\n"

    /*
     * call 0xfffff001, one byte into the stub. With the sysenter stub the
     * kernel returns through a pop sequence missing its first push, so
     * the stub's ret takes the word above our return address: odd_landing.
     */
    "	.globl f_vsyscall_odd, at_vsyscall_odd\n"
    "f_vsyscall_odd:\n"
    "	pushl %ebp\n"
    "	pushl %ebx\n"
    "	pushl %esi\n"
    "	pushl %edi\n"
    "	movl %esp, odd_saved_esp\n"
    "	pushl $odd_landing\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	movl $0xfffff001, %ecx\n"
    "at_vsyscall_odd:\n"
    "	call *%ecx\n"
    "	movl $1, odd_how\n"
    "	jmp 1f\n"
    "odd_landing:\n"
    "	movl $2, odd_how\n"
    "1:	movl odd_saved_esp, %esp\n"
    "	popl %edi\n"
    "	popl %esi\n"
    "	popl %ebx\n"
    "	popl %ebp\n"
    "	ret\n"

    /* A store of zero to the address on the stack: the GDT or IDT entry
     * whose address sgdt/sidt gave away. */
    "	.globl f_poke, at_poke\n"
    "f_poke:\n"
    "	movl 4(%esp), %eax\n"
    "at_poke:\n"
    "	movl $0, (%eax)\n"
    "	ret\n"

    /*
     * sysenter straight from user mode, the way the stub does it but with
     * EBP (the user stack pointer the kernel reads the sixth argument
     * through, and returns with) set to the first argument: EAX = the
     * second, EBX..EDI = 1..5. The jump goes to the stub's own sysenter.
     */
    "	.globl f_sysenter_ebp\n"
    "f_sysenter_ebp:\n"
    "	movl 4(%esp), %ebp\n"
    "	movl 8(%esp), %eax\n"
    "	movl $1, %ebx\n"
    "	movl $2, %ecx\n"
    "	movl $3, %edx\n"
    "	movl $4, %esi\n"
    "	movl $5, %edi\n"
    "	jmp *stub_sysenter\n"

    /*
     * call 0xfffff000 + offset (the argument) with EAX = SYS_getpid and
     * the other registers zero. Above the return address lie four words
     * of jump_landing: a stub entered at a wrong offset that pops too much
     * returns there. The stack is restored either way.
     */
    "	.globl f_vsyscall_at\n"
    "f_vsyscall_at:\n"
    "	pushl %ebp\n"
    "	pushl %ebx\n"
    "	pushl %esi\n"
    "	pushl %edi\n"
    "	movl 20(%esp), %ecx\n"
    "	addl $0xfffff000, %ecx\n"
    "	movl %esp, jump_saved_esp\n"
    "	pushl $jump_landing\n"
    "	pushl $jump_landing\n"
    "	pushl $jump_landing\n"
    "	pushl $jump_landing\n"
    "	xorl %ebx, %ebx\n"
    "	xorl %edx, %edx\n"
    "	xorl %esi, %esi\n"
    "	xorl %edi, %edi\n"
    "	xorl %ebp, %ebp\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	call *%ecx\n"
    "jump_landing:\n"
    "	movl jump_saved_esp, %esp\n"
    "	popl %edi\n"
    "	popl %esi\n"
    "	popl %ebx\n"
    "	popl %ebp\n"
    "	ret\n"

    "	.data\n"
    "	.balign 8\n"
    "user_gdt:\n"
    "	.quad 0\n"
    "	.quad 0x00cf9a000000ffff\n"     /* flat ring-0 code */
    "	.quad 0x00cf92000000ffff\n"     /* flat ring-0 data */
    "user_gdtr:\n"
    "	.word 23\n"
    "	.long user_gdt\n"
    "	.balign 4\n"
    "fake_exit_block:\n"
    "	.long 0\n"                      /* struct hc_exit: status 0 */
    "	.globl odd_saved_esp, odd_how\n"
    "odd_saved_esp:\n"
    "	.long 0\n"
    "odd_how:\n"
    "	.long 0\n"
    "jump_saved_esp:\n"
    "	.long 0\n"
    "stub_sysenter:\n"
    "	.long 0xfffff005\n"            /* the sysenter in the SEP stub */
    "	.text\n");

#define FAULT(name) void f_##name(void); extern const char at_##name[];
FAULT(wrmsr) FAULT(rdmsr) FAULT(hlt) FAULT(cli) FAULT(sti) FAULT(lgdt)
FAULT(lgdt_user) FAULT(lidt) FAULT(mov_cr3) FAULT(outb) FAULT(outl) FAULT(inb)
FAULT(iret)
FAULT(sysexit) FAULT(ud2) FAULT(div0) FAULT(int3) FAULT(int13) FAULT(kread)
FAULT(kwrite) FAULT(null) FAULT(hole_read) FAULT(wrap_read) FAULT(wrap_write)
FAULT(vsyscall_write) FAULT(text_write)
FAULT(kernel_ds) FAULT(far_call_bad) FAULT(loop)
long f_sysenter(void);
extern const char at_sysenter[];
long f_vsyscall_odd(void);
extern const char at_vsyscall_odd[];
extern uint32_t odd_how;
void f_poke(uint32_t addr);
extern const char at_poke[];
void f_sysenter_ebp(uint32_t ebp, uint32_t nr);
long f_vsyscall_at(uint32_t offset);

struct table_reg {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed));

struct fault_case {
    const char *name;
    void (*fn)(void);
    const char *at;
};

#define CASE(str, name) { str, f_##name, at_##name }
static const struct fault_case cases[] = {
    CASE("wrmsr", wrmsr),
    CASE("rdmsr", rdmsr),
    CASE("hlt", hlt),
    CASE("cli", cli),
    CASE("sti", sti),
    CASE("lgdt", lgdt),
    CASE("lgdt-user", lgdt_user),
    CASE("lidt", lidt),
    CASE("mov-cr3", mov_cr3),
    CASE("out", outb),
    CASE("outl", outl),
    CASE("in", inb),
    CASE("iret", iret),
    CASE("sysexit", sysexit),
    CASE("ud2", ud2),
    CASE("div0", div0),
    CASE("int3", int3),
    CASE("int13", int13),
    CASE("kread", kread),
    CASE("kwrite", kwrite),
    CASE("null", null),
    CASE("hole-read", hole_read),
    CASE("wrap-read", wrap_read),
    CASE("wrap-write", wrap_write),
    CASE("vsyscall-write", vsyscall_write),
    CASE("text-write", text_write),
    CASE("kernel-ds", kernel_ds),
    CASE("far-call-bad", far_call_bad),
    CASE("loop", loop),
};

static volatile int recursion_limit; /* 0: none, until the stack runs out */

static __attribute__((noinline)) int recurse(volatile char *up, int depth)
{
    volatile char frame[256];

    frame[0] = (char)depth;
    frame[255] = up ? up[0] : 0;
    if (recursion_limit && depth >= recursion_limit)
        return frame[0];
    return recurse(frame, depth + 1) + frame[1];
}

static void usage(void)
{
    puts_fd(2, "usage: faults CASE [REPEAT]\ncases:");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        puts_fd(2, " ");
        puts_fd(2, cases[i].name);
    }
    puts_fd(2, " stack-overflow efault-storm sysenter-by-hand vsyscall-read"
               " vsyscall-jump-odd vsyscall-jump sgdt-write sidt-write"
               " sysenter-bad-ebp args6-kernel-ebp\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage();
        return 2;
    }
    const char *name = argv[1];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(name, cases[i].name))
            continue;
        printf("%s: eip=%08x\n", name, (unsigned long)(uint32_t)cases[i].at);
        cases[i].fn();
        printf("%s: no fault\n", name);
        return 1;
    }

    if (!strcmp(name, "stack-overflow")) {
        printf("%s: recursing\n", name);
        recurse(0, 0);
        printf("%s: no fault\n", name);
        return 1;
    }
    if (!strcmp(name, "efault-storm")) {
        /* REPEAT bad writes, each -EFAULT: even ones a kernel address
         * (refused by access_ok), odd ones an unmapped user page (a
         * kernel-mode #PF and its exception-table fixup). Then a ring-3
         * #PF, which must be reported as such, not as a double fault. */
        long n = argc > 2 ? atol(argv[2]) : 50;
        for (long i = 0; i < n; i++) {
            uint32_t bad = (i & 1) ? 0x10000000u : 0xc0001000u;
            long r = syscall3(SYS_write, 1, bad, 10);
            if (r != -14) {
                printf("%s: write %ld to %08x returned %ld, not -14\n", name, i,
                       (unsigned long)bad, r);
                return 1;
            }
        }
        printf("%s: %ld writes returned -14; kread: eip=%08x\n", name, n,
               (unsigned long)(uint32_t)at_kread);
        f_kread();
        printf("%s: no fault\n", name);
        return 1;
    }
    if (!strcmp(name, "sysenter-by-hand")) {
        printf("%s: eip=%08x\n", name, (unsigned long)(uint32_t)at_sysenter);
        long r = f_sysenter();
        printf("%s: returned %ld\n", name, r);
        return 0;
    }
    if (!strcmp(name, "vsyscall-read")) {
        const volatile uint8_t *page = (const volatile uint8_t *)0xfffff000u;
        printf("%s: %02x\n", name, (unsigned long)page[0]);
        return 0;
    }
    if (!strcmp(name, "sgdt-write") || !strcmp(name, "sidt-write")) {
        /* sgdt and sidt work from ring 3; the tables they name are
         * supervisor pages, so the write must be a #PF (error 7). Aim at
         * what matters: the kernel code segment and the int $0x80 gate. */
        struct table_reg t;
        uint32_t target;
        if (name[1] == 'g') {
            __asm__ volatile("sgdt %0" : "=m"(t));
            target = t.base + 12 * 8;
        } else {
            __asm__ volatile("sidt %0" : "=m"(t));
            target = t.base + 0x80 * 8;
        }
        printf("%s: eip=%08x cr2=%08x\n", name, (unsigned long)(uint32_t)at_poke,
               (unsigned long)target);
        f_poke(target);
        printf("%s: no fault\n", name);
        return 1;
    }
    if (!strcmp(name, "sysenter-bad-ebp") || !strcmp(name, "args6-kernel-ebp")) {
        /* EBP at an unmapped user page (getpid): the kernel's read of the
         * sixth argument faults and its fixup returns -EFAULT. EBP in
         * kernel memory (the six-argument sysemu_args6): refused before
         * the read, -EFAULT too. Either way the kernel returns with ESP =
         * EBP, so the stub's first pop is a user #PF at EBP. */
        uint32_t ebp = name[0] == 's' ? 0x10000000u : 0xc0001000u;
        uint32_t nr = name[0] == 's' ? SYS_getpid : SYS_sysemu_args6;
        printf("%s: cr2=%08x\n", name, (unsigned long)ebp);
        f_sysenter_ebp(ebp, nr);
        printf("%s: no fault\n", name);
        return 1;
    }
    if (!strcmp(name, "vsyscall-jump")) {
        uint32_t offset = argc > 2 ? (uint32_t)atol(argv[2]) : 0;
        printf("%s: offset %u\n", name, (unsigned long)offset);
        long r = f_vsyscall_at(offset);
        printf("%s: offset %u came back, eax=%ld\n", name, (unsigned long)offset, r);
        return 0;
    }
    if (!strcmp(name, "vsyscall-jump-odd")) {
        printf("%s: eip=%08x\n", name, (unsigned long)(uint32_t)at_vsyscall_odd);
        long r = f_vsyscall_odd();
        printf("%s: %s, eax=%ld\n", name,
               odd_how == 2 ? "came back through the stub's extra pop" : "returned", r);
        return 0;
    }
    usage();
    return 2;
}
