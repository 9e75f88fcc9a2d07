/*
 * Open files and descriptors. A struct file is one open file description:
 * its type, its open flags and its offset, shared by every descriptor dup
 * or fork made from it and counted by them. Each process has its own
 * table of OPEN_MAX descriptors with a close-on-exec bit each; a new
 * descriptor is the lowest free one.
 *
 * Types: a file, directory or symlink of the tree (vfs.h); a pipe end
 * (pipe.c); the console, whose reads and writes are the emulator's stdin,
 * stdout or stderr; /dev/null and /dev/zero. /dev/tty is the console,
 * reading stdin and writing stderr.
 */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "kernel.h"
#include "linux_abi.h"
#include "sched.h"   /* spinlock.h, after smp_processor_id() */

/* O_*, F_*, SEEK_*, AT_*, *_OK and S_IF*: guest/linux_abi.def. */
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)

#define OPEN_MAX     1024   /* descriptors per process, RLIMIT_NOFILE */

enum file_type { FT_VFS = 1, FT_PIPE, FT_CONSOLE, FT_NULL, FT_ZERO };

#define FMODE_READ  1
#define FMODE_WRITE 2


struct pipe_inode_info;
struct task_struct;
struct file;
struct file_lock;

/* What a kind of open file does for read and write (2.5.53's
 * file_operations, of which this kernel needs these two). */
struct file_operations {
    long (*read)(struct file *f, uint32_t buf, uint32_t count, uint64_t *ppos);
    long (*write)(struct file *f, uint32_t buf, uint32_t count, uint64_t *ppos);
};

struct file {
    atomic_t f_count;          /* descriptors (and holders) sharing it */
    uint32_t type;             /* enum file_type */
    uint32_t f_mode;           /* FMODE_READ, FMODE_WRITE: from the open flags */
    const struct file_operations *f_op;
    uint32_t flags;            /* open flags: access mode, O_APPEND, O_NONBLOCK ... */
    uint64_t pos;              /* offset; for a directory, the getdents cookie */
    uint32_t handle;           /* vfs handle, or NO_HANDLE (a pipe, the boot console) */
    uint32_t mode;             /* S_IF* and permission bits, as opened */
    uint32_t stream;           /* FT_CONSOLE: the emulator's fd it reads or writes */
    struct pipe_inode_info *pipe; /* FT_PIPE */
    /* 2.5.53 reaches these through f_dentry: the inode's record locks and
     * the directory's dnotify mask. This kernel has neither: always 0. */
    struct file_lock *f_flock;
    uint32_t f_dnotify_mask;
};

#define NO_HANDLE 0xffffffffu

struct files_struct {
    rwlock_t file_lock;        /* the table's slots */
    uint32_t max_fds;          /* OPEN_MAX */
    struct file **fd;          /* OPEN_MAX slots: one page */
    uint32_t cloexec[OPEN_MAX / 32];
};

/* file.c */
struct file *file_alloc(uint32_t type, uint32_t flags);
static inline void get_file(struct file *f)
{
    atomic_inc(&f->f_count);
}
fastcall void fput(struct file *f);
fastcall struct file *fget(uint32_t fd);     /* with a reference; NULL if not open */
struct file *fcheck(uint32_t fd);               /* the caller's own table: no reference */
int fd_alloc(struct file *f, uint32_t from, int cloexec);  /* the descriptor, -EMFILE */
int fd_close(uint32_t fd);
struct files_struct *files_alloc(void);
struct files_struct *dup_files(struct files_struct *old);
void exit_files(struct task_struct *t);
void close_on_exec(struct files_struct *files);
int console_files(struct files_struct *files);  /* fds 0, 1, 2 */
int file_readable(const struct file *f);
int file_writable(const struct file *f);

/* read_write.c */
long vfs_read(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos);
long vfs_write(struct file *f, uint32_t buf, uint32_t count, uint64_t *pos);
extern const struct file_operations vfs_file_fops, console_fops;
long console_call(uint32_t op, const struct file *f, struct hc_console *c);
int boot_console(const struct file *f);

/* mem.c: /dev/null and /dev/zero */
extern const struct file_operations null_fops, zero_fops;

/* file.c: SIGIO to the owners of a file that asked for it (F_SETOWN,
 * O_ASYNC), which this kernel does not support: the list is empty. */
struct fasync_struct;
void kill_fasync(struct fasync_struct **fp, int sig, int band);

/* pipe.c */
extern const struct file_operations read_pipe_fops, write_pipe_fops;
void pipe_release(struct file *f);
void pipe_stat(const struct file *f, struct hc_stat *st);
uint32_t pipe_poll(struct file *f);
extern struct wait_queue poll_wait;

/* open.c: a path of the calling process, and where it starts */
#define PATH_BUFS 2
struct kpath {
    char text[HC_VFS_PATH_MAX];
    uint32_t len;
    uint32_t dir;              /* the handle a relative path starts at */
};
long get_path(struct kpath *p, uint32_t dirfd, uint32_t upath, int empty_ok);
struct file *open_device(uint32_t handle, const struct hc_stat *st, uint32_t flags);

/* stat.c */
long stat_file(struct file *f, struct hc_stat *st);
void console_stat(uint32_t stream, struct hc_stat *st);

/* mmap of a file: the handle to map (a reference), the VMA's flags */
long file_mmap_check(uint32_t fd, int shared, int writable, uint32_t *handle,
                     uint32_t *vm_flags);

#endif
