/* What execve knows of the program it is loading (exec.c), shared with the
 * two formats it runs: "#!" scripts (binfmt_script.c) and static ELF
 * executables (binfmt_elf.c). */
#ifndef KERNEL_BINFMT_H
#define KERNEL_BINFMT_H

#include "kernel.h"

#define BINPRM_BUF     128           /* the bytes of the file looked at first */
/* execve's limits, as Linux's: the strings and their pointers take at most
 * a quarter of the stack limit, one string at most 32 pages. */
#define MAX_ARG_BYTES  (USER_STACK_MAX / 4)
#define MAX_ARG_STRLEN (32 * PAGE_SIZE)
#define MAX_INTERP     4             /* scripts run by scripts, at most */
/* Room before the strings for what scripts put in front of argv. */
#define ARGS_HEADROOM  (MAX_INTERP * (HC_VFS_PATH_MAX + 2 * BINPRM_BUF))

struct binprm {
    uint32_t file;             /* vfs handle (a reference), or NO_HANDLE */
    struct exe_path *exe_path; /* its path (a reference), or NULL */
    uint64_t size;
    uint8_t head[BINPRM_BUF];
    uint32_t head_len;
    char *args;                /* kernel pages; the strings are [start, cap):
                                  argc argv strings, then envc envp strings */
    uint32_t start, cap;
    uint32_t argc, envc;
    const char *filename;      /* as the caller named it: AT_EXECFN */
    uint32_t filename_len;
    int depth;                 /* scripts so far */
    int boot;                  /* the boot program: ELF only */
    int past_return;           /* the old image is gone */
    const char *reason;        /* why the boot program cannot run */
};

/* exec.c */
long open_exec(struct binprm *b, uint32_t dir, const char *path, uint32_t len);
long read_head(struct binprm *b);
long search_binary(struct binprm *b);
void remove_arg0(struct binprm *b);
long prepend_arg(struct binprm *b, const char *s, uint32_t len);
long flush_old_exec(struct binprm *b);
void start_thread(uint32_t eip, uint32_t esp);
void binprm_free(struct binprm *b);

/* binfmt_script.c, binfmt_elf.c */
long load_script(struct binprm *b);
long load_elf(struct binprm *b);

#endif
