/*
 * System calls and traps as the machine sees them: where each one entered
 * (int $0x80 or sysenter), where it left (iret or sysexit), and the cycles
 * of its entry, body and exit, split at the kernel's dispatch call. The
 * tracker learns it all from the machine's events (machine_observe) and
 * hands each finished record to its listeners (trace, strace).
 */
#ifndef EMU_SYSCALLS_H
#define EMU_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>
#include "machine/machine.h"

#define SYSCALL_STATS_MAX 1024

/* PATH_USER: no kernel entry at all, the user-space clock of
 * --vgettimeofday (only in call rows: the vDSO's calls that made no system
 * call, by the number of the call they replace). */
enum sys_path { PATH_INT80, PATH_SYSENTER, PATH_TRAP, PATH_USER, NPATHS };
enum sys_phase { PHASE_NONE, PHASE_ENTRY, PHASE_BODY, PHASE_EXIT };
enum sys_return { RET_NONE, RET_IRET, RET_SYSEXIT, RET_EXITED };
/* How the program made the call: through the vsyscall page, or with its
 * own trapping instruction (an inline int $0x80). */
enum sys_via { VIA_INLINE, VIA_PAGE, NVIAS };

struct syscall_record {
    uint64_t seq;
    uint32_t pid;         /* the process that made it */
    uint32_t nr;          /* syscall number, or vector for a trap */
    uint32_t args[6];
    int32_t result;
    uint8_t path, ret, via;
    uint8_t cpu;          /* the CPU it began on (--smp) */
    uint32_t error_code;  /* traps */
    uint32_t user_eip;    /* where user space entered the kernel */
    uint32_t user_esp;    /* its stack then (int $0x80 only; 0: unknown) */
    uint64_t start, body_start, exit_start, end; /* centicycles */
    uint64_t insns_start, insns_end;
    uint32_t kernel_faults; /* faults taken (and fixed up) in the kernel */
    /* external interrupts taken inside it, and their work in each phase
     * (centicycles, in start..end but not counted: rule X of
     * docs/cost-model.md) */
    uint32_t ext_ticks;
    uint64_t ext_entry, ext_body, ext_exit;
    /* the call's own cycles in each phase (centicycles): its time on a CPU
     * less the interrupts' work; and the time it was switched out, while
     * other tasks ran or its CPU idled in hlt (in start..end, in neither) */
    uint64_t own_entry, own_body, own_exit;
    uint64_t switched;
};

/* The call's own cycles (centicycles), interrupts and time switched out left out. */
static inline uint64_t record_own(const struct syscall_record *r)
{
    return r->own_entry + r->own_body + r->own_exit;
}

struct syscall_stat {
    uint64_t calls, entry, body, exit, total; /* sums, centicycles */
    uint64_t errors;      /* calls that returned -1..-4095 */
    uint64_t ext_ticks, ext_cycles; /* timer interrupts inside, not counted */
    uint64_t switched;    /* time switched out inside, not counted */
};

/* Did a call that returned r fail? (-4095 to -1: an errno.) */
static inline bool syscall_failed(int32_t r)
{
    return r < 0 && r >= -4095;
}

/* A signal the program received: what strace shows as "--- SIGSEGV {...} ---".
 * The fault that killed the program, or one delivered to a handler (seen
 * when the return to user mode lands in it, its frame on the stack). */
struct signal_record {
    uint32_t pid;
    uint32_t signo;
    int32_t code;         /* si_code: SEGV_MAPERR, SI_KERNEL ... */
    uint32_t addr;        /* si_addr */
    uint32_t vector;      /* the exception that raised it */
    uint64_t when;        /* centicycles */
    bool handled;         /* delivered to a handler */
    bool has_info;        /* its frame holds a siginfo (SA_SIGINFO): code, */
    uint32_t fields[5];   /* and the words after si_code (si_pid, si_uid ...) */
};

/* A process ended: "+++ exited with N +++" or "+++ killed by SIG +++". */
struct exit_record {
    uint32_t pid;
    bool killed;
    int status;           /* exit status, or the signal that killed it */
    uint64_t when;
};

/*
 * The calls of one number that went one way (path and via), as the caller
 * sees them: through the page, from the call into it to the return from
 * it; inline, from the trapping instruction to the return to user mode.
 * With the instructions executed in those spans, by cost class, so their
 * cycles can be recomputed for any cost vector. Only calls that returned.
 */
struct call_row {
    uint32_t nr;
    uint8_t path, via;
    uint64_t calls, cycles;            /* centicycles */
    uint64_t classes[NCLASSES];
    uint64_t ext_ticks, ext_cycles;    /* timer interrupts inside, not counted */
};
#define MAX_CALL_ROWS 32

