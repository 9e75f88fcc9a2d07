/*
 * Guest-visible constants shared by the emulator (emu/) and the guest kernel
 * (guest/). Everything both sides must agree on lives here and nowhere else:
 * segment selectors, the memory map, the fixmap/vsyscall page, the hypercall
 * ports and the boot record the emulator hands the kernel. Facts of the CPU
 * itself are in x86.h; the system calls in syscalls.def, the signals in
 * signals.def.
 *
 * This header is included from C (host and guest) and from guest assembly,
 * so everything outside the __ASSEMBLER__ block is a plain #define.
 */
#ifndef SYSEMU_GUEST_ABI_H
#define SYSEMU_GUEST_ABI_H

/* ---- GDT layout of the Linux 2.5.53 sysenter patch (segment.h) ---- */
#define GDT_ENTRY_TLS_ENTRIES     3
#define GDT_ENTRY_TLS_MIN         6
#define GDT_ENTRY_TLS_MAX         (GDT_ENTRY_TLS_MIN + GDT_ENTRY_TLS_ENTRIES - 1)
#define GDT_ENTRY_KERNEL_BASE     12
#define GDT_ENTRY_KERNEL_CS       (GDT_ENTRY_KERNEL_BASE + 0)
#define GDT_ENTRY_KERNEL_DS       (GDT_ENTRY_KERNEL_BASE + 1)
#define GDT_ENTRY_DEFAULT_USER_CS 14
#define GDT_ENTRY_DEFAULT_USER_DS 15
#define GDT_ENTRY_TSS             (GDT_ENTRY_KERNEL_BASE + 4)
#define GDT_ENTRY_LDT             (GDT_ENTRY_KERNEL_BASE + 5)
#define GDT_ENTRY_PNPBIOS_BASE    (GDT_ENTRY_KERNEL_BASE + 6)
#define GDT_ENTRY_APMBIOS_BASE    (GDT_ENTRY_KERNEL_BASE + 11)
/* 26 descriptors are used (0..25); like Linux we pad to a cache-line multiple. */
#define GDT_ENTRIES               32

#define __KERNEL_CS  (GDT_ENTRY_KERNEL_CS * 8)          /* 0x60 */
#define __KERNEL_DS  (GDT_ENTRY_KERNEL_DS * 8)          /* 0x68 */
#define __USER_CS    (GDT_ENTRY_DEFAULT_USER_CS * 8 + 3) /* 0x73 */
#define __USER_DS    (GDT_ENTRY_DEFAULT_USER_DS * 8 + 3) /* 0x7b */
#define __TSS_SEL    (GDT_ENTRY_TSS * 8)                /* 0x80 */
#define __LDT_SEL    (GDT_ENTRY_LDT * 8)                /* 0x88 */

