/*
 * Tasks. Each process is a struct task_struct and a kernel stack of
 * THREAD_SIZE bytes with its struct thread_info at the bottom, so
 * `current` is found from %esp alone (GET_THREAD_INFO in entry.S), as in
 * Linux 2.5. The scheduler is 2.5.53's O(1) one (sched.c): a run queue
 * of two priority arrays; a task runs until it blocks, yields or exits, or
 * until the tick ends its time slice or wakes a task of better priority
 * (the switch then happens on its way back to user mode: the kernel is not
 * preemptible). switch_to moves to the next task's stack, and __switch_to
 * gives the CPU its TSS esp0 (which the sysenter trampoline reads), its
 * TLS descriptors and selectors and its FPU state.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "kernel.h"
#include "list.h"

#define TASK_RUNNING         0
#define TASK_INTERRUPTIBLE   1  /* a signal wakes it */
#define TASK_UNINTERRUPTIBLE 2
#define TASK_ZOMBIE          4  /* exited, not yet waited for */
#define TASK_DEAD            8
#define TASK_STOPPED        16  /* by a stop signal, until SIGCONT or SIGKILL */

#define CONT_WAIT   1  /* task_struct.continued: for wait's WCONTINUED */
#define CONT_NOTIFY 2  /* ... for the parent's SIGCHLD (CLD_CONTINUED) */

#define PID_MAX   32768
#define TASK_LIMIT 64          /* RLIMIT_NPROC-like: fork beyond it is EAGAIN */
#define NGROUPS 32   /* 2.5.53's supplementary groups per process */

/* Who a process is: real, effective, saved and file-system ids, and its
 * supplementary groups (sys.c). All zero, root, for the boot program. */
struct cred {
    uint32_t uid, euid, suid, fsuid;
    uint32_t gid, egid, sgid, fsgid;
    uint32_t ngroups;
    uint32_t groups[NGROUPS];
};

struct task_struct;

/* 2.5.53's FASTCALL: the first three arguments in registers */
#define fastcall __attribute__((regparm(3)))

/* thread_info: at the bottom of the kernel stack (TI_FLAGS, TI_PID). */
struct thread_info {
    uint32_t flags;
    uint32_t pid;
    struct task_struct *task;
    uint32_t exit_code;        /* set with TI_FLAG_EXITED: the wait status */
    uint32_t addr_limit;       /* 2.5.53's addr_limit.seg: user space ends here */
#ifdef CONFIG_SMP
    uint32_t cpu;              /* the CPU it runs on */
#endif
};

_Static_assert(__builtin_offsetof(struct thread_info, flags) == TI_FLAGS, "TI_FLAGS");
_Static_assert(__builtin_offsetof(struct thread_info, pid) == TI_PID, "TI_PID");
_Static_assert(__builtin_offsetof(struct thread_info, exit_code) == TI_EXIT_CODE, "TI_EXIT_CODE");
_Static_assert(__builtin_offsetof(struct thread_info, task) == TI_TASK, "TI_TASK");
_Static_assert(__builtin_offsetof(struct thread_info, addr_limit) == TI_ADDR_LIMIT,
               "TI_ADDR_LIMIT");

union thread_union {
    struct thread_info info;
    uint32_t stack[THREAD_SIZE / 4];
};

static inline struct thread_info *current_thread_info(void)
{
    uint32_t esp;
    __asm__("movl %%esp, %0" : "=r"(esp));
    return (struct thread_info *)(esp & ~(THREAD_SIZE - 1));
}

#define current (current_thread_info()->task)

#ifdef CONFIG_SMP
#define smp_processor_id() ((int)current_thread_info()->cpu)
#else
#define smp_processor_id() 0
#endif

/* after smp_processor_id(), which the --smp kernel's spin_lock uses */
#include "spinlock.h"

/*
 * Wait queues as 2.5.53's <linux/wait.h>: a head with its lock and a list
 * of entries, each naming a task and the function that wakes it (most
 * take themselves off the queue when they wake it: autoremove). `what`
 * is ours: the deadlock report's words for a sleeper on it.
 */
struct __wait_queue;
typedef struct __wait_queue wait_queue_t;
typedef int (*wait_queue_func_t)(wait_queue_t *wait, unsigned mode, int sync);

#define WQ_FLAG_EXCLUSIVE 0x01

struct __wait_queue {
    unsigned int flags;
    struct task_struct *task;
    wait_queue_func_t func;
    struct list_head task_list;
};