/* Who is told about each system call or trap once it is over. */
struct syscall_listener {
    void *ctx;
    void (*record)(void *ctx, const struct syscall_record *r);
    /* process pid's user mode ran from start to end (centicycles): from its
     * return from a call (or its first user instruction, or its switch back
     * in) to its next call (or its switch out, or its end) */
    void (*user_span)(void *ctx, uint32_t pid, uint64_t start, uint64_t end);
    /* process pid is named comm (the kernel's task comm): told before its
     * first user span, and again when an exec changes it */
    void (*named)(void *ctx, uint32_t pid, const char *comm);
    /* process pid was off its CPU from out to in (centicycles: others ran,
     * or the CPU idled), in a call or in user mode */
    void (*switched)(void *ctx, uint32_t pid, uint64_t out, uint64_t in);
    /* a call or trap has begun: number and arguments are known */
    void (*enter)(void *ctx, const struct syscall_record *r);
    /* the machine booted until end, when the program's first instruction
     * (at entry) ran */
    void (*boot)(void *ctx, uint64_t end, uint32_t entry);
    void (*signal)(void *ctx, const struct signal_record *s);
    void (*exit)(void *ctx, const struct exit_record *e);
};

#define SYSCALL_MAX_LISTENERS 4
#define TRACK_TASKS 80        /* processes followed at once (the kernel allows 64) */

/*
 * External interrupts (the timer): the work from each delivery to the
 * return to the context it interrupted (the handler, the delivery, and
 * whatever ran before that return) is no part of a system call's cost, so
 * no record, row or tsc span counts it (rule X of docs/cost-model.md).
 * Summed per task, over the intervals closed so far.
 */
struct ext_work {
    uint64_t ticks;                    /* interrupts delivered to the task */
    uint64_t cycles;                   /* centicycles */
    uint64_t counts[NCLASSES];
};

/* One process's call in flight. */
struct task_track {
    uint32_t key;            /* its kernel stack's top, 0: a free slot */
    uint32_t pid;
    struct syscall_record rec;
    enum sys_phase phase;
    bool active;
    bool result_known;       /* the call returned (its result is in rec) */
    uint32_t ret_eip;        /* to this user address, unless a signal's handler */
    bool unknown;            /* the call in flight reached sys_ni_syscall */
    bool in_vclock;          /* it called the user-space clock: which one, */
    uint32_t vclock_nr;      /* when, the records begun before it, the */
    uint64_t vclock_start, vclock_seq; /* and ext work at the call */
    struct ext_work vclock_ext;
    bool in_vsyscall;        /* it called into the vsyscall page ... */
    uint64_t vsyscall_start; /* ... at this many centicycles */
    uint64_t last_used;
    uint64_t born;           /* which task this is: a slot reused has a new one */
    struct ext_work ext;     /* its external-interrupt work, closed intervals */
    bool ext_open;           /* an interrupt's work is under way: from */
    bool ext_user;           /* user mode (ends at its next user block), or */
    uint32_t ext_eip, ext_esp; /* the kernel (ends back at EIP with ESP) */
    bool ext_rep;            /* it cut a rep string op, which starts again */
    int ext_cpu;             /* the CPU it was delivered on (--smp) */
    uint64_t ext_start;      /* centicycles at the delivery */
    uint64_t ext_start_counts[NCLASSES];
    struct ext_work rec_ext, page_ext; /* ext at the record's start, page call's */
    uint64_t phase_ext;      /* ext.cycles at the record's last phase change */
    /* Its time on a CPU (closed segments: switched in .. out), and the
     * open segment's start; snapshots at the record's start, its last
     * phase change, the page call and the clock call. */
    struct ext_work run;
    uint64_t seg_start;
    uint64_t seg_counts[NCLASSES];
    uint64_t idle, seg_idle, rec_idle; /* its CPU idle in hlt while it was the
                                          running task: closed segments, the
                                          CPU's count at the open one's start,
                                          the task's at the record's start */
    struct ext_work rec_run, page_run, vclock_run; /* (rec_run's counts only
                                                       for a row at finish) */
    uint64_t phase_run;
    bool out;                /* switched out ... */
    uint64_t out_at;         /* ... at this many centicycles (its CPU's clock) */
    bool user_open;          /* in user mode (no call in flight) since */
    uint64_t user_since;     /* this many centicycles, or its switch back in */
    char comm[TASK_COMM_LEN]; /* its name as last told ("": not yet) */
};