/* ---- Each task's kernel stack, with its struct thread_info at the bottom ---- */
#define THREAD_SIZE 8192
#define TI_FLAGS    0x00
#define TI_PID      0x04     /* the task's pid: the emulator reads it (emu/account/syscalls.c) */
#define TI_FLAG_EXITED 0x10000 /* in TI_FLAGS: the task has exited and will not run again */
#define TI_EXIT_CODE 0x0c    /* once exited: its wait status (code << 8, or the signal) */
#define TI_ADDR_LIMIT 0x10   /* the end of what access_ok lets it reach: USER_SPACE_TOP */
#define TI_TASK     0x08     /* its struct task_struct, whose comm the emulator reads
                                (at the image's task_comm_offset: sched.c) */
#define TASK_COMM_LEN 16     /* comm: the command (exec's file name), NUL-ended */

/* ---- The Linux i386 system call: int $0x80 ---- */
#define SYSCALL_VECTOR 0x80

/*
 * ---- Memory map ----
 * Unicorn 2.0.1 walks the guest page tables for protection checks but then
 * uses the virtual address as the physical one. So every page the guest can
 * map lives in host-backed memory at the same address as its virtual
 * address: the kernel's page tables decide what is present, user-accessible
 * and writable; they cannot move a page.
 */
#define PAGE_SIZE          0x1000u
#define PAGE_SHIFT         12
#define USER_SPACE_BASE    0x00010000u /* lowest user page (NULL guard below) */
#define USER_SPACE_TOP     0xc0000000u /* = PAGE_OFFSET: user space ends here */
#define USER_STACK_TOP     USER_SPACE_TOP
#define USER_STACK_MAX     0x00800000u /* 8 MiB, like RLIMIT_STACK */
#define USER_MMAP_TOP      (USER_STACK_TOP - USER_STACK_MAX - 0x01000000u)
#define KERNEL_BASE        0xc0000000u /* PAGE_OFFSET */
#define KERNEL_RAM_SIZE    0x04000000u /* 64 MiB of kernel memory */
#define KERNEL_LOAD_ADDR   0xc0100000u /* kernel image, like Linux's 1 MiB */
#define BOOT_RECORD_ADDR   0xc0001000u
#define BOOT_ARGS_ADDR     0xc0002000u /* argv/envp strings, 256 KiB at most */
#define BOOT_ARGS_MAX      0x00040000u
/* The boot program's path travels in a field of this size, whatever its
 * length, so that the boot's cycles do not depend on where the checkout
 * lies (exec.c copies the whole field). */
#define BOOT_EXE_FIELD     1024u
#define PROGRAM_MAX        0x03000000u /* 48 MiB: the largest program file emu loads */

/* ---- Fixmap: the vsyscall page (fixmap.h, FIXADDR_TOP = 0xfffff000) ---- */
#define FIXADDR_TOP           0xfffff000u
#define VSYSCALL_BASE         FIXADDR_TOP
/* sysenter stub: the kernel returns to the instruction after "sysenter". */
#define SYSENTER_RETURN_OFFSET 7
#define SYSENTER_RETURN       (VSYSCALL_BASE + SYSENTER_RETURN_OFFSET)
/* A restarted call goes back this far from SYSENTER_RETURN: to the stub's
 * "movl %esp, %ebp; sysenter", which sets EBP up again. */
#define SYSENTER_RESTART_BACK 4
/* The signal-return trampolines for handlers without SA_RESTORER (the
 * vsyscall page of 2.5.53 carried them too): "popl %eax; movl
 * $__NR_sigreturn, %eax; int $0x80" and "movl $__NR_rt_sigreturn, %eax;
 * int $0x80". The vDSO's symbol table names them __kernel_sigreturn and
 * __kernel_rt_sigreturn. */
#define VSYSCALL_SIGRETURN_OFFSET    0x400
#define VSYSCALL_RT_SIGRETURN_OFFSET 0x420
/* The second half of the page holds a minimal ELF image, the "vDSO" that
 * AT_SYSINFO_EHDR points at: glibc only takes AT_SYSINFO when it is there. */
#define VSYSCALL_EHDR_OFFSET  0x800
#define VSYSCALL_EHDR         (VSYSCALL_BASE + VSYSCALL_EHDR_OFFSET)
/*
 * The user-space clock (boot option --vgettimeofday, BOOT_FLAG_VGETTIMEOFDAY):
 * __vdso_gettimeofday and __vdso_clock_gettime in the vsyscall page, at these
 * offsets (guest/vsyscall/vgettimeofday.S), reading the time base the timer
 * tick publishes in the page below the vsyscall page, read-only to user
 * mode (struct vgtod_data). Without the option neither exists.
 */
#define VSYSCALL_GTOD_OFFSET          0x440
#define VSYSCALL_CLOCK_GETTIME_OFFSET 0x4c0
#define VSYSCALL_VGTOD_READ_OFFSET    0x540 /* their shared reader */
/* where the reader starts again when the sequence count changed under it
 * (the emulator counts these retries for --report) */
#define VSYSCALL_VGTOD_RETRY_OFFSET   0x541
#define VGTOD_DATA            (FIXADDR_TOP - PAGE_SIZE)
#define VGTOD_SEQ       0x00 /* odd while the kernel writes the rest */
#define VGTOD_SEC       0x04 /* xtime at the last tick ... */
#define VGTOD_USEC      0x08
#define VGTOD_TSC_LO    0x0c /* ... and the TSC at that tick */
#define VGTOD_TSC_HI    0x10
#define VGTOD_QUOTIENT  0x14 /* fast_gettimeoffset_quotient: 2^32 / (cycles per usec) */
#define VGTOD_CYCLES_PER_TICK 0x18
#define VGTOD_USEC_PER_TICK   0x1c

/* ---- Auxiliary vector entries the kernel passes ---- */
#define AT_NULL    0
#define AT_PHDR    3
#define AT_PHENT   4
#define AT_PHNUM   5
#define AT_PAGESZ  6
#define AT_BASE    7
#define AT_ENTRY   9
#define AT_UID     11
#define AT_EUID    12
#define AT_GID     13
#define AT_EGID    14
#define AT_PLATFORM 15
#define AT_HWCAP   16
#define AT_CLKTCK  17
#define AT_SECURE  23
#define AT_RANDOM  25
#define AT_EXECFN  31
#define AT_SYSINFO 32
#define AT_SYSINFO_EHDR 33

/*
 * ---- Hypercalls: guest kernel -> emulator ----
 * The kernel executes "outl %eax, $port" with EAX = the guest address of an
 * argument block (struct hc_*). The TSS has no I/O bitmap and user IOPL is 0,
 * so the same instruction from ring 3 is a #GP, never a hypercall.
 */
#define HC_PORT_WRITE   0xe0 /* struct hc_io: write to a host stream */
#define HC_PORT_READ    0xe1 /* struct hc_io: read host stdin */
#define HC_PORT_EXIT    0xe2 /* struct hc_exit: program exited */
#define HC_PORT_KILL    0xe3 /* struct hc_fault: program killed by a fault */
#define HC_PORT_PANIC   0xe4 /* struct hc_text: guest kernel panic */
#define HC_PORT_EXECERR 0xe5 /* struct hc_text: program could not be loaded */
#define HC_PORT_LOG     0xe6 /* struct hc_text: kernel boot message */
#define HC_PORT_DEADLOCK 0xee /* struct hc_text: no task can run, none can be woken */
/* hc_text.code of HC_PORT_DEADLOCK: every task waits (the guest's own
 * state: the run cannot make progress, 124); or a kernel spinlock is
 * never released (the kernel failed, 125). */
#define HC_DEADLOCK_TASKS 0
#define HC_DEADLOCK_SPINLOCK 1
/*
 * Tickless idle (one CPU): nothing can run until the earliest timer, at
 * TSC next. The emulator drops the PIT's ticks before it that would find
 * nothing to do: those whose TSC is HC_NOHZ_MARGIN or more before next,
 * and after which the kernel's clock (a lattice of ticks every
 * tick_cycles TSC cycles from base) gains no step within HC_NOHZ_MARGIN
 * (the interrupt's own cycles before it reads the TSC). It answers how
 * many it dropped and the TSC of the last one; the kernel takes their
 * effect on its clocks before hlt, and the PIT's next tick wakes it.
 */
#define HC_PORT_NOHZ 0xec /* struct hc_nohz */
#define HC_NOHZ_MARGIN 20000u
/*
 * The console: the emulator's descriptors 0-2 are what they are on the
 * host (a regular file, a pipe, a terminal); every request is a struct
 * hc_console on stream fd. Results are 0 or -errno unless said.
 */
#define HC_PORT_CONSOLE 0xeb
#define CONSOLE_SEEK    1  /* offset, whence -> the new offset in offset (ESPIPE) */
#define CONSOLE_STAT    2  /* -> struct hc_stat at buf */
#define CONSOLE_IOCTL   3  /* a terminal's TCGETS or TIOCGWINSZ (in whence): len
                              bytes at buf (ENOTTY) */
#define CONSOLE_POLL    4  /* -> 1 if a read (stream 0) or write would not wait now */
#define CONSOLE_PREAD   5  /* len bytes at offset to buf -> bytes (ESPIPE) */
/*
 * The file tree (emu/vfs/vfs.h: an in-memory layer over the read-only host
 * directory of "emu run --root DIR"): every request is a struct hc_vfs;
 * paths and data sit in kernel memory, never in user memory. Handles are
 * the vfs's and counted: the kernel takes and drops references. Open flags,
 * AT_* flags and modes are Linux's i386 values, passed through.
 */
#define HC_PORT_VFS   0xe7
#define VFS_OPEN      1  /* handle + path, flags, mode -> a new handle */
#define VFS_CLOSE     2  /* handle: one reference less */
#define VFS_REF       3  /* handle: one reference more */
#define VFS_READ      4  /* handle, pos, buf, len -> bytes */
#define VFS_WRITE     5  /* handle, pos, buf, len -> bytes */
#define VFS_FSTAT     6  /* handle -> struct hc_stat at buf */
#define VFS_STAT      7  /* handle + path, flags (AT_SYMLINK_NOFOLLOW) -> hc_stat at buf */
#define VFS_GETDENTS  8  /* handle, pos: cookie (updated), buf, len -> bytes */
#define VFS_READLINK  9  /* handle + path -> text at buf, len -> bytes */
#define VFS_FTRUNCATE 10 /* handle, pos: the size */
#define VFS_TRUNCATE  11 /* handle + path, pos: the size */
#define VFS_MKDIR     12 /* handle + path, mode */
#define VFS_UNLINK    13 /* handle + path */
#define VFS_RMDIR     14 /* handle + path */
#define VFS_RENAME    15 /* handle + path to handle2 + path2 */
#define VFS_LINK      16 /* handle + path to handle2 + path2, flags (AT_SYMLINK_FOLLOW) */
#define VFS_SYMLINK   17 /* target text at buf, len; the link at handle + path */
#define VFS_CHMOD     18 /* handle + path, mode, flags */
#define VFS_FCHMOD    19 /* handle, mode */
#define VFS_CHOWN     20 /* handle + path, uid in mode, gid in len, flags */
#define VFS_FCHOWN    21 /* handle, uid in mode, gid in len */
#define VFS_UTIMENS   22 /* handle + path, two struct hc_time at buf (0: now), flags */
#define VFS_FUTIMENS  23 /* handle, two struct hc_time at buf (0: now) */
#define VFS_ACCESS    24 /* handle + path, mode (R/W/X_OK), flags */
#define VFS_EXEC_OK   25 /* handle: 0 if a regular file with an x bit */
#define VFS_PATH_OF   26 /* handle (a directory) -> its path, NUL-ended, at buf, len */
#define VFS_SIZE      27 /* handle -> its size in pos */
#define VFS_USAGE     28 /* -> bytes used in pos, the limit in len (KiB) */

#define HC_VFS_ROOT       0xffffffffu /* handle: a relative path starts at the root */
#define HC_VFS_PATH_MAX   4096        /* bytes, with the NUL, as Linux's PATH_MAX */
#define HC_VFS_IO_MAX     (1u << 20)  /* bytes one read or write moves */
#define HC_VFS_UTIME_NOW  ((1u << 30) - 1)
#define HC_VFS_UTIME_OMIT ((1u << 30) - 2)

/*
 * Address spaces (emu/mm/addrspace.c): every request is a struct hc_mm. The
 * kernel's page tables map each user page at itself; the emulator keeps
 * each address space's bytes (docs/address-spaces.md). "The current space"
 * is the one whose page directory is in CR3.
 */
#define HC_PORT_MM          0xed
#define MM_SWITCH     1  /* pgd is about to be loaded into CR3 */
#define MM_CLONE      2  /* pgd: a new child of space arg: copies of arg's present
                            private pages; its shared pieces, shared */
#define MM_DESTROY    3  /* pgd: gone (not the current space) */
#define MM_RELEASE    4  /* [addr, addr+len) of the current space is unmapped */
#define MM_CLEAR      5  /* addr: a new zero page (charged as clear_page) */
#define MM_FILE       6  /* addr: a page of vfs handle arg from offset arg3, arg2
                            bytes of it, the rest zero; len != 0: a private copy
                            (charged as copy_page) */
#define MM_MOVE       7  /* [addr, addr+len) moves to arg (mremap) */
#define MM_SHM_CREATE 8  /* a shared object of len pages -> its id */
#define MM_SHM_FREE   9  /* object arg is gone -> the pages it held */
#define MM_SHM_MAP   10  /* [addr, addr+len) shows object arg from its page arg2 */
#define MM_SHM_FAULT 11  /* addr, in a piece of a shared object: its bytes; arg:
                            may take a new page -> 1 new (zeroed, charged as
                            clear_page), 0 it had one, -ENOMEM */
#define MM_INVALIDATE 12 /* [addr, addr+len) may stop being executable */
#define MM_COW       13  /* addr: the first write to a private page of a file
                            mapping (charged as copy_page) */
#define MM_BAD_FAULT 14  /* the page fault at addr (error code arg, at eip arg2,
                            from ring 3) is the program's: no page will be
                            mapped, and the kernel signals it (a debugger's
                            catch-faults stops here) */
