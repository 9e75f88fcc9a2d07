/*
 * hostile CASE [ARG]: ring-3 code that once stopped the machine or made it
 * misreport (docs/robustness.md, "Hostile guest code", round two). Where
 * the kernel should kill the program, it first prints "CASE: eip=XXXXXXXX"
 * (and "cr2=" for a page fault) naming where the fault must be reported.
 *
 *   top-of-user N     N nops (1..16) ending at 0xbfffffff, then on into the
 *                     kernel's first page: #PF, eip = cr2 = 0xc0000000
 *   tf-sysenter       sysenter with TF set: the kernel survives the #DB on
 *                     its first instruction and the trap comes back to the
 *                     program (on SEP; #UD without)
 *   tf-vsyscall       the same through the vsyscall page's own sysenter,
 *                     reached by an iret with TF in its frame
 *   iret-vm           an iret whose EFLAGS image has VM: ignored at CPL 3,
 *                     the program runs on (exit 0)
 *   tls-code-int8     a code segment with a base from set_thread_area, a far
 *                     jump into it, int $8: #GP, error 0x42, eip its offset
 *   tls-code16-int8   the same in a 16-bit code segment
 *   tls-int13         int $0x0d there: #GP, error 0x6a
 *   tls-int80         getpid by int $0x80 there, then back: exit 0
 *   tls-ticks         a loop there long enough for timer interrupts, each
 *                     taken between two of its instructions: it runs out
 *                     and comes back (exit 0)
 *   tls-conforming    a conforming code segment (Linux 2.5 took those too):
 *                     it runs at CPL 3 (exit 0)
 *   tls-wrap          a code segment based at 0xffff0000, so base + EIP
 *                     passes 4 GiB and the linear address wraps to the
 *                     code: getpid by int $0x80 there, then an iret with
 *                     VM in its image, ignored at CPL 3: exit 0
 *   nt-sysenter       NT set around calls that return through iret: they
 *                     return, NT kept (exit 0)
 *   iret-nt           NT set, then iret: a task return, #TS
 *   wrap-rmw          an add to memory at 0xffffffff, which wraps to the
 *                     never-mapped page 0, right after an add that left
 *                     the flags to be worked out: #PF, eip its own, cr2 0
 *   selfmod A|B|C|D   a store that rewrites the next instruction (A), or the
 *                     same store to data with that instruction already there
 *                     (B): the same instructions run; prints where the code
 *                     is and the cycles the call took by the TSC (exit 0);
 *                     C and D: the same with a rep stosb after it
 */
#include "mini/mini.h"
#include "../abi.h"
#include "../x86.h"

struct user_desc {
    uint32_t entry_number, base_addr, limit, flags;
};
#define UD_SEG_32BIT       0x01
#define UD_CONTENTS_CODE   (2 << 1)
#define UD_CONTENTS_CONFORMING (3 << 1)
#define UD_LIMIT_IN_PAGES  0x10
#define SPIN_LOOPS         0x1000000  /* a few of the kernel's 1 ms ticks */

