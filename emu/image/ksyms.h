/*
 * The guest kernel image built into emu: its entry, the addresses of the
 * kernel code the emulator must know, and loading it into guest memory.
 * Each symbol the emulator uses is named here once; an image without one
 * is refused at start-up.
 */
#ifndef EMU_KSYMS_H
#define EMU_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#define KERNEL_SYMBOLS(X) \
    X(syscall_call)     /* int $0x80: the dispatch call; entry ends, body begins */ \
    X(syscall_return)   /* ... where the handler returns; exit begins */ \
    X(sysenter_call)    /* the same two on the sysenter path */ \
    X(sysenter_return) \
    X(sysenter_exit)    /* the sysexit: the call leaves by sysexit */ \
    X(sys_ni_syscall)   /* the handler of numbers the kernel has none for */ \
    X(__switch_to)      /* on the next task's stack: another task runs */ \
    X(exec_boot_program) /* loading the program: where the fuzz targets keep */ \
    X(sys_read)         /* ... or its first read: a machine to restore per input */ \
    X(vsyscall_page_entry) /* the vsyscall page's system-call entry (AT_SYSINFO) */ \
    X(vsyscall_page_base) /* the page (--kernel moves it: docs/fidelity.md) ... */ \
    X(vsyscall_page_sigreturn) /* ... its first sigreturn stub ... */ \
    X(vsyscall_page_gtod) /* ... --vgettimeofday's two entries ... */ \
    X(vsyscall_page_clock_gettime) \
    X(vsyscall_page_vgtod_retry) /* ... and its reader's retry */

enum ksym {
#define X(name) KSYM_##name,
    KERNEL_SYMBOLS(X)
#undef X
    NKSYMS
};

struct ksyms {
    uint32_t entry;
    uint32_t addr[NKSYMS];
    /* not an address: where comm lies in a task_struct (the image's
     * absolute symbol task_comm_offset; sched.c) */
    uint32_t task_comm;
};

struct guest_memory;

/* The entry, every KERNEL_SYMBOLS address and task_comm of an ELF32 i386
 * image. 0, or -1 with a reason in err. */
int ksyms_load(struct ksyms *ks, const uint8_t *image, size_t size, char *err, size_t errlen);
/* The address of any symbol of the image, 0 if it has none (tests). */
uint32_t ksym_find(const uint8_t *image, size_t size, const char *name);
/* Copy the image's PT_LOAD segments into guest memory. */
int kernel_load(const uint8_t *image, size_t size, struct guest_memory *mem,
                char *err, size_t errlen);

/* The pages the image's executable segments occupy, [*lo, *hi): 0, or -1
 * when it has none. */
int kernel_code_range(const uint8_t *image, size_t size, uint32_t *lo, uint32_t *hi);

/* A built-in image (the Makefile's KERNEL_VARIANTS, emu/image/kernel_image.S). */
struct kernel_image {
    const char *name;           /* "pentium4-up": build/guest/kernel-NAME.elf */
    int march;                  /* enum kernel_march: its -march */
    int config;                 /* enum kernel_config */
    int big_lock;               /* SMP_BIG_LOCK: the lock on every entry */
    int history;                /* enum kernel_history: --kernel */
    const uint8_t *start, *end;
    /* its instructions, described at build time (tools/kinsns.c): the
     * decoder's memo entries (emu/cost/decode.h, struct insn_seen) */
    const uint8_t *insns_start, *insns_end;
};

/* The image a machine of ncpus CPUs boots: march's image of config, or
 * with ncpus > 1 the big-lock SMP image (there is one, for every march);
 * both the seed's. */
const struct kernel_image *kernel_builtin(int march, int config, int ncpus);
/* The same for a step of the patch's history (enum kernel_history): NULL
 * when there is no such image (the later steps are built for the up
 * configuration of the pentium4 and pentium3 families only). */
const struct kernel_image *kernel_builtin_history(int march, int config, int ncpus,
                                                  int history);
extern const int kernel_image_count;
/* "2.5.53 up, -march=pentium4" (the seed; the report and --version). */
void kernel_image_describe(const struct kernel_image *k, char *buf, size_t len);

extern const uint8_t kernel_image_start[], kernel_image_end[];
extern const uint8_t kernel_smp_image_start[], kernel_smp_image_end[];

#endif
