/*
 * A process's address space: its VMAs, and the system calls that shape
 * them (brk, mmap, munmap, mprotect, mremap). Pages come on demand
 * (memory.c); here only the VMAs and, when a range goes, its pages.
 */
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "file.h"
#include "vfs.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"


struct shm_object {
    uint32_t id;               /* the emulator's */
    uint32_t npages;
    uint32_t refs;             /* VMAs */
};

/* ---- VMAs ---- */

struct vm_area_struct *vma_new(uint32_t start, uint32_t end, uint32_t flags)
{
    struct vm_area_struct *vma = kzalloc(sizeof(*vma));

    if (vma) {
        INIT_LIST_HEAD(&vma->list);
        vma->start = start;
        vma->end = end;
        vma->flags = flags;
        vma->file = NO_FILE;
    }
    return vma;
}

static void vma_free(struct vm_area_struct *vma)
{
    if (vma->file != NO_FILE)
        vfs_put(vma->file);
    if (vma->shm)
        shm_put(vma->shm);
    kfree_obj(vma);
}

static struct vm_area_struct *vma_of(struct list_head *l)
{
    return list_entry(l, struct vm_area_struct, list);
}

/* The first VMA that ends above addr; *prev the one before it (or NULL). */
struct vm_area_struct *find_vma_prev(struct mm_struct *mm, uint32_t addr,
                                     struct vm_area_struct **prev)
{
    struct list_head *p;

    *prev = NULL_PTR;
    list_for_each(p, &mm->mmap) {
        struct vm_area_struct *v = vma_of(p);
        if (v->end > addr)
            return v;
        *prev = v;
    }
    return NULL_PTR;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, uint32_t addr)
{
    struct vm_area_struct *prev;

    return find_vma_prev(mm, addr, &prev);
}

/* Sorted; the caller made room. */
int insert_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
    struct list_head *p;

    if (mm->map_count >= MAX_MAP_COUNT)
        return -ENOMEM;
    list_for_each(p, &mm->mmap)
        if (vma_of(p)->start >= vma->end)
            break;
    list_add_tail(&vma->list, p);
    mm->map_count++;
    return 0;
}

static void remove_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
    list_del(&vma->list);
    mm->map_count--;
    vma_free(vma);
}

/* A copy of vma's description for [start, end) (its own references). */
static struct vm_area_struct *vma_clone(const struct vm_area_struct *vma, uint32_t start,
                                        uint32_t end)
{
    struct vm_area_struct *n = vma_new(start, end, vma->flags);

    if (!n)
        return NULL_PTR;
    n->file = vma->file;
    n->offset = vma->offset + (start - vma->start);
    n->file_end = vma->file_end;
    n->shm = vma->shm;
    n->shm_pgoff = vma->shm_pgoff + (start - vma->start) / PAGE_SIZE;
    if (n->file != NO_FILE)
        vfs_get(n->file);
    if (n->shm)
        n->shm->refs++;
    return n;
}

/* Cut vma in two at addr; the new upper part goes after it. */
static int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, uint32_t addr)
{
    struct vm_area_struct *upper;

    if (mm->map_count >= MAX_MAP_COUNT)
        return -ENOMEM;
    upper = vma_clone(vma, addr, vma->end);
    if (!upper)
        return -ENOMEM;
    vma->end = addr;
    list_add(&upper->list, &vma->list);
    mm->map_count++;
    return 0;
}

/* Anonymous private neighbours with the same flags become one. */
static int mergeable(const struct vm_area_struct *a, const struct vm_area_struct *b)
{
    return a->end == b->start && a->flags == b->flags && a->file == NO_FILE &&
           b->file == NO_FILE && !a->shm && !b->shm;
}

static void merge_around(struct mm_struct *mm, struct vm_area_struct *vma)
{
    if (vma->list.next != &mm->mmap) {
        struct vm_area_struct *next = vma_of(vma->list.next);
        if (mergeable(vma, next)) {
            vma->end = next->end;
            remove_vma(mm, next);
        }
    }
    if (vma->list.prev != &mm->mmap) {
        struct vm_area_struct *prev = vma_of(vma->list.prev);
        if (mergeable(prev, vma)) {
            prev->end = vma->end;
            remove_vma(mm, vma);
        }
    }
}

