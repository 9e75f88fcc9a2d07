/*
 * cpu_fuzz [HEX]: run the ring-3 machine code the fuzz input carries, in
 * the CPU state it describes: HEX, or without it stdin as it is (how
 * tests/fuzz/harness.c gives it, the cpu target). Any end is fine (an
 * exit, a fault that kills the program, the instruction budget) but never
 * a guest kernel panic or a machine failure.
 *
 * The input, little-endian:
 *   0    how: bits 0-1 how the code is entered:
 *          0 popf of the flags below (ring 3's popf keeps IOPL, IF, VM),
 *            then a near jump
 *          1 iret with a frame of the flags as they are (VM, IOPL, NT and
 *            all); CS the user code segment, or with bit 4 a TLS selector
 *          2 a far jump through a TLS selector
 *          3 a far call through a TLS selector
 *        bit 2: the code ends at 0xbfffffff, so it runs on into kernel
 *          space, instead of starting at CODE_AT (where exit(0) follows it)
 *        bit 3: load DS, ES, FS, GS with the selectors below
 *        bits 5-6: which TLS entry (6, 7, 8; 3 also 8) a selector names
 *        bit 7: that selector's RPL is 0 instead of 3
 *   1    3 TLS descriptors for entries 6-8, 12 bytes each: base, limit,
 *        flags (struct user_desc's); flags with bit 31 set installs none
 *   37   EFLAGS
 *   41   DS ES FS GS, 2 bytes each
 *   49   EAX ECX EDX EBX EBP ESI EDI
 *   77   the code, to the end
 * A far transfer or iret through a TLS selector goes to the code's address
 * less that descriptor's base, so a based segment still lands on it.
 */
#include "mini/mini.h"
#include "../abi.h"
#include "linux_abi.h"

#define MAX_INPUT  2048
#define CODE_AT    0x40000000u
#define CODE_MAX   (2 * PAGE_SIZE - 16)
#define HEADER     77

#define PROT_RWX            (PROT_READ | PROT_WRITE | PROT_EXEC)
#define MAP_PRIVATE_ANON    (MAP_PRIVATE | MAP_ANONYMOUS)

struct user_desc {
    uint32_t entry_number, base_addr, limit, flags;
};

/* What the launch pops, in order (launch[] below). */
struct frame {
    uint32_t ds, es, fs, gs;
    uint32_t edi, esi, ebp, esp_ignored, ebx, edx, ecx, eax;
    uint32_t rest[3];   /* eflags, eip | eip, cs, eflags | offset, selector */
};

void cpu_launch_popf(struct frame *f), cpu_launch_iret(struct frame *f);
void cpu_launch_ljmp(struct frame *f), cpu_launch_lcall(struct frame *f);

/* Each takes the frame as its stack, so nothing of this program's state
 * matters to the code it enters. */
__asm__(
    "	.text\n"
    /* the frame: ds, es, fs, gs, then what popal takes */
    "	.macro LAUNCH_FRAME\n"
    "	movl 4(%esp), %esp\n"
    "	popl %ds\n"
    "	popl %es\n"
    "	popl %fs\n"
    "	popl %gs\n"
    "	popal\n"
    "	.endm\n"
    "	.globl cpu_launch_popf, cpu_launch_iret, cpu_launch_ljmp, cpu_launch_lcall\n"
    "cpu_launch_popf:\n"
    "	LAUNCH_FRAME\n"
    "	popfl\n"
    "	ret\n"
    "cpu_launch_iret:\n"
    "	LAUNCH_FRAME\n"
    "	iret\n"
    "cpu_launch_ljmp:\n"
    "	LAUNCH_FRAME\n"
    "	ljmp *(%esp)\n"
    "cpu_launch_lcall:\n"
    "	LAUNCH_FRAME\n"
    "	lcall *(%esp)\n");

static uint8_t input[MAX_INPUT];
static uint32_t input_len;
static uint32_t launch[64] __attribute__((aligned(16)));

static uint32_t at(uint32_t off, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | (off + (uint32_t)i < input_len ? input[off + (uint32_t)i] : 0);
    return v;
}

int main(int argc, char **argv)
{
    static const uint8_t exit0[] = { 0xb8, SYS_exit, 0, 0, 0, 0x31, 0xdb, 0xcd, SYSCALL_VECTOR };
    if (argc > 2) {
        puts_fd(2, "usage: cpu_fuzz [HEX]  (without HEX: the input from stdin)\n");
        return 2;
    }
    /* the same for every input, so before it is read (the fuzz harness
     * keeps a machine at that read) */
    long map = syscall6(SYS_mmap2, CODE_AT, 2 * PAGE_SIZE, PROT_RWX,
                        MAP_PRIVATE_ANON | MAP_FIXED_NOREPLACE, -1, 0);
    if (map != (long)CODE_AT)
        return 1;
    if (argc == 2)
        input_len = decode_hex(argv[1], input, MAX_INPUT);
    else
        input_len = read_input(0, input, MAX_INPUT);
    uint32_t how = at(0, 1);
    uint32_t bases[3];
    for (uint32_t i = 0; i < 3; i++) {
        struct user_desc d = { GDT_ENTRY_TLS_MIN + i, at(1 + 12 * i, 4), at(5 + 12 * i, 4),
                               at(9 + 12 * i, 4) };
        bases[i] = d.base_addr;
        if (!(d.flags & 0x80000000u))
            syscall1(SYS_set_thread_area, &d);
    }

    uint32_t n = input_len > HEADER ? input_len - HEADER : 0, code;
    if (how & 4) {
        n = n > PAGE_SIZE ? PAGE_SIZE : n;
        code = USER_STACK_TOP - n;
    } else {
        n = n > CODE_MAX ? CODE_MAX : n;
        code = CODE_AT;
        memcpy((uint8_t *)code + n, exit0, sizeof exit0);
    }
    memcpy((uint8_t *)code, input + HEADER, n);

    uint32_t tls = (how >> 5) & 3;
    tls = tls > 2 ? 2 : tls;
    uint32_t sel = (GDT_ENTRY_TLS_MIN + tls) * 8 + (how & 0x80 ? 0 : 3);
    uint32_t based = code - bases[tls];

    struct frame *f = (struct frame *)launch;
    memset(f, 0, sizeof *f);
    f->ds = f->es = __USER_DS;
    if (how & 8) {
        f->ds = at(41, 2);
        f->es = at(43, 2);
        f->fs = at(45, 2);
        f->gs = at(47, 2);
    }
    f->eax = at(49, 4);
    f->ecx = at(53, 4);
    f->edx = at(57, 4);
    f->ebx = at(61, 4);
    f->ebp = at(65, 4);
    f->esi = at(69, 4);
    f->edi = at(73, 4);
    uint32_t eflags = at(37, 4);
    switch (how & 3) {
    case 0:
        f->rest[0] = eflags;
        f->rest[1] = code;
        cpu_launch_popf(f);
        break;
    case 1:
        f->rest[0] = how & 16 ? based : code;
        f->rest[1] = how & 16 ? sel : __USER_CS;
        f->rest[2] = eflags;
        cpu_launch_iret(f);
        break;
    case 2:
        f->rest[0] = based;
        f->rest[1] = sel;
        cpu_launch_ljmp(f);
        break;
    default:
        f->rest[0] = based;
        f->rest[1] = sel;
        cpu_launch_lcall(f);
        break;
    }
    return 0;
}
