/* Booting: the kernel image, the program file and the boot record. */
#include "cpu/boot.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "vfs/vfs.h"
#include "hypercall/vfs.h"

/* Where the program's bytes come from: its file, read in pieces straight
 * into the tree (no second whole copy of it), or opts->harness.program_image. */
struct program_source {
    int fd;                 /* -1: image */
    const uint8_t *image;
    size_t size;
};

/* The program file, open: 0, or the exit status (126, 127) with the
 * reason in err. */
static int open_program_file(const char *path, int *fd_out, size_t *size, char *err,
                             size_t errlen)
{
    /* Non-blocking, so that a FIFO is refused below instead of waiting
     * for a writer in open(). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return e == ENOENT ? 127 : 126;
    }
    struct stat st;
    bool regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
    if (!regular || (uint64_t)st.st_size > PROGRAM_MAX) {
        if (!regular)
            snprintf(err, errlen, "%s: not a regular file", path);
        else
            snprintf(err, errlen, "%s: too large (%lld bytes; at most %u)", path,
                     (long long)st.st_size, PROGRAM_MAX);
        close(fd);
        return 126;
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return 0;
}

int program_check(const char *path, char *err, size_t errlen)
{
    int fd;
    size_t size;
    int status = open_program_file(path, &fd, &size, err, errlen);
    if (status)
        return status;
    Elf32_Ehdr eh;
    ssize_t got = pread(fd, &eh, sizeof eh, 0);
    close(fd);
    /* the first of the kernel's checks (guest/kernel/binfmt_elf.c) */
    if (got == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG))
        return 0;
    snprintf(err, errlen, "%s: cannot run program: not an ELF file", path);
    return 126;
}

/* 0, or the exit status with the reason in m->message. */
static int open_program(struct machine *m, struct program_source *src)
{
    const char *path = m->opts->program;
    *src = (struct program_source){ .fd = -1 };
    if (m->opts->harness.program_image) {
        src->image = m->opts->harness.program_image;
        src->size = m->opts->harness.program_size;
        if (src->size > PROGRAM_MAX)
            return machine_fail(m, 126, "%s: too large (%zu bytes; at most %u)", path,
                                src->size, PROGRAM_MAX);
        return 0;
    }
    char err[PATH_MAX + 64];
    int status = open_program_file(path, &src->fd, &src->size, err, sizeof err);
    return status ? machine_fail(m, status, "%s", err) : 0;
}

static void close_program(struct program_source *src)
{
    if (src->fd >= 0)
        close(src->fd);
    src->fd = -1;
}

/* Up to n bytes of the program from offset off into buf (or, for an
 * image, a pointer into it): how many, 0 at a read error or a file that
 * shrank. */
static size_t program_bytes(const struct program_source *src, size_t off, size_t n,
                            uint8_t *buf, const uint8_t **bytes)
{
    if (src->fd < 0) {
        *bytes = src->image + off;
        return n;
    }
    ssize_t got = pread(src->fd, buf, n, (off_t)off);
    *bytes = buf;
    return got > 0 ? (size_t)got : 0;
}

/*
 * The program becomes a file of the guest's tree that no name leads to: made
 * in /tmp (the vfs's own, so no name of the --root tree is in the way),
 * written, unlinked; the kernel gets the one handle and runs it as pid 1.
 */
#define PROGRAM_NAME "tmp/.sysemu-program"

enum { PIECE = 64 << 10 };

/* The program's bytes into handle h, through piece (PIECE bytes). */
static int write_program(struct machine *m, const struct program_source *src, int h,
                         uint8_t *piece)
{
    size_t done = 0;
    while (done < src->size) {
        const uint8_t *bytes;
        size_t want = src->size - done < PIECE ? src->size - done : PIECE;
        size_t got = program_bytes(src, done, want, piece, &bytes);
        if (!got)
            return machine_fail(m, 126, "%s: read error", m->opts->program);
        ssize_t n = vfs_write(m->vfs, (uint32_t)h, bytes, got, done);
        if (n <= 0)
            return machine_fail(m, 125, "cannot place the program in the file tree: %s",
                                strerror(n < 0 ? (int)-n : EIO));
        done += (size_t)n;
    }
    return 0;
}

/* The piece is on the heap, whose pages main() makes large: in static
 * storage it cost 16 host page faults. */
static int place_program(struct machine *m, const struct program_source *src,
                         struct boot_record *br)
{
    uint8_t *piece = malloc(PIECE);
    if (!piece)
        return machine_fail(m, 125, "out of memory");
    int h = vfs_open(m->vfs, VFS_ROOT, PROGRAM_NAME, strlen(PROGRAM_NAME),
                     VFS_O_CREAT | VFS_O_EXCL | VFS_O_RDWR, 0755);
    int rc = h >= 0 ? write_program(m, src, h, piece) : 0;
    free(piece);
    if (rc)
        return rc;
    if (h < 0 || vfs_unlink(m->vfs, VFS_ROOT, PROGRAM_NAME, strlen(PROGRAM_NAME)))
        return machine_fail(m, 125, "cannot place the program in the file tree");
    br->image_handle = (uint32_t)h;
    br->image_size = (uint32_t)src->size;
    return 0;
}

static int pack_strings(struct machine *m, char *const *strs, int count, uint32_t *used)
{
    for (int i = 0; i < count; i++) {
        size_t len = strlen(strs[i]) + 1;
        if (len > BOOT_ARGS_MAX - *used)
            return machine_fail(m, 126, "argument list too long (more than %u bytes)",
                                BOOT_ARGS_MAX);
        memcpy(guest_ptr(&m->mem, BOOT_ARGS_ADDR + *used, (uint32_t)len), strs[i], len);
        *used += (uint32_t)len;
    }
    return 0;
}

