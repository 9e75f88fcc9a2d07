/*
 * sighostile CASE: a program that abuses signals. Each case must end as a
 * clean guest-level result: the program's exit or a kill report, never a
 * kernel panic or a machine failure (tests/test_signals.c).
 *
 *   forge-cs, forge-ss  rt_sigreturn with a kernel CS (0x60) / SS (0x68):
 *                       the iret refuses it, SIGSEGV
 *   forge-eip           ... with an EIP in the kernel (0xc0100000): SIGSEGV
 *   forge-iopl, forge-nt, forge-vm, forge-if
 *                       ... with IOPL 3 / NT / VM set / IF clear: the frame
 *                       returns, and prints the EFLAGS bits it got (none of
 *                       those; IF set)
 *   forge-ds            ... with the kernel DS in DS and ES: loaded as null
 *   storm N             N kill()s of SIGUSR1 to itself, each caught
 *   fault-forever       a SIGSEGV handler that faults itself: killed by SIGSEGV
 *   ignore-term         SIGTERM ignored: it survives kill(self, SIGTERM)
 *   altstack-unmapped   a SA_ONSTACK handler whose alternate stack was
 *                       unmapped: no room for the frame, killed by SIGSEGV
 *                       (prints the stack's address and size first)
 *   step                EFLAGS.TF set around a getpid through the vsyscall
 *                       page: one SIGTRAP per instruction, the page's
 *                       offsets printed as they were stepped
 */
#include "mini/mini.h"
#include "../x86.h"
#include "../abi.h"

#define SA_SIGINFO 4

struct k_sigaction {
    uint32_t handler, flags, restorer;
    uint32_t mask[2];
};

static int catch_signal(int sig, void *handler, uint32_t flags)
{
    struct k_sigaction ka = { (uint32_t)handler, flags, 0, { 0, 0 } };
    return (int)syscall6(SYS_rt_sigaction, sig, (long)&ka, 0, 8, 0, 0);
}

/* ---- forged rt_sigreturn frames ---- */

struct sigcontext {
    uint16_t gs, __gsh, fs, __fsh, es, __esh, ds, __dsh;
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
    uint32_t trapno, err, eip;
    uint16_t cs, __csh;
    uint32_t eflags, esp_at_signal;
    uint16_t ss, __ssh;
    uint32_t fpstate, oldmask, cr2;
};

struct rt_frame {
    uint32_t pretcode, sig, pinfo, puc;
    uint8_t info[128];
    uint32_t uc_flags, uc_link, ss_sp, ss_flags, ss_size;
    struct sigcontext sc;
    uint32_t mask[2];
};

static struct rt_frame frame __attribute__((aligned(16)));
static uint8_t landing_stack[8192] __attribute__((aligned(16)));

__attribute__((noreturn, used)) static void landed(void)
{
    uint32_t fl, ds;
    __asm__ volatile("pushfl; popl %0" : "=r"(fl));
    __asm__ volatile("movl %%ds, %0" : "=r"(ds));
    printf("returned: iopl %u nt %u vm %u if %u ds %x\n", (fl >> 12) & 3, (fl >> 14) & 1,
           (fl >> 17) & 1, (fl >> 9) & 1, ds & 0xffff);
    exit(0);
}

extern char landing[];
__asm__(".text\nlanding:\n\tcall landed\n");

__attribute__((noreturn)) static void forge(const char *how)
{
    struct sigcontext *sc = &frame.sc;
    memset(&frame, 0, sizeof frame);
    sc->cs = __USER_CS;
    sc->ss = sc->ds = sc->es = __USER_DS;
    sc->eip = (uint32_t)landing;
    sc->esp = (uint32_t)(landing_stack + sizeof landing_stack - 16);
    sc->eflags = X86_EFLAGS_IF | 2;
    if (!strcmp(how, "forge-cs"))
        sc->cs = __KERNEL_CS;
    else if (!strcmp(how, "forge-ss"))
        sc->ss = __KERNEL_DS;
    else if (!strcmp(how, "forge-eip"))
        sc->eip = KERNEL_LOAD_ADDR;
    else if (!strcmp(how, "forge-iopl"))
        sc->eflags |= X86_EFLAGS_IOPL;
    else if (!strcmp(how, "forge-nt"))
        sc->eflags |= X86_EFLAGS_NT;
    else if (!strcmp(how, "forge-vm"))
        sc->eflags |= X86_EFLAGS_VM;
    else if (!strcmp(how, "forge-if"))
        sc->eflags &= ~X86_EFLAGS_IF;
    else if (!strcmp(how, "forge-ds"))
        sc->ds = sc->es = __KERNEL_DS;
    /* rt_sigreturn finds its frame 4 bytes below ESP (the pretcode popped) */
    __asm__ volatile("movl %0, %%esp\n\tmovl %1, %%eax\n\tint $0x80"
                     : : "r"((uint32_t)&frame + 4), "i"(SYS_rt_sigreturn) : "memory");
    __builtin_unreachable();
}