__asm__(
    "	.text\n"
    /* sysenter by hand, as the stub would (faults.c f_sysenter), with TF
     * set by the popf right before it */
    "	.globl f_tf_sysenter\n"
    "f_tf_sysenter:\n"
    "	pushl %ebp\n"
    "	pushl $1f\n"
    "	pushl %ecx\n"
    "	pushl %edx\n"
    "	pushl %ebp\n"
    "	movl %esp, %ebp\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	pushfl\n"
    "	orl $0x100, (%esp)\n"
    "	popfl\n"
    "	sysenter\n"
    "1:	popl %ebp\n"
    "	ret\n"

    /* the same frame, then an iret with TF onto the stub's sysenter */
    "	.globl f_tf_vsyscall\n"
    "f_tf_vsyscall:\n"
    "	pushl %ebp\n"
    "	pushl $1f\n"
    "	pushl %ecx\n"
    "	pushl %edx\n"
    "	pushl %ebp\n"
    "	movl %esp, %ebp\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	pushl $0x302\n"                 /* TF | IF | the fixed bit */
    "	pushl $" STR(__USER_CS) "\n"
    "	movl mini_sysinfo, %ecx\n"
    "	addl $5, %ecx\n"
    "	pushl %ecx\n"                   /* the stub's sysenter (AT_SYSINFO + 5) */
    "	iret\n"
    "1:	popl %ebp\n"
    "	ret\n"

    /* iret to the next instruction with VM set in the EFLAGS image; the
     * image as memory holds it after the iret, into iret_vm_image */
    "	.globl f_iret_vm\n"
    "f_iret_vm:\n"
    "	pushl $0x20202\n"               /* VM | IF | the fixed bit */
    "	pushl $" STR(__USER_CS) "\n"
    "	pushl $1f\n"
    "	iret\n"
    "1:	movl -4(%esp), %edx\n"
    "	movl %edx, iret_vm_image\n"
    "	pushfl\n"
    "	popl %eax\n"
    "	ret\n"

    /* Code reached through a TLS code segment: each is entered with a far
     * jump, and the ones that come back far-jump to based_back. */
    "	.globl at_int8, at_int13, at_int80, at_conforming\n"
    "at_int8:\n"
    "	int $8\n"
    "at_int13:\n"
    "	int $0x0d\n"
    "at_int80:\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	int $0x80\n"
    "	ljmp $" STR(__USER_CS) ", $based_back\n"
    "at_conforming:\n"
    "	movl %cs, %eax\n"
    "	ljmp $" STR(__USER_CS) ", $based_back\n"
    /* getpid, then an iret to the next instruction (its offset in the
     * segment) with VM set in the image: the pid if VM stayed clear */
    "	.globl at_wrap\n"
    "at_wrap:\n"
    "	movl $" STR(SYS_getpid) ", %eax\n"
    "	int $0x80\n"
    "	pushl $0x20202\n"              /* VM | IF | the fixed bit */
    "	pushl %cs\n"
    "	call 1f\n"
    "1:	addl $(2f - 1b), (%esp)\n"
    "	iret\n"
    "2:	pushfl\n"
    "	testl $" STR(X86_EFLAGS_VM) ", (%esp)\n"
    "	popl %ecx\n"
    "	jz 3f\n"
    "	movl $-1, %eax\n"
    "3:	ljmp $" STR(__USER_CS) ", $based_back\n"
    /* a loop of one-instruction blocks, long enough for timer ticks:
     * each is taken at a block's start, and its iret must come back to
     * the offset in this segment, not to the linear address */
    "	.globl at_spin\n"
    "at_spin:\n"
    "	movl $" STR(SPIN_LOOPS) ", %ecx\n"
    "1:	loop 1b\n"
    "	movl %ecx, %eax\n"
    "	ljmp $" STR(__USER_CS) ", $based_back\n"
    "	.code16\n"
    "	.globl at_int8_16\n"
    "at_int8_16:\n"
    "	int $8\n"
    "	.code32\n"

    /* far jump to the pointer at 4(%esp); based_back returns EAX */
    "	.globl f_far_jump\n"
    "f_far_jump:\n"
    "	pushl %ebx\n"
    "	pushl %esi\n"
    "	pushl %edi\n"
    "	pushl %ebp\n"
    "	movl %esp, saved_esp\n"
    "	movl 20(%esp), %ecx\n"
    "	ljmp *(%ecx)\n"
    "based_back:\n"
    "	movl saved_esp, %esp\n"
    "	popl %ebp\n"
    "	popl %edi\n"
    "	popl %esi\n"
    "	popl %ebx\n"
    "	ret\n"

    /* set NT, then iret to the next instruction: a task return */
    "	.globl f_iret_nt, at_iret_nt\n"
    "f_iret_nt:\n"
    "	pushfl\n"
    "	orl $0x4000, (%esp)\n"
    "	popfl\n"
    "	pushl $0x202\n"
    "	pushl $" STR(__USER_CS) "\n"
    "	pushl $1f\n"
    "at_iret_nt:\n"
    "	iret\n"
    "1:	ret\n"

    /* popf ends the engine's block; the next one sets flags, then its
     * 4-byte add at 0xffffffff reads across 4 GiB into page 0 */
    "	.globl f_wrap_rmw, at_wrap_rmw\n"
    "f_wrap_rmw:\n"
    "	movl $-1, %eax\n"
    "	movl $-1, %ecx\n"
    "	pushl $0x202\n"
    "	popfl\n"
    "	addb %cl, %ch\n"
    "at_wrap_rmw:\n"
    "	addl %eax, (%eax)\n"
    "	ret\n"

    "	.data\n"
    "saved_esp:\n"
    "	.long 0\n"
    "	.text\n");

long f_tf_sysenter(void);
long f_tf_vsyscall(void);
uint32_t f_iret_vm(void);
uint32_t iret_vm_image;
long f_far_jump(const void *farptr);
void f_iret_nt(void);
void f_wrap_rmw(void);
extern const char at_int8[], at_int13[], at_int80[], at_conforming[], at_int8_16[], at_wrap[],
    at_spin[];
