/*
 * Requests to the emulator. Each one is an "outl" of the address of an
 * argument block (abi.h); the block lives in kernel memory, here always on
 * the kernel stack.
 */
#include <stdarg.h>
#include "kernel.h"
#include "mm.h"
#include "sched.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#define TEXT_MAX 512

const struct boot_record *boot;

void hypercall(unsigned port, void *block)
{
    outl_hypercall(port, (uint32_t)block);
}

/* The emulator ends the run on the terminal hypercalls; never come back. */
static __attribute__((noreturn)) void halt_forever(void)
{
    for (;;)
        __asm__ volatile("hlt");
}

static void send_text(unsigned port, uint32_t code, const char *fmt, va_list ap)
{
    char buf[TEXT_MAX];
    struct hc_text t;
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);

    t.text = (uint32_t)buf;
    t.len = n < (int)sizeof(buf) ? (uint32_t)n : sizeof(buf) - 1;
    t.code = code;
    hypercall(port, &t);
}

void printk(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    send_text(HC_PORT_LOG, 0, fmt, ap);
    va_end(ap);
}

void panic(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    send_text(HC_PORT_PANIC, 0, fmt, ap);
    va_end(ap);
    halt_forever();
}

static __attribute__((noreturn)) void send_deadlock(const char *text, uint32_t kind)
{
    struct hc_text t = { (uint32_t)text, strlen(text), kind };

    hypercall(HC_PORT_DEADLOCK, &t);
    halt_forever();
}

void report_deadlock(const char *text)
{
    send_deadlock(text, HC_DEADLOCK_TASKS);
}

void report_lock_deadlock(const char *text)
{
    send_deadlock(text, HC_DEADLOCK_SPINLOCK);
}

void exec_failed(int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    send_text(HC_PORT_EXECERR, (uint32_t)err, fmt, ap);
    va_end(ap);
    halt_forever();
}

void halt_with_status(int status)
{
    struct hc_exit e = { (uint32_t)status };

    hypercall(HC_PORT_EXIT, &e);
    halt_forever();
}

/* The boot program killed by a signal that no fault raised. */
void kill_by_signal(int signal)
{
    struct hc_fault f = { HC_FAULT_NONE, 0, 0, 0, (uint32_t)signal, 0, 0 };

    hypercall(HC_PORT_KILL, &f);
    halt_forever();
}

void kill_user(const struct trap_frame *tf, uint32_t cr2, int signal)
{
    kill_user_why(tf, cr2, signal, NULL_PTR);
}

/*
 * A fault kills the process with a signal. For the boot program the
 * emulator stops with the one-line report; another process becomes a
 * zombie killed by the signal, as on Linux, and the report goes to the
 * kernel log (-v).
 */
void kill_user_why(const struct trap_frame *tf, uint32_t cr2, int signal, const char *note)
{
    struct hc_fault f = { 0, 0, 0, cr2, (uint32_t)signal, (uint32_t)note,
                          note ? strlen(note) : 0 };

    if (current != init_task) {
        printk("pid %u (%s) killed by signal %d: vector %u at eip %08x, cr2 %08x%s%s",
               current->pid, current->comm, signal, tf ? tf->vector : 0, tf ? tf->eip : 0,
               cr2, note ? ": " : "", note ? note : "");
        do_exit(signal);
    }

    if (tf) {
        f.vector = tf->vector;
        f.error_code = tf->error_code;
        f.eip = tf->eip;
    }
    hypercall(HC_PORT_KILL, &f);
    halt_forever();
}

long mm_call(uint32_t op, uint32_t pgd, uint32_t addr, uint32_t len,
             uint32_t arg, uint32_t arg2, uint64_t arg3)
{
    struct hc_mm r = { op, pgd, addr, len, arg, arg2, (uint32_t)arg3,
                       (uint32_t)(arg3 >> 32), 0 };

    hypercall(HC_PORT_MM, &r);
    return r.result;
}
