/*
 * What the GDB stub needs from the thing it debugs, and what it hands
 * back. The machine implements struct gdb_target; the stub never touches
 * guest state except through it.
 */
#ifndef EMU_GDB_TARGET_H
#define EMU_GDB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gdb/gdb_i386.h"
#include "gdb/gdb_packet.h"

/* GDB's signal numbers (gdb/signals.def), as used in stop replies. */
#define GDB_SIGINT  2
#define GDB_SIGTRAP 5
#define GDB_SIGABRT 6
#define GDB_SIGKILL 9
#define GDB_SIGSEGV 11
#define GDB_SIGXCPU 24

/* Z0..Z4: the packet's type digit. */
enum gdb_point_type {
    GDB_SW_BREAK,     /* Z0: the target must not write guest memory */
    GDB_HW_BREAK,     /* Z1 */
    GDB_WATCH_WRITE,  /* Z2 */
    GDB_WATCH_READ,   /* Z3 */
    GDB_WATCH_ACCESS, /* Z4 */
};

/* insert_point/remove_point results besides 0 (done) and -1 (failed). */
#define GDB_UNSUPPORTED 1

/* Text a monitor command prints, bounded to what one reply can carry
 * (hex-encoded: two characters a byte). */
#define GDB_TEXT_MAX ((GDB_PACKET_MAX - 1) / 2)
struct gdb_text {
    char buf[GDB_TEXT_MAX + 1];
    size_t len;
    bool truncated;
};
void gdb_printf(struct gdb_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct gdb_monitor_cmd {
    const char *name;   /* one word: "monitor NAME [ARGS]" */
    const char *help;   /* one line for "monitor help" */
    void (*run)(void *ctx, const char *args, struct gdb_text *out);
};

struct gdb_target {
    void *ctx;
    /* The 32-bit registers: regno < GDB_NCORE, and get_reg the system
     * ones, GDB_SYS <= regno < GDB_NREGS (gdb_i386.h). 0 or -1. */
    int (*get_reg)(void *ctx, int regno, uint32_t *val);
    int (*set_reg)(void *ctx, int regno, uint32_t val);
    /* Guest virtual memory. The target applies the protection it wants
     * the debugger to see; returns the bytes done from addr on, stopping
     * at the first one it cannot read or write (0: none). */
    size_t (*read_mem)(void *ctx, uint32_t addr, uint8_t *buf, size_t len);
    size_t (*write_mem)(void *ctx, uint32_t addr, const uint8_t *buf, size_t len);
    /* Breakpoints and watchpoints, kind = GDB's length/kind field.
     * 0 done, -1 failed, GDB_UNSUPPORTED; NULL means unsupported. */
    int (*insert_point)(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind);
    int (*remove_point)(void *ctx, enum gdb_point_type type, uint32_t addr, uint32_t kind);
    /* "monitor help" is the stub's own; it lists these. */
    const struct gdb_monitor_cmd *monitor;
    int nmonitor;
};

/* Why the machine stopped. */
enum gdb_stop_kind {
    GDB_STOP_SIGNAL,  /* stopped with signo: SIGTRAP, SIGINT, SIGSEGV */
    GDB_STOP_EXITED,  /* the program exited with status */
    GDB_STOP_KILLED,  /* the program was killed by signo */
};

/* For a SIGTRAP stop, what caused it (the stop reply says so). */
enum gdb_stop_cause {
    GDB_CAUSE_NONE,    /* a step finished, or the client attached */
    GDB_CAUSE_SWBREAK, /* at a Z0 breakpoint: EIP is its address */
    GDB_CAUSE_HWBREAK, /* at a Z1 breakpoint */
    GDB_CAUSE_WATCH,   /* after an instruction that wrote addr (Z2/Z4) */
    GDB_CAUSE_RWATCH,  /* ... that read addr (Z3) */
    GDB_CAUSE_AWATCH,  /* ... that read or wrote addr (Z4) */
};

struct gdb_stop {
    enum gdb_stop_kind kind;
    int signo;                  /* SIGNAL, KILLED */
    int status;                 /* EXITED: 0..255 */
    enum gdb_stop_cause cause;  /* SIGNAL with SIGTRAP */
    uint32_t addr;              /* the data address of a watchpoint hit */
};

/* What the client wants the machine to do next. */
enum gdb_action {
    GDB_ACT_NONE,     /* (internal: keep serving) */
    GDB_ACT_CONTINUE, /* run until a point, a fault the user stops on, exit */
    GDB_ACT_STEP,     /* execute exactly one guest instruction, then stop */
    GDB_ACT_KILL,     /* end the program (k, vKill) */
    GDB_ACT_DETACH,   /* the client left (D or disconnect): every point is
                         already removed; run on without stopping */
};

struct gdb_resume {
    enum gdb_action action;
    /* CONTINUE/STEP: the signal the client passes (C/S, vCont;C/S), 0 for
     * none. After a SIGSEGV stop, GDB passes 11 to let the guest take
     * its fault; the machine may ignore it (it delivers faults anyway). */
    int signo;
};

#endif