#define MM_CLEAR_KERNEL 15 /* addr: a page of the kernel's own RAM, zeroed
                              (charged as clear_page) */

/*
 * ---- SMP (--smp N, emu/cpu/smp.h) ----
 * The local APIC is reached through two ports on the hypercall path, not
 * its MMIO page (a deviation: docs/smp.md). An outl to APIC_PORT_ICR sends
 * an IPI: the value is the xAPIC ICR's low word (x86.h: vector, delivery
 * mode, shorthand) with the destination APIC ID, which the ICR keeps in
 * its high word, in bits 24-31. Ring 3 cannot reach them (the TSS has no
 * I/O bitmap). A CPU's APIC ID is its number, 0 to N-1, as CPUID leaf 1
 * reports it in EBX bits 24-31.
 */
#define SMP_MAX_CPUS       8
#define NR_CPUS            SMP_MAX_CPUS /* Linux's name */
#define APIC_PORT_ICR      0xe8
#define APIC_PORT_ONLINE   0xe9 /* outl any: this CPU's start-up is done */
/* outl n: this CPU's local APIC timer interrupts every n TSC cycles with
 * LOCAL_TIMER_VECTOR (0: off). The count is in the CPU's own cycles, not
 * the APIC's bus clock and divider (a deviation: docs/smp.md). */
