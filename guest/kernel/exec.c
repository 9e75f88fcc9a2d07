/*
 * execve: run a file of the tree in place of the caller. The arguments
 * and environment are copied into kernel memory first (Linux's limits:
 * 128 KiB a string, a quarter of the stack limit in all with the
 * pointers, else E2BIG), the file is checked (a directory or a file without an x bit:
 * EACCES), "#!" scripts go to their interpreter (binfmt_script.c), static
 * ELF files are checked before anything is changed (binfmt_elf.c). Then,
 * past the point of no return, the old address space goes, the new one is
 * made of VMAs backed by the file, a stack with the strings and the
 * auxiliary vector of the i386 SysV ABI is built, close-on-exec
 * descriptors close, caught signals go back to their default, TLS goes,
 * and the caller returns to user mode at the program's entry, by iret.
 *
 * The boot program (pid 2, a child of init) comes the same way from the file the emulator
 * placed in the tree, with its arguments from the boot record; when it
 * cannot run, the machine stops with the reason (exec_failed).
 *
 * "/proc/self/exe" is the one name of /proc there is: busybox re-executes
 * itself through it to run its applets, and readlink gives its path
 * (exe_path.c).
 */
#include "kernel.h"
#include "binfmt.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define SELF_EXE "/proc/self/exe"

/* ---- the argument strings ---- */

static long args_alloc(struct binprm *b, uint32_t bytes)
{
    b->cap = PAGE_ALIGN(bytes + ARGS_HEADROOM);
    b->args = alloc_pages(b->cap / PAGE_SIZE);
    if (!b->args)
        return -ENOMEM;
    b->start = b->cap;
    return 0;
}

void binprm_free(struct binprm *b)
{
    if (b->args)
        free_pages(b->args, b->cap / PAGE_SIZE);
    if (b->file != NO_HANDLE)
        vfs_put(b->file);
    exe_path_put(b->exe_path);
    b->exe_path = NULL_PTR;
    b->args = NULL_PTR;
    b->file = NO_HANDLE;
}

/* The length of the user string at addr, with its NUL; 0 on a fault,
 * -E2BIG past max. */
static long user_strlen(uint32_t addr, uint32_t max)
{
    char piece[64];

    for (uint32_t i = 0; i < max; i += sizeof(piece)) {
        long n = strncpy_from_user(piece, addr + i, sizeof(piece));
        if (n < 0)
            return 0;
        if (n < (long)sizeof(piece))
            return i + n + 1 > max ? -E2BIG : (long)(i + n + 1);
    }
    return -E2BIG;
}

/* Count the strings of a user vector and their bytes; room: what the
 * strings and their pointers may still take. */
static long count_user(uint32_t uvec, uint32_t *count, uint32_t *bytes, uint32_t *room)
{
    uint32_t p;

    *count = 0;
    for (; uvec; uvec += 4) {
        long len;
        if (get_user_u32(&p, uvec))
            return -EFAULT;
        if (!p)
            return 0;
        len = user_strlen(p, MAX_ARG_STRLEN);
        if (len == 0)
            return -EFAULT;
        if (len < 0 || (uint32_t)len + 4 > *room)
            return -E2BIG;
        *room -= (uint32_t)len + 4;
        *bytes += (uint32_t)len;
        ++*count;
    }
    return 0;
}

/* Copy the strings of a user vector after what is there (start moves down
 * when prepending; here the vectors go in at the end, in order). */
static long copy_user_strings(struct binprm *b, uint32_t uvec, uint32_t count,
                              uint32_t *at)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t p;
        long n;
        if (get_user_u32(&p, uvec + 4 * i))
            return -EFAULT;
        n = strncpy_from_user(b->args + *at, p, b->cap - *at);
        if (n < 0)
            return n;
        if ((uint32_t)n >= b->cap - *at)
            return -E2BIG;   /* it grew since it was counted */
        *at += (uint32_t)n + 1;
    }
    return 0;
}