/* What /proc/self/exe names: the program's real path, inside the --root
 * tree when it lies there; none for an image without a file. */
static void exe_path(const struct machine *m, char *out, size_t cap)
{
    char real[PATH_MAX], root[PATH_MAX];
    out[0] = 0;
    if (m->opts->harness.program_image || !realpath(m->opts->program, real))
        return;
    size_t n = m->opts->root && realpath(m->opts->root, root) ? strlen(root) : 0;
    if (n > 1 && !strncmp(real, root, n) && real[n] == '/')
        snprintf(out, cap, "%s", real + n);
    else
        snprintf(out, cap, "%s", real);
}

/* The path in a field of BOOT_EXE_FIELD bytes, zeros after it; a path
 * that does not fit is not given (readlink then fails, ENOENT). */
static int pack_exe_path(struct machine *m, uint32_t used, struct boot_record *br)
{
    char path[PATH_MAX];
    exe_path(m, path, sizeof path);
    size_t len = strlen(path) + 1;
    if (!path[0] || len > BOOT_EXE_FIELD)
        return 0;
    if (BOOT_EXE_FIELD > BOOT_ARGS_MAX - used)
        return machine_fail(m, 126, "argument list too long (more than %u bytes)",
                            BOOT_ARGS_MAX - BOOT_EXE_FIELD);
    uint8_t *field = guest_ptr(&m->mem, BOOT_ARGS_ADDR + used, BOOT_EXE_FIELD);
    memset(field, 0, BOOT_EXE_FIELD);
    memcpy(field, path, len);
    br->exe_path_size = (uint32_t)len;
    return 0;
}

static int write_boot_record(struct machine *m, const struct program_source *src)
{
    struct boot_record br = {
        .magic = BOOT_MAGIC,
        .version = BOOT_VERSION,
        .cpu_khz = m->cpu.model->clock_mhz * 1000,
        .epoch_sec = m->opts->epoch_sec,
        .ncpus = (uint32_t)(m->ncpus ? m->ncpus : 1),
        .flags = (m->opts->vgettimeofday ? BOOT_FLAG_VGETTIMEOFDAY : 0) |
                 (m->ncpus > 1 ? m->opts->harness.smp_test : 0),
        .mem_pages = (uint32_t)((m->opts->mem_bytes ? m->opts->mem_bytes
                                                    : DEFAULT_MEM_BYTES) / PAGE_SIZE),
    };
    int rc = place_program(m, src, &br);
    if (rc)
        return rc;
    int envc = 0;
    while (m->opts->envp && m->opts->envp[envc])
        envc++;
    uint32_t used = 0;
    char *const *argv = m->opts->argv;
    if (m->opts->argv0 && m->opts->argc > 0) {
        char *const first[1] = { (char *)m->opts->argv0 };
        if ((rc = pack_strings(m, first, 1, &used)))
            return rc;
        argv++;
    }
    int rest = m->opts->argc - (argv - m->opts->argv);
    if ((rc = pack_strings(m, argv, rest, &used)) ||
        (rc = pack_strings(m, m->opts->envp, envc, &used)))
        return rc;
    if ((rc = pack_exe_path(m, used, &br)))
        return rc;
    br.args_addr = BOOT_ARGS_ADDR;
    br.args_size = used;
    br.argc = (uint32_t)m->opts->argc;
    br.envc = (uint32_t)envc;
    for (int i = 0; i < 16; i++)
        br.random[i] = (uint8_t)(0x5a ^ (i * 37));
    memcpy(guest_ptr(&m->mem, BOOT_RECORD_ADDR, sizeof br), &br, sizeof br);
    return 0;
}

/* A new file tree holding the program (m->opts), and the boot record. */
static int new_tree_and_record(struct machine *m)
{
    char err[256];
    struct program_source src;
    int rc = open_program(m, &src);
    if (rc)
        return rc;
    vfs_free(m->vfs);
    m->vfs = vfscall_new_tree(m, src.size, err, sizeof err);
    if (!m->vfs) {
        close_program(&src);
        return machine_fail(m, 2, "%s", err);
    }
    rc = write_boot_record(m, &src);
    close_program(&src);
    return rc;
}

int machine_boot_image(struct machine *m, const uint8_t *image, size_t size)
{
    char err[256];
    int rc;
    if (ksyms_load(&m->ksyms, image, size, err, sizeof err) ||
        kernel_load(image, size, &m->mem, err, sizeof err))
        return machine_fail(m, 125, "%s", err);
    if ((rc = new_tree_and_record(m)))
        return rc;
    reg_write(m, UC_X86_REG_EBX, BOOT_RECORD_ADDR);
    reg_write(m, UC_X86_REG_EIP, m->ksyms.entry);
    return 0;
}

/*
 * The file tree lives outside guest memory, so a snapshot does not bring
 * it back: a machine restored to exec_boot_program gets a new tree with
 * the new program, and the one handle the kernel opened before (its root,
 * start_kernel's cwd) opened again; handles are the lowest free, so the
 * numbers match those of a fresh boot.
 */
int machine_write_boot_record(struct machine *m)
{
    int rc = new_tree_and_record(m);
    if (rc)
        return rc;
    if (vfs_open(m->vfs, VFS_ROOT, "/", 1, VFS_O_DIRECTORY | VFS_O_RDONLY, 0) < 0)
        return machine_fail(m, 125, "cannot open the file tree's root again");
    return 0;
}

int machine_boot(struct machine *m)
{
    return machine_boot_image(m, m->kernel->start, (size_t)(m->kernel->end - m->kernel->start));
}
