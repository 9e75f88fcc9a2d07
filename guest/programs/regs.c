/*
 * regs [int80|vsyscall]: every register but EAX comes back from a system
 * call as it went in. The kernel's handlers take the saved user registers
 * as their arguments (entry.S); a handler that wrote to one would change
 * the caller's register (tests/test_entry.c). Each call below is given
 * arguments that make it fail harmlessly (bad descriptors, pointers,
 * flags); the check is of the registers, not of the result.
 */
#include "mini/mini.h"

static const int calls[] = {
    SYS_read, SYS_write, SYS_open, SYS_close, SYS_waitpid, SYS_creat, SYS_link, SYS_unlink,
    SYS_execve, SYS_chdir, SYS_mknod, SYS_chmod, SYS_lchown, SYS_lseek, SYS_getpid,
    SYS_access, SYS_kill, SYS_rename, SYS_mkdir, SYS_rmdir, SYS_dup, SYS_pipe, SYS_brk,
    SYS_ioctl, SYS_fcntl, SYS_setpgid, SYS_dup2, SYS_getppid, SYS_getpgrp, SYS_setsid,
    SYS_gettimeofday, SYS_symlink, SYS_readlink, SYS_munmap, SYS_truncate, SYS_ftruncate,
    SYS_fchmod, SYS_fchown, SYS_stat, SYS_lstat, SYS_fstat, SYS_wait4, SYS_clone, SYS_uname,
    SYS_mprotect, SYS_getpgid, SYS_fchdir, SYS__llseek, SYS_getdents, SYS_readv, SYS_writev,
    SYS_getsid, SYS_mremap, SYS_poll, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_pread64,
    SYS_pwrite64, SYS_chown, SYS_getcwd, SYS_mmap2, SYS_truncate64, SYS_ftruncate64,
    SYS_stat64, SYS_lstat64, SYS_fstat64, SYS_getdents64, SYS_fcntl64, SYS_waitid,
    SYS_openat, SYS_mkdirat, SYS_fchownat, SYS_fstatat64, SYS_unlinkat, SYS_renameat,
    SYS_linkat, SYS_symlinkat, SYS_readlinkat, SYS_fchmodat, SYS_faccessat, SYS_ppoll,
    SYS_utimensat, SYS_dup3, SYS_pipe2, SYS_prlimit64, SYS_renameat2, SYS_execveat,
    SYS_statx, SYS_faccessat2, SYS_utimes, SYS_futimesat, SYS_utime, SYS_sched_yield,
};

/* The arguments: huge descriptors and pids, user addresses nothing is
 * mapped at, invalid flags. */
#define V_EBX 0xb1b1b1b1u
#define V_ECX 0xb2c2c2c2u
#define V_EDX 0xb3d3d3d3u
#define V_ESI 0xb4e4e4e4u
#define V_EDI 0xb5f5f5f5u
#define V_EBP 0xb6a6a6a6

struct regs {
    uint32_t ebx, ecx, edx, esi, edi, ebp;
};

/* The call with the six registers set; what they hold afterwards. */
static void call(int nr, int int80, struct regs *out)
{
    struct regs r;
    if (int80)
        __asm__ volatile("pushl %%ebp\n\t"
                         "movl $" STR(V_EBP) ", %%ebp\n\t"
                         "int $0x80\n\t"
                         "movl %%ebp, %%eax\n\t"
                         "popl %%ebp"
                         : "=a"(r.ebp), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx), "=S"(r.esi),
                           "=D"(r.edi)
                         : "a"(nr), "b"(V_EBX), "c"(V_ECX), "d"(V_EDX), "S"(V_ESI), "D"(V_EDI)
                         : "memory", "cc");
    else
        __asm__ volatile("pushl %%ebp\n\t"
                         "movl $" STR(V_EBP) ", %%ebp\n\t"
                         "call *mini_sysinfo\n\t"
                         "movl %%ebp, %%eax\n\t"
                         "popl %%ebp"
                         : "=a"(r.ebp), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx), "=S"(r.esi),
                           "=D"(r.edi)
                         : "a"(nr), "b"(V_EBX), "c"(V_ECX), "d"(V_EDX), "S"(V_ESI), "D"(V_EDI)
                         : "memory", "cc");
    *out = r;
}

int main(int argc, char **argv)
{
    int int80 = argc < 2 || strcmp(argv[1], "vsyscall") != 0;
    int bad = 0;

    if (!int80 && !mini_sysinfo) {
        printf("no AT_SYSINFO\n");
        return 2;
    }
    for (unsigned i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        struct regs r;
        call(calls[i], int80, &r);
        const struct regs want = { V_EBX, V_ECX, V_EDX, V_ESI, V_EDI, V_EBP };
        if (r.ebx != want.ebx || r.ecx != want.ecx || r.edx != want.edx ||
            r.esi != want.esi || r.edi != want.edi || r.ebp != want.ebp) {
            printf("%d: ebx %x ecx %x edx %x esi %x edi %x ebp %x\n", calls[i], r.ebx, r.ecx,
                   r.edx, r.esi, r.edi, r.ebp);
            bad++;
        }
    }
    printf("%u calls, %d changed a register\n", (unsigned)(sizeof calls / sizeof calls[0]), bad);
    return bad != 0;
}