struct wait_queue {
    spinlock_t lock;
    struct list_head task_list;
    const char *what;
};
typedef struct wait_queue wait_queue_head_t;

#define WAIT_QUEUE_INIT(name, text) \
    { SPIN_LOCK_UNLOCKED("a wait queue"), LIST_HEAD_INIT((name).task_list), (text) }

static inline void init_waitqueue(struct wait_queue *wq, const char *what)
{
    wq->lock = (spinlock_t)SPIN_LOCK_UNLOCKED("a wait queue");
    INIT_LIST_HEAD(&wq->task_list);
    wq->what = what;
}

static inline int waitqueue_active(const wait_queue_head_t *q)
{
    return !list_empty(&q->task_list);
}

int default_wake_function(wait_queue_t *wait, unsigned mode, int sync);
int autoremove_wake_function(wait_queue_t *wait, unsigned mode, int sync);

#define DEFINE_WAIT(name) \
    wait_queue_t name = { 0, current, autoremove_wake_function, \
                          LIST_HEAD_INIT((name).task_list) }

/* What switch_to saves: where the task stopped (its kernel stack pointer
 * and the address it resumes at), and what __switch_to gives the CPU. */
struct thread_struct {
    uint32_t esp0;             /* its kernel stack's top, for the TSS */
    uint32_t eip;
    uint32_t esp;
    uint32_t fs, gs;           /* user selectors: no kernel entry saves them */
    uint8_t fpu[108];          /* fnsave image, when fpu_saved */
    int fpu_saved;             /* fpu holds the task's x87 state */
    int used_math;             /* it has executed an FPU instruction */
    uint32_t trap_no, error_code, cr2; /* the last fault, for a sigcontext */
};

/* What a pending signal carries into its siginfo (signal.c). */
struct sig_info {
    int32_t code;              /* si_code: SI_USER, SEGV_MAPERR, CLD_EXITED ... */
    uint32_t w[3];             /* the union's first words: pid, uid, status, or addr */
};

/* A system call that a signal interrupts and restart_syscall continues
 * (nanosleep): its own state. */
struct restart_block {
    long (*fn)(struct restart_block *rb);
    uint64_t deadline;         /* TSC cycles */
    uint32_t urem;             /* where the time left goes, or 0 */
    int wide;                  /* urem is a 64-bit timespec */
};

struct mm_struct;
struct files_struct;
struct sighand;

struct task_struct {
    struct thread_info *ti;    /* = the kernel stack's base */
    int state;
    uint32_t pid, pgid, sid;
    struct task_struct *parent;
    struct task_struct *group_leader; /* itself: this kernel has no threads */
    struct list_head children, sibling;
    struct list_head tasks;    /* every task */
    struct list_head run_list; /* in its priority's queue of a prio array */
    struct prio_array *array;  /* that array while on the run queue, or NULL */
    int prio, static_prio;     /* 100 (best) to 139; static: nice 0 is 120 */
    uint32_t sleep_avg;        /* ticks, up to MAX_SLEEP_AVG: the priority bonus */
    uint32_t sleep_timestamp;  /* jiffies when it last left the CPU */
    uint32_t time_slice;       /* ticks left of its time slice */
    int first_time_slice;      /* still the one fork gave it */
    struct wait_queue *waiting_on; /* for the deadlock report */
    struct wait_queue wait_chldexit; /* a child exited (wait4 sleeps here) */
    struct wait_queue wait_vfork;    /* a vfork child let go of our memory */
    int exit_code;             /* the wait status; while stopped, the stop
                                  signal until a wait reports it (then 0) */
    int continued;             /* SIGCONT resumed it: CONT_WAIT until a
                                  WCONTINUED wait reports it, CONT_NOTIFY until
                                  it runs and tells its parent (signal.c) */
    int exit_signal;           /* sent to the parent at exit: SIGCHLD or 0 */
    struct thread_struct thread;
    uint64_t tls_array[GDT_ENTRY_TLS_ENTRIES];
    struct mm_struct *mm;
    struct mm_struct *active_mm; /* whose page directory is loaded: mm, or
                                    for a zombie the one it left until its
                                    last switch */
    struct files_struct *files;
    uint32_t cwd;              /* vfs handle of the working directory */
    uint32_t umask;
    struct sighand *sighand;
    uint64_t sig_blocked, sig_pending;
    uint64_t saved_blocked;    /* the mask to restore after sigsuspend/ppoll */
    int restore_blocked;       /* ... when set */
    uint64_t real_blocked;     /* the mask rt_sigtimedwait lifted for its
                                  wait: its signals are not dropped as ignored */
    struct wait_queue wait_signal;   /* pause and sigsuspend sleep here */
    struct restart_block restart;
    /* timers (timer.c): TSC cycles; 0 = off */
    uint64_t timeout;          /* a sleep with a deadline wakes then */
    uint64_t it_real_value, it_real_incr;
    uint64_t it_virt_value, it_virt_incr, it_prof_value, it_prof_incr;
    uint64_t utime, stime;     /* cycles in user mode, in the kernel (the tick's sample) */
    uint64_t cutime, cstime;   /* of waited-for children */
    uint32_t set_child_tid, clear_child_tid;
    struct task_struct *vfork_parent; /* sleeps until this child execs or exits */
    int did_exec;              /* it has run execve (setpgid's EACCES) */
    char comm[TASK_COMM_LEN];
    struct cred cred;
#ifdef CONFIG_SMP
    uint32_t on_cpu;           /* CPU + 1 whose stack pointer is in this task's
                                  stack (running, or idle in its schedule()):
                                  no other CPU may switch to it; 0: none */
    uint32_t cpus_allowed;     /* sched_setaffinity's mask */
#endif
};

