/*
 * The read-only tree of "emu run --root DIR", inside the kernel: what
 * fs.c, namei.c, file.c, readdir.c and fcntl.c share. The kernel
 * keeps the descriptor table and every file offset; the emulator
 * (emu/hostfs.c) resolves paths inside DIR and reads bytes, one hypercall
 * per request (struct hc_fs, abi.h). Paths and data pass through kernel
 * buffers: the emulator never touches user memory. Nothing can be written,
 * so every open for writing fails with EROFS. There is no current
 * directory but the root: a relative path starts at DIR. Descriptors 0-2
 * are the console (read_write.c).
 */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "kernel.h"

#define AT_FDCWD            0xffffff9cu /* -100 */
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EMPTY_PATH       0x1000

#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_CREAT     00000100
#define O_TRUNC     00001000
#define O_APPEND    00002000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000
#define O_PATH      010000000
#define O_TMPFILE   020000000
#define O_WRITING   (O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE)

#define SEEK_SET  0
#define SEEK_CUR  1
#define SEEK_END  2
#define SEEK_DATA 3
#define SEEK_HOLE 4

#define F_DUPFD  0
#define F_GETFD  1
#define F_SETFD  2
#define F_GETFL  3
#define F_SETFL  4
#define FD_CLOEXEC 1

#define W_OK 2
#define X_OK 1

#define S_IFMT  0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFCHR 0020000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)

#define TTY_MODE  (S_IFCHR | 0620)
#define TTY_RDEV  ((136 << 8) | 0)   /* like /dev/pts/0 */
#define TTY_DEV   0x16

#define FIRST_FD     3      /* the first descriptor of a file of the tree */
#define FS_CHUNK     16384  /* the bounce buffer: the most one hypercall moves */

struct file {
    int used;
    int cloexec;
    uint32_t handle;   /* the emulator's */
    uint32_t oflags;
    uint32_t mode;
    uint64_t size;
    uint64_t pos;      /* directories: the index of the next entry */
};

/* One task, and system calls do not nest: one of each buffer is enough
 * (fs.c). */
extern struct file files[HC_FS_MAX_FILES];
extern uint8_t fs_bounce[FS_CHUNK];

/* ---- the emulator's side ---- */

static inline long host_call(unsigned port, struct hc_fs *r)
{
    hypercall(port, r);
    return r->result;
}

/* ---- descriptors ---- */

static inline struct file *file_of(uint32_t fd)
{
    if (fd < FIRST_FD || fd - FIRST_FD >= HC_FS_MAX_FILES)
        return NULL_PTR;
    struct file *f = &files[fd - FIRST_FD];
    return f->used ? f : NULL_PTR;
}

#endif