extern const char at_iret_nt[], at_wrap_rmw[];

static uint32_t flags_now(void)
{
    uint32_t f;
    __asm__ volatile("pushfl; popl %0" : "=r"(f));
    return f;
}

static void set_flags(uint32_t f)
{
    __asm__ volatile("pushl %0; popfl" : : "r"(f) : "cc", "memory");
}

static int top_of_user(long n)
{
    if (n < 1 || n > 16)
        return 2;
    uint8_t *start = (uint8_t *)(0xc0000000u - (uint32_t)n);
    memset(start, 0x90, (size_t)n);
    printf("top-of-user: eip=c0000000 cr2=c0000000\n");
    ((void (*)(void))start)();
    printf("top-of-user: came back\n");
    return 1;
}

/* A TLS descriptor for code at base, entered at target: far jump there. */
static long enter_based(const char *name, uint32_t base, uint32_t limit, uint32_t flags,
                        const char *target)
{
    struct user_desc d = { 0xffffffffu, base, limit, flags };
    long r = syscall1(SYS_set_thread_area, &d);
    if (r != 0) {
        printf("%s: set_thread_area returned %ld\n", name, r);
        exit(3);
    }
    uint32_t offset = (uint32_t)target - base;
    struct { uint32_t offset; uint16_t sel; } __attribute__((packed)) far = {
        offset, (uint16_t)(d.entry_number * 8 + 3),
    };
    printf("%s: eip=%08x\n", name, (unsigned long)offset);
    return f_far_jump(&far);
}

/* A base below the target, so that EIP and the linear address differ. */
static uint32_t base_below(const char *target)
{
    return ((uint32_t)target & ~0xfffu) - 0x10000u;
}

static int tls_case(const char *name)
{
    const uint32_t code32 = UD_SEG_32BIT | UD_CONTENTS_CODE | UD_LIMIT_IN_PAGES;
    if (!strcmp(name, "tls-code-int8"))
        enter_based(name, base_below(at_int8), 0xfffff, code32, at_int8);
    else if (!strcmp(name, "tls-int13"))
        enter_based(name, base_below(at_int13), 0xfffff, code32, at_int13);
    else if (!strcmp(name, "tls-code16-int8"))
        enter_based(name, (uint32_t)at_int8_16, 0xffff, UD_CONTENTS_CODE, at_int8_16);
    else if (!strcmp(name, "tls-int80")) {
        long pid = enter_based(name, base_below(at_int80), 0xfffff, code32, at_int80);
        printf("tls-int80: getpid=%ld\n", pid);
        return pid == 2 ? 0 : 1;
    } else if (!strcmp(name, "tls-ticks")) {
        long left = enter_based(name, base_below(at_spin), 0xfffff, code32, at_spin);
        printf("tls-ticks: ecx=%ld\n", left);
        return left == 0 ? 0 : 1;
    } else if (!strcmp(name, "tls-conforming")) {
        long cs = enter_based(name, base_below(at_conforming), 0xfffff,
                              UD_SEG_32BIT | UD_CONTENTS_CONFORMING | UD_LIMIT_IN_PAGES,
                              at_conforming);
        printf("tls-conforming: cs=%x\n", (unsigned long)(cs & 0xffff));
        return (cs & 3) == 3 ? 0 : 1;
    } else if (!strcmp(name, "tls-wrap")) {
        /* base + EIP passes 4 GiB: the linear address wraps to 32 bits
         * and the code at at_wrap runs (engine.h, quirk 5) */
        printf("tls-wrap: linear=%08x\n", (unsigned long)(uint32_t)at_wrap);
        long pid = enter_based(name, 0xffff0000u, 0xfffff, code32, at_wrap);
        printf("tls-wrap: getpid=%ld\n", pid);
        return pid == 2 ? 0 : 1;
    } else {
        return 2;
    }
    printf("%s: no fault\n", name);
    return 1;
}

/* NT across calls that leave the kernel through iret: an unknown call
 * (ENOSYS) and sched_yield (exit work). */
static int nt_sysenter(void)
{
    set_flags(flags_now() | X86_EFLAGS_NT);
    long bad = syscall0(9999);
    int kept1 = (flags_now() & X86_EFLAGS_NT) != 0;
    long yield = syscall0(SYS_sched_yield);
    int kept2 = (flags_now() & X86_EFLAGS_NT) != 0;
    set_flags(flags_now() & ~X86_EFLAGS_NT);
    printf("nt-sysenter: %ld %ld, NT %s\n", bad, yield, kept1 && kept2 ? "kept" : "lost");
    return bad == -38 && yield == 0 && kept1 && kept2 ? 0 : 1;
}

