/*
 * Kernel memory: a page allocator that frees (one bit per page of kernel
 * RAM above the kernel image), and kmalloc for the small objects (tasks,
 * files, VMAs, pipes' bookkeeping) on top of it, in size classes whose
 * pages stay with their class once used. Nothing here panics: a caller that
 * cannot get memory fails its system call (ENOMEM, EAGAIN) or, for a page
 * fault, the process.
 */
#include "kernel.h"
#include "mm.h"
#include "smp.h"

#define MAX_PAGES (KERNEL_RAM_SIZE / PAGE_SIZE)
#define BITS      32

static uint32_t page_map[MAX_PAGES / BITS];   /* 1: in use */
static uint32_t first_page, npages, nfree, hint;

static int page_used(uint32_t i)
{
    return (page_map[i / BITS] >> (i % BITS)) & 1;
}

static void mark(uint32_t i, uint32_t n, int used)
{
    for (uint32_t j = i; j < i + n; j++) {
        if (used)
            page_map[j / BITS] |= 1u << (j % BITS);
        else
            page_map[j / BITS] &= ~(1u << (j % BITS));
    }
}

void page_alloc_init(uint32_t start, uint32_t end)
{
    first_page = (PAGE_ALIGN(start) - KERNEL_BASE) / PAGE_SIZE;
    npages = (end - KERNEL_BASE) / PAGE_SIZE;
    if (npages > MAX_PAGES)
        npages = MAX_PAGES;
    mark(0, first_page, 1);
    nfree = npages - first_page;
    hint = first_page;
}

static uint32_t page_addr(uint32_t i)
{
    return KERNEL_BASE + i * PAGE_SIZE;
}

/* n free pages in a row starting at a multiple of align; from i on. */
static uint32_t find_run(uint32_t i, uint32_t n, uint32_t align)
{
    i = (i + align - 1) / align * align;
    while (i + n <= npages) {
        uint32_t j = 0;
        while (j < n && !page_used(i + j))
            j++;
        if (j == n)
            return i;
        i = (i + j + 1 + align - 1) / align * align;
    }
    return 0;
}

/* On SMP another CPU may be allocating or freeing (nothing without it). */
static spinlock_t page_lock = SPIN_LOCK_UNLOCKED("the page allocator");

void *alloc_pages_aligned(uint32_t n, uint32_t align)
{
    uint32_t i;

    spin_lock(&page_lock);
    if (n == 0 || n > nfree) {
        spin_unlock(&page_lock);
        return NULL_PTR;
    }
    i = find_run(hint, n, align);
    if (i == 0 && hint > first_page)
        i = find_run(first_page, n, align);
    if (i == 0) {
        spin_unlock(&page_lock);
        return NULL_PTR;
    }
    mark(i, n, 1);
    nfree -= n;
    if (n == 1)
        hint = i + 1;
    spin_unlock(&page_lock);
    return (void *)page_addr(i);
}

void *alloc_pages(uint32_t n)
{
    return alloc_pages_aligned(n, 1);
}

/* Linux 2.5 zeroes the page with clear_page (one rep stosl of 1024
 * dwords); the emulator zeroes it and charges that. */
void *get_zeroed_page(void)
{
    void *p = alloc_pages(1);

    if (p)
        mm_call(MM_CLEAR_KERNEL, 0, (uint32_t)p, 0, 0, 0, 0);
    return p;
}

void free_pages(void *p, uint32_t n)
{
    uint32_t i = ((uint32_t)p - KERNEL_BASE) / PAGE_SIZE;

    if (!p)
        return;
    if ((uint32_t)p & (PAGE_SIZE - 1) || i < first_page || i + n > npages)
        panic("free_pages: bad page %08x", (uint32_t)p);
    spin_lock(&page_lock);
    for (uint32_t j = i; j < i + n; j++)
        if (!page_used(j))
            panic("free_pages: page %08x is already free", page_addr(j));
    mark(i, n, 0);
    nfree += n;
    if (i < hint)
        hint = i;
    spin_unlock(&page_lock);
}

uint32_t nr_free_pages(void)
{
    return nfree;
}

/* ---- kmalloc: size classes of 16 to 2048 bytes ---- */

#define NCLASSES  8
#define MIN_SHIFT 4

struct free_obj {
    struct free_obj *next;
};

static struct free_obj *free_lists[NCLASSES];

static int size_class(size_t size)
{
    int c = 0;

    while (c < NCLASSES && ((size_t)1 << (MIN_SHIFT + c)) < size)
        c++;
    return c;
}

/* Carve one page into objects of class c. */
static int refill(int c)
{
    uint32_t size = 1u << (MIN_SHIFT + c);
    uint8_t *page = alloc_pages(1);

    if (!page)
        return -ENOMEM;
    for (uint32_t off = 0; off + size <= PAGE_SIZE; off += size) {
        struct free_obj *o = (struct free_obj *)(page + off);
        o->next = free_lists[c];
        free_lists[c] = o;
    }
    return 0;
}

void *kmalloc(size_t size)
{
    int c = size_class(size);
    struct free_obj *o;

    if (size == 0 || c == NCLASSES)
        return NULL_PTR;
    if (!free_lists[c] && refill(c))
        return NULL_PTR;
    o = free_lists[c];
    free_lists[c] = o->next;
    return o;
}

void *kzalloc(size_t size)
{
    void *p = kmalloc(size);

    if (p)
        memset(p, 0, size);
    return p;
}

/* The caller says how big it was: objects carry no header. */
void kfree(void *p, size_t size)
{
    struct free_obj *o = p;
    int c = size_class(size);

    if (!p)
        return;
    o->next = free_lists[c];
    free_lists[c] = o;
}