#ifdef CONFIG_SMP
#define task_busy(t) ((t)->on_cpu != 0)
#else
#define task_busy(t) 0
#endif

/* The siginfo of each pending signal, in the order sent (signal.c) */
struct sigqueue;
struct sigpending {
    struct sigqueue *head, **tail;
};

/* A process's signal actions, alternate stack and pending queue, and the
 * lock that guards them with its blocked and pending sets (2.5.53's
 * signal_struct and siglock; its queue was the task's). */
struct sighand {
    spinlock_t siglock;
    struct k_sigaction action[NSIG + 1];
    struct stack32 altstack;
    struct sigpending pending;
};

/* fork.c: guards the task list against changes while it is searched */
extern rwlock_t tasklist_lock;

/* The register frame every entry from user mode leaves at the top of the
 * task's kernel stack. */
static inline struct pt_regs *task_pt_regs(struct task_struct *t)
{
    return (struct pt_regs *)((uint32_t)t->ti + THREAD_SIZE - PT_SIZE);
}

/* The boot program's task, pid BOOT_PID: its end is the machine's. Its
 * parent is child_reaper, pid 1, Linux's name for init (exit.c). */
#define BOOT_PID 2
extern struct task_struct *init_task;
extern struct task_struct *child_reaper;
extern struct list_head task_list;
extern uint32_t nr_tasks;

static inline int signal_pending(const struct task_struct *t)
{
    return (t->sig_pending & ~t->sig_blocked) != 0;
}

/* sched.c */
#define MAX_RT_PRIO 100
#define MAX_PRIO (MAX_RT_PRIO + 40)
#define NICE_TO_PRIO(nice) (MAX_RT_PRIO + (nice) + 20)
void sched_init(void);
void schedule(void);
void scheduler_tick(int user_ticks, int sys_ticks);
int wake_up_process(struct task_struct *t);
int wake_up_stopped(struct task_struct *t);
void wake_up_forked_process(struct task_struct *p);
void sched_exit(struct task_struct *p);
fastcall void __wake_up(wait_queue_head_t *q, unsigned mode, int nr_exclusive);
fastcall void __wake_up_locked(wait_queue_head_t *q, unsigned mode);
#define wake_up(q) __wake_up((q), TASK_UNINTERRUPTIBLE | TASK_INTERRUPTIBLE, 1)
#define wake_up_interruptible(q) __wake_up((q), TASK_INTERRUPTIBLE, 1)
#ifdef CONFIG_SMP
fastcall void __wake_up_sync(wait_queue_head_t *q, unsigned mode, int nr_exclusive);
#define wake_up_interruptible_sync(q) __wake_up_sync((q), TASK_INTERRUPTIBLE, 1)
#else
#define wake_up_interruptible_sync(q) __wake_up((q), TASK_INTERRUPTIBLE, 1)
#endif
fastcall void prepare_to_wait(wait_queue_head_t *q, wait_queue_t *wait, int state);
fastcall void prepare_to_wait_exclusive(wait_queue_head_t *q, wait_queue_t *wait, int state);
fastcall void finish_wait(wait_queue_head_t *q, wait_queue_t *wait);
/* Sleep until woken; TASK_INTERRUPTIBLE: -ERESTARTSYS if a signal is pending. */
int sleep_on(struct wait_queue *wq, int state);
struct task_struct *find_task(uint32_t pid);
struct task_struct *alloc_task(void);
void free_task(struct task_struct *t);
uint32_t alloc_pid(void);
void switch_mm(struct mm_struct *prev, struct mm_struct *next);
void load_TLS(const struct task_struct *t);
void fpu_switch_out(struct task_struct *prev);
void math_state_restore(void);
__attribute__((noreturn)) void deadlock(void);
void schedule_tail(void);
#ifdef CONFIG_SMP
/* Each CPU's idle task (sched.c): init_idle returns its stack's top. */
struct task_struct *idle_task_of(int cpu);
int is_idle_task(const struct task_struct *t);
uint32_t init_idle(int cpu);
__attribute__((noreturn)) void cpu_idle_loop(void);
#endif

