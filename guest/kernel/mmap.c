/* The address space of the one task: brk, mmap, munmap, mprotect. */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define PROT_READ      0x1
#define PROT_WRITE     0x2
#define PROT_EXEC      0x4
#define PROT_SEM       0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP   0x02000000
#define MAP_SHARED     0x01
#define MAP_PRIVATE    0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE       0x0f
#define MAP_FIXED      0x10
#define MAP_ANONYMOUS  0x20
#define MAP_FIXED_NOREPLACE 0x100000

/* Is no page of [start, start+len) mapped? */
static int range_free(uint32_t start, uint32_t len)
{
    for (uint32_t a = start; a - start < len; a += PAGE_SIZE)
        if (user_range_mapped(a, PAGE_SIZE))
            return 0;
    return 1;
}

/* The highest free range of len bytes below current->mm->mmap_top and above the
 * heap; 0 if there is none. Usually the first try fits: only MAP_FIXED can
 * put pages in the way. */
static uint32_t find_area(uint32_t len)
{
    uint32_t top = current->mm->mmap_top;
    uint32_t floor = PAGE_ALIGN(current->mm->brk);

    if (floor < USER_SPACE_BASE)
        floor = USER_SPACE_BASE;
    while (top >= floor && top - floor >= len) {
        uint32_t start = top - len, a;

        for (a = top; a > start; a -= PAGE_SIZE)
            if (user_range_mapped(a - PAGE_SIZE, PAGE_SIZE))
                break;
        if (a == start)
            return start;
        top = a - PAGE_SIZE;
    }
    return 0;
}

/* A file mapping is a private copy of the file (file.c), which never changes:
 * the tree is read-only. It is filled through a writable mapping first. */
static long map_file(uint32_t addr, uint32_t len, int writable, uint32_t fd,
                     uint64_t offset)
{
    long err = fs_mmap_fill(fd, addr, len, offset);

    if (!err && !writable)
        err = protect_user_range(addr, len, 0);
    if (err)
        unmap_user_range(addr, len);
    return err;
}

static long do_mmap(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags,
                    uint32_t fd, uint64_t offset)
{
    uint32_t type = flags & MAP_TYPE;
    int writable = (prot & PROT_WRITE) != 0;
    int file = !(flags & MAP_ANONYMOUS);
    long err;

    if (len == 0)
        return -EINVAL;
    if (len > USER_SPACE_TOP)
        return -ENOMEM;
    len = PAGE_ALIGN(len);
    if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
        return -EINVAL;
    if (file && (err = fs_mmap_check(fd, type != MAP_PRIVATE, writable)) != 0)
        return err;

    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr & (PAGE_SIZE - 1))
            return -EINVAL;
        if (addr < USER_SPACE_BASE)
            return -EPERM;
        if (addr > USER_SPACE_TOP - len)
            return -ENOMEM;
        if (!range_free(addr, len)) {
            if (!(flags & MAP_FIXED))
                return -EEXIST;
            unmap_user_range(addr, len);
        }
    } else {
        addr = find_area(len);
        if (addr == 0)
            return -ENOMEM;
    }
    if (map_user_range(addr, len, writable || file) != 0)
        return -ENOMEM;
    if (file && (err = map_file(addr, len, writable, fd, offset)) != 0)
        return err;
    if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
        current->mm->mmap_top = addr;
    return addr;
}

long sys_mmap2(uint32_t addr, uint32_t len, uint32_t prot,
               uint32_t flags, uint32_t fd, uint32_t pgoff)
{
    return do_mmap(addr, len, prot, flags, fd, (uint64_t)pgoff << PAGE_SHIFT);
}

/* The old mmap takes one pointer to its six arguments. */
long sys_old_mmap(uint32_t uargs, uint32_t a2, uint32_t a3,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t arg[6];

    if (copy_from_user(arg, uargs, sizeof(arg)) != 0)
        return -EFAULT;
    if (arg[5] & (PAGE_SIZE - 1))
        return -EINVAL;
    return do_mmap(arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
}

long sys_munmap(uint32_t addr, uint32_t len, uint32_t a3,
                uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t top;

    if ((addr & (PAGE_SIZE - 1)) || len == 0 || len > USER_SPACE_TOP)
        return -EINVAL;
    len = PAGE_ALIGN(len);
    if (addr > USER_SPACE_TOP - len)
        return -EINVAL;
    unmap_user_range(addr, len);

    /* Give the space back to find_area if it was at the bottom of the
     * mmap region. */
    top = current->mm->mmap_top;
    if (addr <= top && top < addr + len) {
        top = addr + len;
        while (top < USER_MMAP_TOP && !user_range_mapped(top, PAGE_SIZE))
            top += PAGE_SIZE;
        if (top > USER_MMAP_TOP)
            top = USER_MMAP_TOP;
        current->mm->mmap_top = top;
    }
    return 0;
}

long sys_mprotect(uint32_t addr, uint32_t len, uint32_t prot,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    const uint32_t known = PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM |
                           PROT_GROWSDOWN | PROT_GROWSUP;

    if (addr & (PAGE_SIZE - 1))
        return -EINVAL;
    if (prot & ~known)
        return -EINVAL;
    if (len == 0)
        return 0;
    if (len > USER_SPACE_TOP)
        return -ENOMEM;
    len = PAGE_ALIGN(len);
    if (addr < USER_SPACE_BASE || addr > USER_SPACE_TOP - len)
        return -ENOMEM;
    if (!user_range_mapped(addr, len))
        return -ENOMEM;
    if (protect_user_range(addr, len, (prot & PROT_WRITE) != 0) != 0)
        return -ENOMEM;
    return 0;
}

/* brk: Linux semantics, return the new break or, on failure, the old one. */
long sys_brk(uint32_t newbrk, uint32_t a2, uint32_t a3,
             uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t old = current->mm->brk;
    uint32_t oldend = PAGE_ALIGN(old), newend;

    if (newbrk < current->mm->brk_start || newbrk > current->mm->mmap_top)
        return old;
    newend = PAGE_ALIGN(newbrk);
    if (newend > oldend) {
        if (!range_free(oldend, newend - oldend))
            return old;
        if (map_user_range(oldend, newend - oldend, 1) != 0)
            return old;
    } else if (newend < oldend) {
        unmap_user_range(newend, oldend - newend);
    }
    current->mm->brk = newbrk;
    return newbrk;
}

void mmput(struct mm_struct *mm)
{
    mm->users--;
}