static long copy_args(struct binprm *b, uint32_t uargv, uint32_t uenvp)
{
    uint32_t bytes = 0, room = MAX_ARG_BYTES, at;
    long err;

    if ((err = count_user(uargv, &b->argc, &bytes, &room)) ||
        (err = count_user(uenvp, &b->envc, &bytes, &room)) || (err = args_alloc(b, bytes)))
        return err;
    at = b->start = b->cap - bytes;
    if ((err = copy_user_strings(b, uargv, b->argc, &at)) ||
        (err = copy_user_strings(b, uenvp, b->envc, &at)))
        return err;
    return 0;
}

/* Drop argv[0]. */
void remove_arg0(struct binprm *b)
{
    if (b->argc) {
        b->start += strlen(b->args + b->start) + 1;
        b->argc--;
    }
}

/* A new argv[0] before the others. */
long prepend_arg(struct binprm *b, const char *s, uint32_t len)
{
    if (len + 1 > b->start)
        return -E2BIG;
    b->start -= len + 1;
    memcpy(b->args + b->start, s, len);
    b->args[b->start + len] = 0;
    b->argc++;
    return 0;
}

/* ---- the file ---- */

long open_exec(struct binprm *b, uint32_t dir, const char *path, uint32_t len)
{
    struct hc_stat st;
    long h, err;
    int self = len == sizeof(SELF_EXE) - 1 && !memcmp(path, SELF_EXE, len);

    if (self) {
        h = current->mm ? current->mm->exe_file : NO_FILE;
        if ((uint32_t)h == NO_FILE)
            return -ENOENT;
        vfs_get((uint32_t)h);
    } else if ((h = vfs_open(dir, path, len, O_RDONLY, 0)) < 0) {
        return h;
    }
    if ((err = vfs_fstat((uint32_t)h, &st)) == 0 && !S_ISREG(st.mode))
        err = -EACCES;
    if (!err)
        err = vfs_exec_ok((uint32_t)h);
    if (err) {
        vfs_put((uint32_t)h);
        return err;
    }
    if (b->file != NO_HANDLE)
        vfs_put(b->file);
    b->file = (uint32_t)h;
    b->size = st.size;
    exe_path_put(b->exe_path);
    if (self)
        exe_path_get(b->exe_path = current->mm->exe_path);
    else
        b->exe_path = exe_path_lookup(dir, path, len);
    return 0;
}

long read_head(struct binprm *b)
{
    long n = vfs_pread(b->file, b->head, sizeof(b->head), 0);

    if (n < 0)
        return n;
    b->head_len = (uint32_t)n;
    return 0;
}

long search_binary(struct binprm *b)
{
    if (b->head_len >= 2 && b->head[0] == '#' && b->head[1] == '!' && !b->boot)
        return load_script(b);
    return load_elf(b);
}

/* ---- past the point of no return ---- */

/* The caller becomes the new program: its own address space and nothing
 * of the old image but the descriptors without close-on-exec. */
long flush_old_exec(struct binprm *b)
{
    struct task_struct *me = current;
    struct mm_struct *mm = mm_alloc(), *old = me->mm;
    const char *name = b->filename, *slash;

    if (!mm)
        return -ENOMEM;
    me->mm = me->active_mm = mm;
    switch_mm(old, mm);
    mm_release(me);
    if (old)
        mmput(old);
    mm->exe_file = b->file;
    b->file = NO_HANDLE;
    mm->exe_path = b->exe_path;
    b->exe_path = NULL_PTR;
    close_on_exec(me->files);
    flush_signal_handlers(me);
    memset(me->tls_array, 0, sizeof(me->tls_array));
    load_TLS(me);
    __asm__ volatile("movl %0, %%fs; movl %0, %%gs" : : "r"(0));
    fpu_forget(me);
    for (slash = name; *slash; slash++)
        if (*slash == '/')
            name = slash + 1;
    memset(me->comm, 0, sizeof(me->comm));
    memcpy(me->comm, name, strnlen(name, TASK_COMM_LEN - 1));
    me->did_exec = 1;
    return 0;
}

/* The registers of a fresh program: all zero but EIP, ESP and the
 * segments; iret restores every one of them. */
