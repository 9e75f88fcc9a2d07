/*
 * /proc/self/exe, the one name of /proc there is: the path of the file the
 * process runs, found when execve opens it (its directory's path, then
 * the last name, symbolic links followed as Linux's d_path shows them),
 * kept with the address space and shared by the ones fork copies.
 */
#include "kernel.h"
#include "binfmt.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#define MAX_HOPS 40   /* Linux's limit on symbolic links in one lookup */
#define EXE_PATH_MAX (2048 - sizeof(struct exe_path))  /* one kmalloc */

static char name_buf[HC_VFS_PATH_MAX];   /* the path being looked up */

static int real_handle(uint32_t h)
{
    return h != HC_VFS_ROOT && h != NO_HANDLE;
}

struct exe_path *exe_path_new(const char *dir, uint32_t dlen, const char *name,
                              uint32_t nlen)
{
    uint32_t slash = dlen > 1, len = dlen + slash + nlen;
    struct exe_path *p;

    if (len + 1 > EXE_PATH_MAX || !(p = kmalloc(sizeof(*p) + len + 1)))
        return NULL_PTR;
    p->count = 1;
    p->len = len;
    p->size = len + 1;
    memcpy(p->text, dir, dlen);
    p->text[dlen] = '/';
    memcpy(p->text + dlen + slash, name, nlen);
    p->text[len] = 0;
    return p;
}

/* The boot program's: the whole field copied, its length the emulator's,
 * so the boot costs the same wherever the program lies. */
struct exe_path *exe_path_field(const char *field, uint32_t len)
{
    struct exe_path *p;

    if (BOOT_EXE_FIELD > EXE_PATH_MAX || !(p = kmalloc(sizeof(*p) + BOOT_EXE_FIELD)))
        return NULL_PTR;
    p->count = 1;
    p->len = len;
    p->size = BOOT_EXE_FIELD;
    memcpy(p->text, field, BOOT_EXE_FIELD);
    p->text[len] = 0;
    return p;
}

void exe_path_get(struct exe_path *p)
{
    if (p)
        p->count++;
}

void exe_path_put(struct exe_path *p)
{
    if (p && --p->count == 0)
        kfree(p, sizeof(*p) + p->size);
}

/* The directory part of name_buf[0, len) opened, and where the last name
 * starts. */
static long open_parent(uint32_t dir, uint32_t len, uint32_t *name_at)
{
    uint32_t slash = len;

    while (slash > 0 && name_buf[slash - 1] != '/')
        slash--;
    *name_at = slash;
    if (slash == 0)
        return vfs_open(dir, ".", 1, O_DIRECTORY | O_RDONLY, 0);
    return vfs_open(dir, name_buf, slash, O_DIRECTORY | O_RDONLY, 0);
}

/* One step: the file at dir + name_buf is no symbolic link (its path made),
 * or name_buf becomes the link's target, relative to *dir. */
static long lookup_step(uint32_t *dir, uint32_t *len, struct exe_path **out)
{
    char *dpath = (char *)vfs_bounce, *link = (char *)vfs_bounce + HC_VFS_PATH_MAX;
    struct hc_vfs r = { .op = VFS_PATH_OF, .buf = (uint32_t)dpath, .len = HC_VFS_PATH_MAX };
    uint32_t at;
    long d = open_parent(*dir, *len, &at), dlen, n;

    if (d < 0)
        return d;
    r.handle = (uint32_t)d;
    if ((dlen = vfs_call(&r)) < 0) {
        vfs_put((uint32_t)d);
        return dlen;
    }
    r = (struct hc_vfs){ .buf = (uint32_t)link, .len = HC_VFS_PATH_MAX - 1 };
    n = vfs_path_op(VFS_READLINK, (uint32_t)d, name_buf + at, *len - at, &r);
    if (n < 0) {
        *out = exe_path_new(dpath, (uint32_t)dlen, name_buf + at, *len - at);
        vfs_put((uint32_t)d);
        return 0;
    }
    memcpy(name_buf, link, (uint32_t)n);
    *len = (uint32_t)n;
    if (real_handle(*dir))
        vfs_put(*dir);
    *dir = (uint32_t)d;
    return 1;
}

/* The path /proc/self/exe will give for the file at dir + path; NULL if it
 * cannot be had (the link then answers ENOENT). */
struct exe_path *exe_path_lookup(uint32_t dir, const char *path, uint32_t len)
{
    struct exe_path *p = NULL_PTR;
    uint32_t base = dir;
    long r = 1;

    if (len == 0 || len >= sizeof(name_buf))
        return NULL_PTR;
    memcpy(name_buf, path, len);
    if (real_handle(base))
        vfs_get(base);
    for (int hops = 0; r == 1 && hops <= MAX_HOPS; hops++)
        r = lookup_step(&base, &len, &p);
    if (real_handle(base))
        vfs_put(base);
    return p;
}

/* readlink("/proc/self/exe"): the text, without a NUL, cut at size. */
long exe_path_readlink(uint32_t ubuf, uint32_t size)
{
    const struct exe_path *p = current->mm ? current->mm->exe_path : NULL_PTR;
    uint32_t n;

    if (!p)
        return -ENOENT;
    n = p->len < size ? p->len : size;
    return copy_to_user(ubuf, p->text, n) ? -EFAULT : (long)n;
}
