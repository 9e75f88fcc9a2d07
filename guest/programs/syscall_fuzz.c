/*
 * syscall_fuzz [HEX]: make the system calls that the fuzz input describes,
 * then exit 0: HEX, or without it stdin as it is (how tests/fuzz/harness.c
 * gives it). Any end is fine for the program (an exit, a fault that kills
 * it, the instruction budget) but never a guest kernel panic or a machine
 * failure.
 *
 * The input is a sequence of records, read until it runs out or
 * MAX_CALLS calls have been made:
 *
 *   op       bits 0-1 how the call enters the kernel:
 *              0 int $0x80 (a stub in this program)
 *              1 call *AT_SYSINFO (the vsyscall page: sysenter or int $0x80)
 *              2 the vsyscall stub's sysenter instruction itself, with
 *                EBP = the sixth argument as the user stack pointer (when
 *                EBP points into the scratch area, a stub frame is put
 *                there so that the return comes back here)
 *              3 the vsyscall page at a wrong offset: one more byte, 0-63
 *            bit 2 the number is a raw 32-bit value (else a 1-byte index
 *              into numbers[])
 *            bit 3 load ES with a 16-bit selector from the input just
 *              before the call; bit 4 the same for DS
 *   number   1 or 4 bytes
 *   6 args   each a kind byte and its payload (arg() below), pointing at
 *            the scratch area, kernel memory, the vsyscall page, unmapped
 *            pages, the end of a mapping, read-only text, odd alignments
 *
 * Multi-byte values are little-endian. The first page of the scratch area
 * holds the input itself, so the structures that pointers point at
 * (iovecs, sigactions, user_desc) are fuzzed too.
 */
#include "mini/mini.h"
#include "../abi.h"
#include "linux_abi.h"

#define SCRATCH      0x20000000u
#define SCRATCH_SIZE 0x00010000u /* 16 pages; the page after is unmapped */
#define UNMAPPED     0x30000000u
#define MAX_INPUT    2048
#define MAX_CALLS    64

#define PROT_RW             (PROT_READ | PROT_WRITE)
#define MAP_PRIVATE_ANON    (MAP_PRIVATE | MAP_ANONYMOUS)

/* Every number the guest kernel implements, and some it refuses (numbers
 * it has no handler for, numbers past its table). The order is the seeds'
 * (a record names a number by its index here): new ones go at the end. */
static const uint32_t numbers[] = {
    SYS_exit, SYS_read, SYS_write, SYS_time, SYS_getpid, SYS_getuid, SYS_kill, SYS_brk,
    SYS_getgid, SYS_geteuid, SYS_getegid, SYS_ioctl, SYS_getppid, SYS_gettimeofday, SYS_mmap,
    SYS_munmap, SYS_fstat, SYS_uname, SYS_mprotect, SYS_writev, SYS_sched_yield,
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_sigaltstack, SYS_ugetrlimit, SYS_mmap2,
    SYS_fstat64, SYS_getuid32, SYS_getgid32, SYS_geteuid32, SYS_getegid32, SYS_madvise,
    SYS_gettid, SYS_tkill, SYS_set_thread_area, SYS_get_thread_area, SYS_exit_group,
    SYS_set_tid_address, SYS_clock_gettime, SYS_tgkill, SYS_prlimit64, SYS_getrandom, SYS_rseq,
    SYS_clock_gettime64, SYS_sysemu_args6,
    SYS_restart_syscall, SYS_fork, 500, 998, NR_syscalls, 1023, 0xffff, 0x7fffffff, 0x80000000u,
    0xffffffffu,
    /* the file calls (guest/kernel/fs.h) */
    SYS_open, SYS_close, SYS_lseek, SYS_access, SYS_fcntl, SYS_readlink, SYS_stat, SYS_lstat,
    SYS__llseek, SYS_getcwd, SYS_stat64, SYS_lstat64, SYS_getdents64, SYS_fcntl64, SYS_openat,
    SYS_readlinkat, SYS_faccessat, SYS_set_robust_list, SYS_statx, SYS_faccessat2,
};
#define NNUMBERS (sizeof numbers / sizeof numbers[0])

/* What fuzz_call takes; offsets are used by the assembly below. */
struct fuzz_call {
    uint32_t target;   /* 0: what to call */
    uint32_t nr;       /* 4 */
    uint32_t es, ds;   /* 8, 12: selectors loaded just before the call */
    uint32_t a[6];     /* 16..36: EBX ECX EDX ESI EDI EBP */
};

long fuzz_call(const struct fuzz_call *fc);
extern const char fuzz_int80[], fuzz_back[];
uint32_t fuzz_saved_esp;

/*
 * The call pushes fuzz_back above its return address: a stub entered at a
 * wrong offset that pops one word too many returns there too. Everything
 * that comes back, however it comes back, goes through fuzz_back, which
 * restores the data segments and the stack before returning to C.
 */