void start_thread(uint32_t eip, uint32_t esp)
{
    struct pt_regs *regs = task_pt_regs(current);

    memset(regs, 0, sizeof(*regs));
    regs->xds = regs->xes = regs->xss = __USER_DS;
    regs->xcs = __USER_CS;
    regs->eflags = X86_EFLAGS_IF | X86_EFLAGS_FIXED;
    regs->eip = eip;
    regs->esp = esp;
    regs->orig_eax = 0xffffffffu;
    current_thread_info()->flags |= _TIF_IRET;
}

/* ---- the calls ---- */

static long do_execve(uint32_t dir, const char *path, uint32_t len, uint32_t uargv,
                      uint32_t uenvp)
{
    static struct binprm b;
    long err;

    memset(&b, 0, sizeof(b));
    b.file = NO_HANDLE;
    b.filename = path;
    b.filename_len = len;
    if ((err = copy_args(&b, uargv, uenvp)) == 0 &&
        (err = open_exec(&b, dir, path, len)) == 0 && (err = read_head(&b)) == 0)
        err = search_binary(&b);
    binprm_free(&b);
    if (err && b.past_return) {
        /* The old image is gone: nothing to return to. */
        printk("pid %u: execve failed after the point of no return (%ld)", current->pid,
               err);
        do_exit(SIGSEGV);
    }
    return err;
}

long sys_execve(uint32_t upath, uint32_t uargv, uint32_t uenvp,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    static struct kpath p;
    long err = get_path(&p, AT_FDCWD, upath, 0);

    return err < 0 ? err : do_execve(p.dir, p.text, p.len, uargv, uenvp);
}

long sys_execveat(uint32_t dirfd, uint32_t upath, uint32_t uargv,
                  uint32_t uenvp, uint32_t flags, uint32_t a6)
{
    static struct kpath p;
    long err;

    if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
        return -EINVAL;
    if ((err = get_path(&p, dirfd, upath, (flags & AT_EMPTY_PATH) != 0)) < 0)
        return err;
    if (p.len == 0) {
        p.text[0] = '.';   /* the descriptor itself: a file, not a directory */
        return -EACCES;
    }
    return do_execve(p.dir, p.text, p.len, uargv, uenvp);
}

/* ---- the boot program ---- */

/* The boot program: its file and strings from the boot record. */
void exec_boot_program(void)
{
    static struct binprm b;
    const char *strings = (const char *)boot->args_addr;
    uint32_t size = boot->args_size, off = 0;
    long err;

    memset(&b, 0, sizeof(b));
    b.boot = 1;
    b.file = boot->image_handle;
    b.size = boot->image_size;
    if (size > BOOT_ARGS_MAX || boot->argc > size || boot->envc > size - boot->argc)
        exec_failed(E2BIG, "argument strings too large");
    for (uint32_t i = 0; i < boot->argc + boot->envc; i++) {
        uint32_t left = size - off, len = strnlen(strings + off, left);
        if (len == left)
            exec_failed(E2BIG, "argument strings not NUL-terminated");
        if (len + 1 > MAX_ARG_STRLEN)
            exec_failed(E2BIG, "argument list too long (a string over 128 KiB)");
        off += len + 1;
    }
    if (args_alloc(&b, off))
        exec_failed(ENOMEM, "out of kernel memory for the arguments");
    b.start = b.cap - off;
    memcpy(b.args + b.start, strings, off);
    b.argc = boot->argc;
    b.envc = boot->envc;
    b.filename = b.argc ? b.args + b.start : "";
    b.filename_len = strlen(b.filename);
    /* its path: just past the argument strings */
    if (boot->exe_path_size && boot->exe_path_size <= BOOT_EXE_FIELD &&
        BOOT_EXE_FIELD <= BOOT_ARGS_MAX - size &&
        strings[size + boot->exe_path_size - 1] == 0)
        b.exe_path = exe_path_field(strings + size, boot->exe_path_size - 1);
    if ((err = read_head(&b)) == 0)
        err = search_binary(&b);
    if (err)
        exec_failed((int)-err, "%s", b.reason ? b.reason : "cannot load the program");
    binprm_free(&b);
}
