/*
 * Tasks. Each process is a struct task_struct and a kernel stack of
 * THREAD_SIZE bytes with its struct thread_info at the bottom, so
 * `current` is found from %esp alone (GET_THREAD_INFO in entry.S), as in
 * Linux 2.5. The scheduler is cooperative: a task runs until it blocks,
 * yields or exits; schedule() then picks the next runnable task round-robin
 * and switch_to() moves to its stack, its TSS esp0 (which the sysenter
 * trampoline reads), its TLS descriptors, its FPU state and its address
 * space.
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

#define PID_MAX   32768
#define TASK_LIMIT 64          /* RLIMIT_NPROC-like: fork beyond it is EAGAIN */
#define TASK_COMM_LEN 16

struct wait_queue {
    struct list_head waiters;
    const char *what;          /* for the deadlock report: "read from a pipe" */
};

#define WAIT_QUEUE_INIT(name, text) { LIST_HEAD_INIT((name).waiters), (text) }

static inline void init_waitqueue(struct wait_queue *wq, const char *what)
{
    INIT_LIST_HEAD(&wq->waiters);
    wq->what = what;
}

/* What switch_to saves: the kernel stack pointer where the task stopped. */
struct thread_struct {
    uint32_t esp;
    uint32_t fs, gs;           /* user selectors: no kernel entry saves them */
    uint8_t fpu[108];          /* fnsave image, when fpu_saved */
    int fpu_saved;             /* fpu holds the task's x87 state */
    int used_math;             /* it has executed an FPU instruction */
};

struct mm_struct;
struct files_struct;
struct sighand;

struct task_struct {
    struct thread_info *ti;    /* = the kernel stack's base */
    int state;
    uint32_t pid, pgid, sid;
    struct task_struct *parent;
    struct list_head children, sibling;
    struct list_head tasks;    /* every task */
    struct list_head run_list; /* on the run queue while TASK_RUNNING */
    struct list_head wait_list;
    struct wait_queue *waiting_on;
    struct wait_queue wait_chldexit; /* a child exited (wait4 sleeps here) */
    struct wait_queue wait_vfork;    /* a vfork child let go of our memory */
    int exit_code;             /* the wait status */
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
    uint32_t set_child_tid, clear_child_tid;
    struct task_struct *vfork_parent; /* sleeps until this child execs or exits */
    int did_exec;              /* it has run execve (setpgid's EACCES) */
    char comm[TASK_COMM_LEN];
};

/* thread_info: at the bottom of the kernel stack (TI_FLAGS, TI_PID). */
struct thread_info {
    uint32_t flags;
    uint32_t pid;
    struct task_struct *task;
    uint32_t exit_code;        /* set with TI_FLAG_EXITED: the wait status */
};

_Static_assert(__builtin_offsetof(struct thread_info, flags) == TI_FLAGS, "TI_FLAGS");
_Static_assert(__builtin_offsetof(struct thread_info, pid) == TI_PID, "TI_PID");
_Static_assert(__builtin_offsetof(struct thread_info, exit_code) == TI_EXIT_CODE, "TI_EXIT_CODE");

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

/* The register frame every entry from user mode leaves at the top of the
 * task's kernel stack. */
static inline struct pt_regs *task_pt_regs(struct task_struct *t)
{
    return (struct pt_regs *)((uint32_t)t->ti + THREAD_SIZE - PT_SIZE);
}

extern struct task_struct *init_task;   /* pid 1 */
extern struct list_head task_list;
extern uint32_t nr_tasks;

static inline int signal_pending(const struct task_struct *t)
{
    return (t->sig_pending & ~t->sig_blocked) != 0;
}

/* sched.c */
void sched_init(void);
void schedule(void);
void wake_up_process(struct task_struct *t);
void wake_up(struct wait_queue *wq);
/* Sleep until woken; TASK_INTERRUPTIBLE: -EINTR if a signal is pending. */
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

/* exit.c */
void exit_mm_late(struct task_struct *t);
void mm_release(struct task_struct *t);

/* signal.c */
struct sighand *sighand_alloc(const struct sighand *from);
void sighand_free(struct sighand *s);
void flush_signal_handlers(struct task_struct *t);
void send_signal(struct task_struct *t, uint32_t sig);
void do_signal(void);

/* fork.c, tls.c */
void fork_child_start(void);
int set_tls_of(struct task_struct *t, uint32_t uinfo);
void fpu_forget(struct task_struct *t);

/* entry.S */
void switch_to_asm(uint32_t *prev_esp, uint32_t next_esp);
void ret_from_fork(void);

#endif
