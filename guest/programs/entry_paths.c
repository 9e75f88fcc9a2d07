/*
 * The kernel's exit paths that are not the fast one.
 *   entry_paths signal    - kill of itself, a handler installed: the signal
 *                           is pending at the call's exit, so even a call
 *                           made with sysenter must return through iret
 *   entry_paths yield     - sched_yield, which as in 2.5.53 schedules
 *                           inside the call and leaves no work pending
 *   entry_paths segfixup  - DS holds a TLS selector whose descriptor the
 *                           call itself clears: popping DS on the way out
 *                           faults in the kernel, the fixup loads a null
 *                           selector, and the program sees DS = 0
 */
#include "mini/mini.h"

struct user_desc {
    uint32_t entry_number, base_addr, limit, flags;
};

static int yield(void)
{
    long y = syscall0(SYS_sched_yield);
    long pid = syscall0(SYS_getpid);
    printf("sched_yield=%ld getpid=%ld\n", y, pid);
    return y == 0 && pid == 2 ? 0 : 1;   /* the boot program: init is 1 */
}

static volatile int caught;

static void on_usr1(int sig)
{
    caught += sig == SIGUSR1;
}

static int signal_self(void)
{
    struct { uint32_t handler, flags, restorer; uint64_t mask; } act = {
        (uint32_t)on_usr1, 0, 0, 0 };
    if (syscall6(SYS_rt_sigaction, SIGUSR1, (long)&act, 0, 8, 0, 0) != 0)
        return 2;
    long k = syscall2(SYS_kill, syscall0(SYS_getpid), SIGUSR1);
    printf("kill=%ld caught=%d\n", k, caught);
    return k == 0 && caught == 1 ? 0 : 1;
}

/* Load DS with the TLS selector, clear its descriptor with a system call
 * made through `via` (int $0x80 or the vsyscall page), and report the DS
 * the call returned with. Only SS is used while DS may be unusable. */
static uint32_t ds_after_clearing(struct user_desc *clear, uint32_t selector, int via_int80)
{
    uint32_t ds;
    if (via_int80)
        __asm__ volatile("movl %[sel], %%ds\n\t"
                         "int $0x80\n\t"
                         "movl %%ds, %[ds]\n\t"
                         "movl %[udata], %%ecx\n\t"
                         "movl %%ecx, %%ds"
                         : [ds] "=&d"(ds)
                         : "a"(SYS_set_thread_area), "b"(clear), [sel] "r"(selector),
                           [udata] "i"(0x7b)
                         : "ecx", "memory", "cc");
    else
        __asm__ volatile("movl %[sel], %%ds\n\t"
                         "call *%%ss:%[entry]\n\t"
                         "movl %%ds, %[ds]\n\t"
                         "movl %[udata], %%ecx\n\t"
                         "movl %%ecx, %%ds"
                         : [ds] "=&d"(ds)
                         : "a"(SYS_set_thread_area), "b"(clear), [sel] "r"(selector),
                           [entry] "m"(mini_sysinfo), [udata] "i"(0x7b)
                         : "ecx", "memory", "cc");
    return ds & 0xffff;
}

static int segfixup(int via_int80)
{
    /* flat 4 GiB writable data, 32-bit, limit in pages */
    struct user_desc d = { 0xffffffffu, 0, 0xfffff, 0x01 | 0x10 };
    if (syscall1(SYS_set_thread_area, &d) != 0)
        return 2;
    uint32_t selector = d.entry_number * 8 + 3;
    struct user_desc clear = { d.entry_number, 0, 0, 0x08 | 0x20 }; /* empty */
    uint32_t ds = ds_after_clearing(&clear, selector, via_int80);
    printf("tls selector %x cleared while in ds; ds after return = %x\n", selector, ds);
    return ds == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "yield"))
        return yield();
    if (argc > 1 && !strcmp(argv[1], "signal"))
        return signal_self();
    if (argc > 1 && !strcmp(argv[1], "segfixup"))
        return segfixup(argc > 2 && !strcmp(argv[2], "int80"));
    puts_fd(2, "usage: entry_paths signal|yield|segfixup [int80]\n");
    return 2;
}