#define APIC_PORT_TIMER    0xea
/* STARTUP's vector: the AP starts at physical 0x9f000, which is
 * KERNEL_BASE + 0x9f000 here (in 32-bit protected mode: docs/smp.md) */
#define SMP_TRAMPOLINE_VECTOR 0x9f
#define SMP_TRAMPOLINE_ADDR   (KERNEL_BASE + (SMP_TRAMPOLINE_VECTOR << PAGE_SHIFT))
/* IPI vectors, Linux 2.5's (irq_vectors.h) */
#define LOCAL_TIMER_VECTOR    0xef
#define RESCHEDULE_VECTOR     0xfc
#define CALL_FUNCTION_VECTOR  0xfb
/* Boot record flags that break the SMP start-up on purpose: only tests set
 * them (run_options.smp_test). */
#define BOOT_FLAG_SMP_AP_FAULT  (1u << 0)  /* the last AP faults before it is up */
#define BOOT_FLAG_SMP_HOLD_LOCK (1u << 1)  /* CPU 1 holds a lock forever, CPU 0 waits */
/* A kernel boot option: --vgettimeofday, the user-space clock. */
#define BOOT_FLAG_VGETTIMEOFDAY (1u << 2)

/* Page-table bits the hardware ignores (9-11), used by the kernel and read
 * by the emulator. */