/* ---- shared anonymous memory ---- */

static struct shm_object *shm_create(uint32_t npages)
{
    struct shm_object *shm = kzalloc(sizeof(*shm));
    long id;

    if (!shm)
        return NULL_PTR;
    id = mm_call(MM_SHM_CREATE, 0, 0, npages, 0, 0, 0);
    if (id < 0) {
        kfree_obj(shm);
        return NULL_PTR;
    }
    shm->id = (uint32_t)id;
    shm->npages = npages;
    shm->refs = 1;
    return shm;
}

void shm_put(struct shm_object *shm)
{
    if (--shm->refs)
        return;
    user_pages -= (uint32_t)mm_call(MM_SHM_FREE, 0, 0, 0, shm->id, 0, 0);
    kfree_obj(shm);
}

/* ---- whole address spaces ---- */

struct mm_struct *mm_alloc(void)
{
    struct mm_struct *mm = kzalloc(sizeof(*mm));

    if (!mm)
        return NULL_PTR;
    mm->pgd = pgd_alloc();
    if (!mm->pgd) {
        kfree_obj(mm);
        return NULL_PTR;
    }
    INIT_LIST_HEAD(&mm->mmap);
    mm->users = 1;
    mm->mmap_top = USER_MMAP_TOP;
    mm->exe_file = NO_FILE;
    return mm;
}

/* The last user is gone. Its page directory is not loaded any more: the
 * task switched away (exit) or to its new space (exec) first. */
static void exit_mmap(struct mm_struct *mm)
{
    struct list_head *p, *n;

    mm_call(MM_DESTROY, (uint32_t)mm->pgd, 0, 0, 0, 0, 0);
    user_pages -= mm->rss;
    list_for_each_safe(p, n, &mm->mmap)
        remove_vma(mm, vma_of(p));
    if (mm->exe_file != NO_FILE)
        vfs_put(mm->exe_file);
    exe_path_put(mm->exe_path);
    pgd_free(mm->pgd);
    kfree_obj(mm);
}

void mmput(struct mm_struct *mm)
{
    if (--mm->users == 0)
        exit_mmap(mm);
}

/* fork: a copy of every VMA and PTE; the emulator copies the bytes. */
struct mm_struct *dup_mm(struct mm_struct *old)
{
    struct mm_struct *mm;
    struct list_head *p;

    if (old->rss > user_pages_limit - user_pages)
        return NULL_PTR;
    mm = mm_alloc();
    if (!mm)
        return NULL_PTR;
    mm->brk_start = old->brk_start;
    mm->brk = old->brk;
    mm->mmap_top = old->mmap_top;
    mm->start_stack = old->start_stack;
    if (old->exe_file != NO_FILE)
        vfs_get(mm->exe_file = old->exe_file);
    exe_path_get(mm->exe_path = old->exe_path);
    list_for_each(p, &old->mmap) {
        struct vm_area_struct *v = vma_of(p), *n = vma_clone(v, v->start, v->end);
        if (!n || insert_vma(mm, n) || copy_page_range(mm, old, v)) {
            if (n && list_empty(&n->list))
                vma_free(n);
            user_pages += mm->rss;    /* exit_mmap takes them off again */
            mm_call(MM_CLONE, (uint32_t)mm->pgd, 0, 0, (uint32_t)old->pgd, 0, 0);
            exit_mmap(mm);
            return NULL_PTR;
        }
    }
    user_pages += mm->rss;
    mm_call(MM_CLONE, (uint32_t)mm->pgd, 0, 0, (uint32_t)old->pgd, 0, 0);
    return mm;
}

/* ---- unmapping ---- */

int do_munmap(struct mm_struct *mm, uint32_t start, uint32_t len)
{
    uint32_t end = start + len;
    struct vm_area_struct *vma = find_vma(mm, start);

    if (!vma || vma->start >= end)
        return 0;
    if (vma->start < start && split_vma(mm, vma, start))
        return -ENOMEM;
    if (vma->start < start)
        vma = vma_of(vma->list.next);
    while (&vma->list != &mm->mmap && vma->start < end) {
        struct vm_area_struct *next = vma_of(vma->list.next);
        if (vma->end > end && split_vma(mm, vma, end))
            return -ENOMEM;
        next = vma_of(vma->list.next);
        zap_page_range(mm, vma, vma->start, vma->end);
        remove_vma(mm, vma);
        vma = next;
    }
    return 0;
}