/* exit.c */
void exit_mm_late(struct task_struct *t);
void mm_release(struct task_struct *t);
void reaper_init(struct task_struct *parent);
void reap_orphans(void);
int is_orphaned_pgrp(uint32_t pgrp);

/* signal.c */
struct sighand *sighand_alloc(const struct sighand *from);
void sighand_free(struct sighand *s);
void flush_signal_handlers(struct task_struct *t);
void send_signal(struct task_struct *t, uint32_t sig);
int send_sig_info(uint32_t sig, const struct sig_info *info, struct task_struct *p);
int kill_pg(uint32_t pgrp, uint32_t sig);
static inline void send_signal_info(struct task_struct *t, uint32_t sig,
                                    const struct sig_info *info)
{
    send_sig_info(sig, info, t);
}
/* A fault's signal to current; 0 if it will run a handler, -1 if it
 * would kill (not caught, or blocked): the caller reports the kill. */
int force_sig_fault(uint32_t sig, int32_t code, uint32_t addr);
int sig_default_ignored(uint32_t sig);
struct k_sigaction *sig_action(struct task_struct *t, uint32_t sig);
void recalc_sigpending(struct task_struct *t);
void set_temporary_mask(uint64_t mask);
uint32_t get_signal_to_deliver(struct sig_info *info);
/* signal_frame.c: on the way back to user mode; 1 if a handler frame was
 * built (the rest waits for the next return) */
int do_signal(struct pt_regs *regs);
void fpu_save_to(struct task_struct *t, void *image108);
void fpu_load_from(struct task_struct *t, const void *image108);

/* timer.c: the tick and the timers (TSC deadlines) */
#define HZ 1000
extern uint64_t jiffies;
#ifdef CONFIG_SMP
extern int in_idle_cpu[NR_CPUS];
#define in_idle in_idle_cpu[smp_processor_id()]
#else
extern int in_idle;
#endif
void timer_init(void);
uint64_t ns_to_cycles(uint64_t sec, uint32_t nsec);
void cycles_to_ns(uint64_t cycles, uint32_t *sec, uint32_t *nsec);
void arm_timer(uint64_t deadline);
int timers_armed(void);
int timers_pending(void);
void run_timers(void);
void tick_nohz_idle(void);
int read_timespec(uint32_t uts, int wide, uint64_t *sec, uint32_t *nsec);
int sleep_until(struct wait_queue *wq, uint64_t deadline);
uint64_t clock_ticks(uint64_t cycles);
int nr_running(void);

/* fork.c, tls.c */
void fork_child_start(void);
int set_tls_of(struct task_struct *t, uint32_t uinfo);
void fpu_forget(struct task_struct *t);

/* entry.S */
void ret_from_fork(void);

#define savesegment(seg, value) \
    __asm__ volatile("mov %%" #seg ", %0" : "=r"(value))

/* A selector that does not load (its descriptor gone, or a kernel one with
 * RPL 3) loads as null: the fault is fixed up through __ex_table. */
#define loadsegment(seg, value)                                   \
    __asm__ volatile("1: mov %0, %%" #seg "\n"                    \
                     "2:\n"                                        \
                     ".section .fixup, \"ax\"\n"                   \
                     "3: pushl $0\n"                               \
                     "   popl %%" #seg "\n"                        \
                     "   jmp 2b\n"                                 \
                     ".previous\n"                                 \
                     ".section __ex_table, \"a\"\n"                \
                     "   .align 4\n"                               \
                     "   .long 1b, 3b\n"                           \
                     ".previous" : : "r"(value))

#endif