#define PTE_SW_PROTNONE 0x400 /* a page kept but inaccessible (PROT_NONE): P clear */


#define BOOT_MAGIC   0x53595345u /* "ESYS" */
#define BOOT_VERSION 3

#ifndef __ASSEMBLER__
#include <stdint.h>

struct hc_io {
    uint32_t fd;
    uint32_t buf;    /* guest address */
    uint32_t len;
    int32_t result;  /* written by the emulator: bytes or -errno */
};

struct hc_console {
    uint32_t op;     /* CONSOLE_* */
    uint32_t fd;     /* the stream: 0, 1 or 2 */
    uint32_t offset_lo, offset_hi; /* halves: the block is only 4-aligned */
    uint32_t whence;
    uint32_t buf;    /* guest address, in kernel memory */
    uint32_t len;
    int32_t result;
};

struct hc_exit {
    uint32_t status;
};

struct hc_nohz {                 /* HC_PORT_NOHZ */
    uint32_t next_lo, next_hi;   /* in: the earliest timer's TSC */
    uint32_t base_lo, base_hi;   /* in: the clock's last lattice point */
    uint32_t tick_cycles;        /* in: the lattice's step */
    uint32_t ticks;              /* out: ticks dropped (0: none) */
    uint32_t last_lo, last_hi;   /* out: the TSC of the last one */
};