struct syscall_tracker {
    struct task_track tasks[TRACK_TASKS];
    struct task_track *task; /* the one running now */
    int tasks_used;          /* slots from tasks_used on were never used */
    uint64_t switches;       /* task switches seen */
    uint64_t tasks_seen;     /* the last task_track.born given */
    uint64_t seq;
    uint64_t by_path[NPATHS];
    uint64_t returns_sysexit, returns_iret;
    uint64_t sysenter_irets; /* sysenter calls that left through iret (work pending) */
    uint64_t enosys;         /* calls the kernel had no handler for */
    uint64_t enosys_by_nr[SYSCALL_STATS_MAX];
    uint32_t first_pid;      /* the first process seen, and whether */
    bool several_pids;       /* another has made a call since */
    struct syscall_stat stats[NPATHS][SYSCALL_STATS_MAX];
    struct syscall_stat stats_beyond[NPATHS]; /* numbers past the table */
    uint64_t trap_cycles;    /* in traps (faults), centicycles */
    /* calls through the vsyscall page: call .. return, centicycles */
    uint64_t vsyscall_calls, vsyscall_cycles;
    /* user-space clock calls (--vgettimeofday) that made no system call,
     * their cycles (call .. return), and the sequence-lock retries */
    uint64_t vclock_calls, vclock_cycles, vclock_retries;
    /* the caller's view, by number, path and via (the first MAX_CALL_ROWS
     * seen; calls_dropped counts calls of any further one) */
    struct call_row call_rows[MAX_CALL_ROWS];
    int ncall_rows;
    uint64_t calls_dropped;
    uint64_t begun[NPATHS][NVIAS];          /* records begun, every number */
    bool user_started;       /* the program has run its first instruction */
    uint64_t boot_end;       /* when it did, centicycles */
    uint32_t prev_last_cost; /* cost of the last insn of the previous block, */
    int prev_last_cls;       /* its class, or -1 if it is charged later */
    /* kernel code addresses that split the phases */
    uint32_t syscall_call, syscall_return, sysenter_call, sysenter_return, sysenter_exit;
    uint32_t ni_syscall;     /* the kernel's handler of unknown numbers */
    uint32_t switch_to;      /* __switch_to: on the next task's stack */
    uint32_t page_entry;     /* the vsyscall page's entry (AT_SYSINFO) */
    uint32_t page_base;      /* the page (where the kernel variant has it) */
    uint32_t vclock_gtod, vclock_clock_gettime, vclock_retry; /* --vgettimeofday's */
    struct syscall_listener listeners[SYSCALL_MAX_LISTENERS];
    int nlisteners;
    bool names_wanted;       /* a listener wants the processes' names */
    /* --smp: the running CPU, and what is per CPU of the above while
     * another runs (a call is followed on the CPU it runs on) */
    int cpu;
    struct {
        struct task_track *task;
        uint32_t prev_last_cost;
        int prev_last_cls;
        bool seen;
    } cpus[MAX_CPUS];
};

/* "int80", "sysenter", "trap"; "-", "iret", "sysexit", "exited";
 * "inline", "page". */
const char *sys_path_name(int path);
const char *sys_return_name(int ret);
const char *sys_via_name(int via);
/* The caller's-view row of nr, path and via, or NULL. */
const struct call_row *call_row_of(const struct syscall_tracker *t, uint32_t nr, int path,
                                   int via);
/* The external-interrupt work of the task running now (closed intervals). */
const struct ext_work *syscalls_ext_work(const struct syscall_tracker *t);

/* Inside the tracker (syscalls.c, syscalls_page.c): one call as its caller
 * saw it, into its row: the task's time on a CPU (cycles and class counts)
 * from the since_run snapshot to end, less the external-interrupt work done
 * since since_ext; and the calls into the vsyscall page, at each user
 * block b. */
void syscalls_add_call(struct syscall_tracker *t, const struct machine *m,
                       const struct syscall_record *r,
                       uint64_t end, const uint64_t end_counts[NCLASSES],
                       const struct ext_work *since_run, const struct ext_work *since_ext);
/* The running task's time on a CPU up to now (cycles, class counts). */
void syscalls_run_until(const struct task_track *task, const struct machine *m, uint64_t now,
                        const uint64_t counts[NCLASSES], struct ext_work *out);
/* Its cycles alone (syscalls_run_until's, without the class counts). */
uint64_t syscalls_run_cycles(const struct task_track *task, const struct machine *m, uint64_t now);
void syscalls_track_page(struct syscall_tracker *t, struct machine *m, const struct block *b,
                         const uint64_t at_block[NCLASSES]);

/* Start tracking m's system calls and traps in t (t is reset). 0 or -1. */
int syscalls_attach(struct syscall_tracker *t, struct machine *m);
/* The same on a t that is all zero already (calloc's): its statistics,
 * most of its size, are then written only where calls land, so a short
 * run does not fault in the pages of the rest. */
int syscalls_attach_zeroed(struct syscall_tracker *t, struct machine *m);
/* Tell l about every record from now on. 0, or -1 if there are too many. */
int syscalls_listen(struct syscall_tracker *t, const struct syscall_listener *l);

/* The vsyscall page: the top page of the address space in the seed, the
 * one below it from 2.5.53 on. */
static inline bool in_vsyscall_page(const struct syscall_tracker *t, uint32_t addr)
{
    return addr - t->page_base < PAGE_SIZE;
}

#endif