__asm__(
    "	.text\n"
    "	.globl fuzz_call, fuzz_int80, fuzz_back\n"
    "fuzz_call:\n"
    "	pushl %ebp\n"
    "	pushl %edi\n"
    "	pushl %esi\n"
    "	pushl %ebx\n"
    "	movl 20(%esp), %eax\n"
    "	movl %esp, fuzz_saved_esp\n"
    "	pushl 0(%eax)\n"                /* target */
    "	pushl $fuzz_back\n"
    "	pushl 12(%eax)\n"               /* ds */
    "	pushl 8(%eax)\n"                /* es */
    "	movl 16(%eax), %ebx\n"
    "	movl 20(%eax), %ecx\n"
    "	movl 24(%eax), %edx\n"
    "	movl 28(%eax), %esi\n"
    "	movl 32(%eax), %edi\n"
    "	movl 36(%eax), %ebp\n"
    "	movl 4(%eax), %eax\n"
    "	popl %es\n"
    "	popl %ds\n"
    "	call *4(%esp)\n"
    "fuzz_back:\n"
    "	movl $0x7b, %ecx\n"
    "	movl %ecx, %ds\n"
    "	movl %ecx, %es\n"
    "	movl fuzz_saved_esp, %esp\n"
    "	popl %ebx\n"
    "	popl %esi\n"
    "	popl %edi\n"
    "	popl %ebp\n"
    "	ret\n"
    "fuzz_int80:\n"
    "	int $0x80\n"
    "	ret\n");

static uint8_t input[MAX_INPUT];
static uint32_t input_len, pos;

static uint32_t u8(void)
{
    return pos < input_len ? input[pos++] : 0;
}

static uint32_t u16(void)
{
    uint32_t lo = u8();
    return lo | u8() << 8;
}

static uint32_t u32(void)
{
    uint32_t lo = u16();
    return lo | u16() << 16;
}

/*
 * One argument: a kind byte, then its payload. Kind bits 0-2 choose the
 * class; the other bits add a small offset, so alignments vary.
 */
static uint32_t arg(void)
{
    uint32_t kind = u8(), extra = kind >> 3;

    switch (kind & 7) {
    case 0:     /* a small number, or its negative */
        return kind & 0x80 ? -u8() : u8();
    case 1:     /* anything */
        return u32();
    case 2:     /* inside the scratch area */
        return SCRATCH + u16() % SCRATCH_SIZE;
    case 3:     /* kernel memory: its image, the boot record, the stacks */
        return KERNEL_BASE + u16() * 0x400u + extra;
    case 4:     /* the vsyscall page, read-only to user space */
        return VSYSCALL_BASE + u8() * 16 + (extra & 15);
    case 5:     /* never mapped unless a fuzzed mmap maps it */
        return UNMAPPED + u16() * 16 + extra;
    case 6:     /* straddling the end of the scratch area */
        return SCRATCH + SCRATCH_SIZE - 1 - u8();
    default:    /* this program's read-only text, or near the stack top */
        if (extra & 1)
            return USER_STACK_TOP - 1 - u16();
        return (uint32_t)fuzz_call + u8();
    }
}

static uint32_t selector(void)
{
    return u16();
}

int main(int argc, char **argv)
{
    struct fuzz_call fc;
    long r;

    if (argc > 2) {
        puts_fd(2, "usage: syscall_fuzz [HEX]  (without HEX: the input from stdin)\n");
        return 2;
    }
    /* the same for every input, so before it is read (the fuzz harness
     * keeps a machine at that read) */
    r = syscall6(SYS_mmap2, SCRATCH, SCRATCH_SIZE, PROT_RW,
                 MAP_PRIVATE_ANON | MAP_FIXED_NOREPLACE, -1, 0);
    if (r != (long)SCRATCH) {
        printf("syscall_fuzz: mmap2 of the scratch area returned %ld\n", r);
        return 1;
    }
    if (argc == 2)
        input_len = decode_hex(argv[1], input, MAX_INPUT);
    else
        input_len = read_input(0, input, MAX_INPUT);
    for (uint32_t i = 0; input_len && i < PAGE_SIZE; i++)
        ((uint8_t *)SCRATCH)[i] = input[i % input_len];

    for (int n = 0; n < MAX_CALLS && pos < input_len; n++) {
        uint32_t op = u8(), how = op & 3;

        fc.nr = op & 4 ? u32() : numbers[u8() % NNUMBERS];
        fc.es = op & 8 ? selector() : __USER_DS;
        fc.ds = op & 16 ? selector() : __USER_DS;
        for (int i = 0; i < 6; i++)
            fc.a[i] = arg();
        if (how == 0 || !mini_sysinfo) {
            fc.target = (uint32_t)fuzz_int80;
        } else if (how == 1) {
            fc.target = mini_sysinfo;
        } else if (how == 2) {
            /* The stub's sysenter, 5 bytes in; the kernel returns with
             * ESP = EBP to SYSENTER_RETURN, which pops EBP, EDX, ECX and
             * returns: give it that frame where EBP points, if that is
             * in the scratch area (a fuzzed munmap may have removed it:
             * then this write kills the program, which is fine). */
            fc.target = VSYSCALL_BASE + SYSENTER_RETURN_OFFSET - 2;
            uint32_t ebp = fc.a[5];
            if (ebp >= SCRATCH && ebp <= SCRATCH + SCRATCH_SIZE - 16) {
                uint32_t *frame = (uint32_t *)ebp;
                frame[0] = ebp;
                frame[1] = 0;
                frame[2] = 0;
                frame[3] = (uint32_t)fuzz_back;
            }
        } else {
            fc.target = VSYSCALL_BASE + u8() % 64;
        }
        fuzz_call(&fc);
    }
    return 0;
}