/* ---- mapping ---- */

/* The highest gap of len bytes below mmap_top and above the heap; 0 if none. */
uint32_t get_unmapped_area(struct mm_struct *mm, uint32_t len)
{
    uint32_t end = mm->mmap_top, floor = PAGE_ALIGN(mm->brk);
    struct list_head *p;

    if (floor < USER_SPACE_BASE)
        floor = USER_SPACE_BASE;
    for (p = mm->mmap.prev; p != &mm->mmap; p = p->prev) {
        struct vm_area_struct *v = vma_of(p);
        if (v->start >= end)
            continue;
        if (v->end <= end && end - v->end >= len && end - len >= floor)
            return end - len;
        end = v->start;
    }
    return end >= floor && end - floor >= len ? end - len : 0;
}

int map_region(struct mm_struct *mm, uint32_t start, uint32_t len, uint32_t vm_flags,
               uint32_t file, uint64_t offset, uint32_t file_end)
{
    struct vm_area_struct *vma;
    int err = do_munmap(mm, start, len);

    if (err)
        return err;
    vma = vma_new(start, start + len, vm_flags);
    if (!vma)
        return -ENOMEM;
    if (file != NO_FILE)
        vfs_get(vma->file = file);
    vma->offset = offset;
    vma->file_end = file_end;
    if ((err = insert_vma(mm, vma)) != 0) {
        vma_free(vma);
        return err;
    }
    merge_around(mm, vma);
    return 0;
}

static uint32_t prot_to_vm(uint32_t prot)
{
    return ((prot & PROT_READ) ? VM_READ : 0) | ((prot & PROT_WRITE) ? VM_WRITE : 0) |
           ((prot & PROT_EXEC) ? VM_EXEC : 0);
}

static long do_mmap(uint32_t addr, uint32_t len, uint32_t prot, uint32_t flags,
                    uint32_t fd, uint64_t offset)
{
    struct mm_struct *mm = current->mm;
    uint32_t type = flags & MAP_TYPE, vm_flags = prot_to_vm(prot) | VM_MAYWRITE;
    int anon = (flags & MAP_ANONYMOUS) != 0;
    uint32_t file = NO_FILE;
    long err;

    if (len == 0)
        return -EINVAL;
    if (len > USER_SPACE_TOP || PAGE_ALIGN(len) / PAGE_SIZE > user_pages_limit)
        return -ENOMEM;
    len = PAGE_ALIGN(len);
    if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
        return -EINVAL;
    if (type != MAP_PRIVATE)
        vm_flags |= VM_SHARED;
    if (!anon && (err = file_mmap_check(fd, type != MAP_PRIVATE, prot & PROT_WRITE, &file,
                                        &vm_flags)) != 0)
        return err;
    if (!anon && file == NO_FILE)
        anon = 1;   /* /dev/zero */
    if (flags & MAP_GROWSDOWN)
        vm_flags |= VM_GROWSDOWN;

    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr & (PAGE_SIZE - 1))
            return -EINVAL;
        if (addr < USER_SPACE_BASE)
            return -EPERM;
        if (addr > USER_SPACE_TOP - len)
            return -ENOMEM;
        if (!(flags & MAP_FIXED)) {
            struct vm_area_struct *v = find_vma(mm, addr);
            if (v && v->start < addr + len)
                return -EEXIST;
        }
    } else {
        addr = get_unmapped_area(mm, len);
        if (addr == 0)
            return -ENOMEM;
    }
    if (anon && (vm_flags & VM_SHARED)) {
        struct shm_object *shm = shm_create(len / PAGE_SIZE);
        struct vm_area_struct *vma;
        if (!shm)
            return -ENOMEM;
        err = map_region(mm, addr, len, vm_flags, NO_FILE, 0, 0);
        vma = err ? NULL_PTR : find_vma(mm, addr);
        if (!vma) {
            shm_put(shm);
            return err ? err : -ENOMEM;
        }
        vma->shm = shm;
        mm_call(MM_SHM_MAP, 0, addr, len, shm->id, 0, 0);
        return addr;
    }
    /* A file mapping's pages come from the file when touched; past its
     * end they are zero. */
    err = map_region(mm, addr, len, vm_flags, file, offset, addr + len);
    return err ? err : (long)addr;
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
    if ((addr & (PAGE_SIZE - 1)) || len == 0 || len > USER_SPACE_TOP)
        return -EINVAL;
    len = PAGE_ALIGN(len);
    if (addr > USER_SPACE_TOP - len)
        return -EINVAL;
    return do_munmap(current->mm, addr, len);
}