#define HC_FAULT_NONE 0xffffffffu /* vector: a signal, no fault */

struct hc_fault {
    uint32_t vector;
    uint32_t error_code;
    uint32_t eip;
    uint32_t cr2;
    uint32_t signal;
    uint32_t note, note_len; /* guest text: why, beyond the vector; 0 if none */
};

struct hc_text {
    uint32_t text;   /* guest address */
    uint32_t len;
    uint32_t code;   /* reason code, for HC_PORT_EXECERR (an errno) */
};

struct hc_mm {
    uint32_t op;       /* MM_* */
    uint32_t pgd;
    uint32_t addr, len;
    uint32_t arg, arg2;
    uint32_t arg3_lo, arg3_hi;
    int32_t result;    /* written by the emulator */
};

struct hc_vfs {
    uint32_t op;                  /* VFS_* */
    uint32_t handle;              /* the file, or the directory a path starts at */
    uint32_t path, path_len;      /* guest address of a path, its length, no NUL */
    uint32_t handle2, path2, path2_len;
    uint32_t flags, mode;
    uint32_t buf, len;            /* guest address of data, a struct, a text */
    uint32_t pos_lo, pos_hi;      /* an offset, a size, a getdents cookie */
    int32_t result;               /* written by the emulator: a count, a handle,
                                     0 or -errno */
};

struct hc_time {
    int64_t sec;
    uint32_t nsec, pad;
};

/* What VFS_STAT and VFS_FSTAT return; the kernel writes each stat ABI. */
struct hc_stat {
    uint64_t dev, ino, rdev, size, blocks;
    uint32_t mode, nlink, uid, gid, blksize, pad;
    struct hc_time atime, mtime, ctime;
};

/* Written by the emulator at BOOT_RECORD_ADDR before the kernel starts. */
struct boot_record {
    uint32_t magic;
    uint32_t version;
    uint32_t image_handle; /* the program: a vfs handle of an unlinked file */
    uint32_t image_size;
    uint32_t args_addr;    /* argc strings then envc strings, each NUL-ended */
    uint32_t args_size;
    uint32_t argc;
    uint32_t envc;
    uint32_t cpu_khz;      /* what TSC calibration would have found */
    uint32_t epoch_sec;    /* wall-clock time at TSC = 0 */
    uint32_t epoch_usec;
    uint32_t flags;        /* BOOT_FLAG_* */
    uint8_t  random[16];   /* AT_RANDOM bytes (fixed, for determinism) */
    uint32_t mem_pages;    /* user pages all processes may hold (--mem) */
    uint32_t ncpus;        /* CPUs (--smp): APIC IDs 0 .. ncpus-1 */
    uint32_t exe_path_size; /* the program's path (/proc/self/exe), NUL-ended,
                               at args_addr + args_size in a field of
                               BOOT_EXE_FIELD bytes; 0: none */
    uint32_t reserved[1];
};

/* The page at VGTOD_DATA (offsets VGTOD_*, for the vsyscall code). */
struct vgtod_data {
    uint32_t seq;
    uint32_t sec, usec;
    uint32_t tsc_lo, tsc_hi;
    uint32_t quotient;
    uint32_t cycles_per_tick;
    uint32_t usec_per_tick;
};

_Static_assert(sizeof(struct boot_record) == 80, "boot record layout");
_Static_assert(__builtin_offsetof(struct vgtod_data, usec_per_tick) == VGTOD_USEC_PER_TICK &&
               __builtin_offsetof(struct vgtod_data, quotient) == VGTOD_QUOTIENT &&
               __builtin_offsetof(struct vgtod_data, tsc_lo) == VGTOD_TSC_LO,
               "vgtod_data layout");
_Static_assert(sizeof(struct hc_mm) == 36, "hc_mm layout");
_Static_assert(sizeof(struct hc_io) == 16, "hc_io layout");
_Static_assert(sizeof(struct hc_vfs) == 56, "hc_vfs layout");
_Static_assert(sizeof(struct hc_stat) == 112, "hc_stat layout");
_Static_assert(sizeof(struct hc_time) == 16, "hc_time layout");
#endif

#endif