/* ---- the others ---- */

static volatile uint32_t caught;

static void count(int sig)
{
    (void)sig;
    caught++;
}

static void fault_in_handler(int sig)
{
    (void)sig;
    *(volatile int *)0 = 1;
}

/* TF single-step: each trap's EIP from the sigcontext (rt frame: ucontext
 * at the third argument, its sigcontext 20 bytes in, EIP at 56). */
#define MAX_STEPS 64
static uint32_t steps[MAX_STEPS];
static volatile uint32_t nsteps;
/* the vsyscall page, wherever the kernel variant has it */
#define PAGE_BASE (mini_sysinfo & ~0xfffu)

static void on_trap(int sig, void *info, uint8_t *uc)
{
    (void)sig;
    (void)info;
    uint32_t *eflags = (uint32_t *)(uc + 20 + 64);
    uint32_t eip = *(uint32_t *)(uc + 20 + 56);
    if (nsteps < MAX_STEPS)
        steps[nsteps++] = eip;
    if (eip < PAGE_BASE && nsteps > 1)
        *eflags &= ~X86_EFLAGS_TF;   /* back in the program: stop stepping */
}

static void step(void)
{
    long pid;
    catch_signal(SIGTRAP, on_trap, SA_SIGINFO);
    __asm__ volatile("pushfl\n\torl %1, (%%esp)\n\tpopfl\n\t"
                     "movl %2, %%eax\n\tcall *%3\n\t"
                     : "=&a"(pid) : "i"(X86_EFLAGS_TF), "i"(SYS_getpid), "S"(mini_sysinfo)
                     : "ecx", "edx", "memory", "cc");
    printf("getpid %ld, %u traps:", pid, nsteps);
    for (uint32_t i = 0; i < nsteps; i++) {
        if (steps[i] >= PAGE_BASE)
            printf(" +%u", steps[i] - PAGE_BASE);
        else
            printf(" prog");
    }
    printf("\n");
}

#define SA_ONSTACK 0x08000000
#define ALT_SIZE 65536

static void altstack_unmapped(void)
{
    long map = syscall6(SYS_mmap2, 0, ALT_SIZE, 3, 0x22, -1, 0);
    uint32_t ss[3] = { (uint32_t)map, 0, ALT_SIZE };

    if ((unsigned long)map >= 0xfffff000u || syscall2(SYS_munmap, map, ALT_SIZE) != 0 ||
        syscall2(SYS_sigaltstack, (long)ss, 0) != 0) {
        printf("altstack: setup failed\n");
        return;
    }
    printf("altstack %08x size %u\n", (uint32_t)map, ALT_SIZE);
    catch_signal(SIGUSR1, count, SA_ONSTACK);
    syscall2(SYS_kill, syscall0(SYS_getpid), SIGUSR1);
    printf("altstack: the handler ran %u times\n", caught);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "storm")) {
        long n = argc > 2 ? atol(argv[2]) : 1000;
        catch_signal(SIGUSR1, count, 0);
        for (long i = 0; i < n; i++)
            syscall2(SYS_kill, syscall0(SYS_getpid), SIGUSR1);
        printf("storm: %ld sent, %u caught\n", n, caught);
        return 0;
    }
    if (!strcmp(c, "fault-forever")) {
        catch_signal(SIGSEGV, fault_in_handler, 0);
        *(volatile int *)0 = 1;
        return 0;
    }
    if (!strcmp(c, "ignore-term")) {
        catch_signal(SIGTERM, (void *)1, 0);
        syscall2(SYS_kill, syscall0(SYS_getpid), SIGTERM);
        printf("still here after SIGTERM\n");
        return 0;
    }
    if (!strcmp(c, "altstack-unmapped")) {
        altstack_unmapped();
        return 0;
    }
    if (!strcmp(c, "step")) {
        step();
        return 0;
    }
    if (c[0] == 'f' && c[1] == 'o' && c[2] == 'r')
        forge(c);
    printf("usage: sighostile CASE\n");
    return 2;
}