/*
 * The store rewrites the instruction after it (A: nop to inc %eax), or
 * writes the same byte to data with inc %eax already in place (B). Same
 * bytes, same layout, the same instructions run. C and D are A and B with
 * a rep stosb of 3 bytes after that instruction, which the machine
 * charges from a code hook as it runs (machine.h).
 */
static int selfmod(const char *variant)
{
    static const uint8_t code[] = {
        0x90,                                   /* nop */
        0xc6, 0x05, 0, 0, 0, 0, 0x40,           /* movb $0x40, addr */
        0x90,                                   /* the next: nop, or inc %eax */
        0x90, 0x90,                             /* nop; nop */
        0xc3,                                   /* ret */
        0x00,                                   /* data for B */
    };
    static const uint8_t rep_code[] = {
        0x90,                                   /* nop */
        0xc6, 0x05, 0, 0, 0, 0, 0x40,           /* movb $0x40, addr */
        0x90,                                   /* the next: nop, or inc %eax */
        0x57,                                   /* push %edi */
        0xbf, 0, 0, 0, 0,                       /* mov $buffer, %edi */
        0xb9, 3, 0, 0, 0,                       /* mov $3, %ecx */
        0xf3, 0xaa,                             /* rep stosb */
        0x5f,                                   /* pop %edi */
        0xc3,                                   /* ret */
        0x00,                                   /* data for D */
    };
    int rep = variant[0] == 'C' || variant[0] == 'D';
    const uint8_t *src = rep ? rep_code : code;
    uint32_t len = rep ? sizeof rep_code : sizeof code;
    long map = syscall6(SYS_mmap2, 0, 4096, 7, 0x22, -1, 0);
    if (map < 0 && map > -4096)
        return 3;
    uint8_t *p = (uint8_t *)map;
    memcpy(p, src, len);
    int patch = variant[0] == 'A' || variant[0] == 'C';
    uint32_t target = (uint32_t)(patch ? p + 8 : p + len - 1);
    memcpy(p + 3, &target, 4);
    if (!patch)
        p[8] = 0x40;
    if (rep) {
        uint32_t buffer = (uint32_t)(p + 2048);
        memcpy(p + 11, &buffer, 4);
    }
    uint64_t t0 = rdtsc();
    ((void (*)(void))p)();
    uint64_t t1 = rdtsc();
    printf("selfmod %s: code at %08x, %u cycles\n", variant, (unsigned long)(uint32_t)p,
           (unsigned long)(t1 - t0));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *name = argv[1];
    if (!strcmp(name, "top-of-user"))
        return top_of_user(argc > 2 ? atol(argv[2]) : 16);
    if (!strcmp(name, "tf-sysenter") || !strcmp(name, "tf-vsyscall")) {
        printf("%s: eip=fffff007\n", name);
        long r = name[3] == 's' ? f_tf_sysenter() : f_tf_vsyscall();
        printf("%s: returned %ld, no trap\n", name, r);
        return 1;
    }
    if (!strcmp(name, "iret-vm")) {
        /* twice: the second iret returns to code that has run before */
        uint32_t f = f_iret_vm(), image = iret_vm_image;
        f |= f_iret_vm();
        printf("iret-vm: ran on, VM %s, the image in memory %08x then %08x\n",
               f & X86_EFLAGS_VM ? "set" : "clear", image, iret_vm_image);
        return f & X86_EFLAGS_VM ? 1 : 0;
    }
    if (name[0] == 't' && name[1] == 'l' && name[2] == 's' && name[3] == '-')
        return tls_case(name);
    if (!strcmp(name, "nt-sysenter"))
        return nt_sysenter();
    if (!strcmp(name, "iret-nt")) {
        printf("iret-nt: eip=%08x\n", (unsigned long)(uint32_t)at_iret_nt);
        f_iret_nt();
        printf("iret-nt: no fault\n");
        return 1;
    }
    if (!strcmp(name, "wrap-rmw")) {
        printf("wrap-rmw: eip=%08x cr2=00000000\n", (unsigned long)(uint32_t)at_wrap_rmw);
        f_wrap_rmw();
        printf("wrap-rmw: no fault\n");
        return 1;
    }
    if (!strcmp(name, "selfmod") && argc > 2)
        return selfmod(argv[2]);
    return 2;
}