long sys_mprotect(uint32_t addr, uint32_t len, uint32_t prot,
                  uint32_t a4, uint32_t a5, uint32_t a6)
{
    const uint32_t known = PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM |
                           PROT_GROWSDOWN | PROT_GROWSUP;
    struct mm_struct *mm = current->mm;
    struct vm_area_struct *vma;
    uint32_t end, va;

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
    end = addr + len;
    /* The whole range must be mapped, and may take the new protection. */
    for (va = addr; va < end; va = vma->end) {
        vma = find_vma(mm, va);
        if (!vma || vma->start > va)
            return -ENOMEM;
        if ((prot & PROT_WRITE) && !(vma->flags & VM_MAYWRITE))
            return -EACCES;
    }
    if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
        mm_call(MM_INVALIDATE, 0, addr, len, 0, 0, 0);
    for (va = addr; va < end; va = vma->end) {
        vma = find_vma(mm, va);
        if (vma->start < va && split_vma(mm, vma, va))
            return -ENOMEM;
        vma = find_vma(mm, va);
        if (vma->end > end && split_vma(mm, vma, end))
            return -ENOMEM;
        vma->flags = (vma->flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | prot_to_vm(prot);
        change_protection(mm, vma->start, vma->end, vma->flags);
    }
    merge_around(mm, find_vma(mm, addr));
    return 0;
}

/* ---- the stack and the heap ---- */

/* Grow a stack VMA down to cover addr: 8 MiB at most, never into the VMA
 * below it. */
int expand_stack(struct mm_struct *mm, struct vm_area_struct *vma, uint32_t addr)
{
    struct vm_area_struct *prev;
    uint32_t start = PAGE_DOWN(addr);

    if (vma->end - start > USER_STACK_MAX || start < USER_SPACE_BASE)
        return -ENOMEM;
    find_vma_prev(mm, vma->start, &prev);
    if (prev && prev != vma && prev->end > start)
        return -ENOMEM;
    vma->start = start;
    return 0;
}

/* brk: Linux semantics, the new break, or on failure the old one. */
long sys_brk(uint32_t newbrk, uint32_t a2, uint32_t a3,
             uint32_t a4, uint32_t a5, uint32_t a6)
{
    struct mm_struct *mm = current->mm;
    uint32_t old = mm->brk, oldend = PAGE_ALIGN(old), newend;
    struct vm_area_struct *next;

    if (newbrk < mm->brk_start || newbrk > mm->mmap_top)
        return old;
    newend = PAGE_ALIGN(newbrk);
    if (newend > oldend) {
        next = find_vma(mm, oldend);
        if (next && next->start < newend)
            return old;
        if (map_region(mm, oldend, newend - oldend, VM_READ | VM_WRITE | VM_EXEC |
                       VM_MAYWRITE, NO_FILE, 0, 0))
            return old;
    } else if (newend < oldend && do_munmap(mm, newend, oldend - newend)) {
        return old;
    }
    mm->brk = newbrk;
    return newbrk;
}

/* ---- mremap ---- */

/* Move the PTEs of [old, old+len) to new; the emulator moves the bytes. */
static int move_page_tables(struct mm_struct *mm, uint32_t old, uint32_t new, uint32_t len)
{
    for (uint32_t off = 0; off < len; off += PAGE_SIZE) {
        uint32_t *from = pte_lookup(mm->pgd, old + off), *to;
        if (!from || !(*from & (X86_PTE_PRESENT | PTE_SW_PROTNONE)))
            continue;
        to = pte_alloc(mm->pgd, new + off);
        if (!to)
            return -ENOMEM;
    }
    mm_call(MM_MOVE, 0, old, len, new, 0, 0);
    for (uint32_t off = 0; off < len; off += PAGE_SIZE) {
        uint32_t *from = pte_lookup(mm->pgd, old + off);
        if (!from || !(*from & (X86_PTE_PRESENT | PTE_SW_PROTNONE)))
            continue;
        *pte_lookup(mm->pgd, new + off) = (new + off) | (*from & (PAGE_SIZE - 1));
        *from = 0;
        flush_tlb_page(old + off);
    }
    return 0;
}

static long move_vma(struct mm_struct *mm, struct vm_area_struct *vma, uint32_t old,
                     uint32_t oldlen, uint32_t new, uint32_t newlen)
{
    struct vm_area_struct *n;
    int err;

    if ((err = do_munmap(mm, new, newlen)) != 0)
        return err;
    vma = find_vma(mm, old);
    n = vma_clone(vma, old, old + oldlen);
    if (!n)
        return -ENOMEM;
    n->offset = vma->offset + (old - vma->start);
    if (n->file != NO_FILE)
        n->file_end = vma->file_end > old ? vma->file_end - old + new : new;
    n->start = new;
    n->end = new + newlen;
    if ((err = insert_vma(mm, n)) != 0 ||
        (err = move_page_tables(mm, old, new, oldlen)) != 0) {
        if (!list_empty(&n->list))
            remove_vma(mm, n);
        else
            vma_free(n);
        return err;
    }
    /* The old range has no pages left: unmapping it only drops the VMA. */
    do_munmap(mm, old, oldlen);
    return new;
}

long sys_mremap(uint32_t old, uint32_t oldlen, uint32_t newlen,
                uint32_t flags, uint32_t new, uint32_t a6)
{
    struct mm_struct *mm = current->mm;
    struct vm_area_struct *vma, *next;

    if ((old & (PAGE_SIZE - 1)) || (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED)))
        return -EINVAL;
    if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
        return -EINVAL;
    if (newlen == 0 || oldlen > USER_SPACE_TOP || newlen > USER_SPACE_TOP)
        return -EINVAL;
    oldlen = PAGE_ALIGN(oldlen);
    newlen = PAGE_ALIGN(newlen);
    if (newlen / PAGE_SIZE > user_pages_limit)
        return -ENOMEM;
    if (old > USER_SPACE_TOP - oldlen || oldlen == 0)
        return -EINVAL;
    vma = find_vma(mm, old);
    if (!vma || vma->start > old || vma->end < old + oldlen)
        return -EFAULT;
    if (flags & MREMAP_FIXED) {
        if ((new & (PAGE_SIZE - 1)) || new < USER_SPACE_BASE ||
            new > USER_SPACE_TOP - newlen)
            return -EINVAL;
        if (new < old + oldlen && old < new + newlen)
            return -EINVAL;
        if (vma->shm && newlen > oldlen)
            return -ENOMEM;
        if (newlen < oldlen) {
            do_munmap(mm, old + newlen, oldlen - newlen);
            oldlen = newlen;
        }
        return move_vma(mm, vma, old, oldlen, new, newlen);
    }
    if (newlen <= oldlen) {
        if (newlen < oldlen)
            do_munmap(mm, old + newlen, oldlen - newlen);
        return old;
    }
    /* Grow in place if nothing is in the way. */
    next = find_vma(mm, old + oldlen);
    if (vma->end == old + oldlen && old <= USER_SPACE_TOP - newlen &&
        (!next || next->start >= old + newlen) && !vma->shm) {
        vma->end = old + newlen;
        return old;
    }
    if (!(flags & MREMAP_MAYMOVE) || vma->shm)
        return -ENOMEM;
    new = get_unmapped_area(mm, newlen);
    if (new == 0)
        return -ENOMEM;
    return move_vma(mm, vma, old, oldlen, new, newlen);
}
