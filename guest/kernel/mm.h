/*
 * Memory management: the kernel page allocator and kmalloc
 * (page_alloc.c); per-process address spaces (struct mm_struct: a page
 * directory whose kernel half is shared, and VMAs) with demand paging
 * (memory.c), the system calls that shape them (mmap.c) and the page
 * tables (pgtable.c).
 *
 * Page tables map every user page at itself, on every Unicorn version
 * (abi.h): which process's bytes live at an address is the emulator's
 * business, told by the MM hypercalls (emu/mm/addrspace.c) — which page
 * directory is loaded, which pages a fork copies, which pages to zero.
 */
#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include "kernel.h"
#include "list.h"

/* ---- page_alloc.c ---- */
void page_alloc_init(uint32_t start, uint32_t end);
void *alloc_pages(uint32_t n);                      /* n contiguous pages, or NULL */
void *alloc_pages_aligned(uint32_t n, uint32_t align);
void *get_zeroed_page(void);
void free_pages(void *p, uint32_t n);
uint32_t nr_free_pages(void);
void *kmalloc(size_t size);                         /* at most 2048 bytes */
void *kzalloc(size_t size);
void kfree(void *p, size_t size);
#define kfree_obj(p) kfree((p), sizeof(*(p)))

/* ---- address spaces ---- */
#define VM_READ      0x0001
#define VM_WRITE     0x0002
#define VM_EXEC      0x0004
#define VM_SHARED    0x0008
#define VM_MAYWRITE  0x0020  /* mprotect may add VM_WRITE */
#define VM_GROWSDOWN 0x0100

#define NO_FILE 0xffffffffu

struct shm_object;

struct vm_area_struct {
    struct list_head list;     /* in mm->mmap, by address */
    uint32_t start, end;       /* [start, end), page aligned */
    uint32_t flags;            /* VM_* */
    uint32_t file;             /* vfs handle (one reference), or NO_FILE */
    uint64_t offset;           /* file offset of start */
    uint32_t file_end;         /* bytes at or above this address read as zero */
    struct shm_object *shm;    /* MAP_SHARED|MAP_ANONYMOUS memory */
    uint32_t shm_pgoff;        /* page of shm at start */
};

struct mm_struct {
    uint32_t *pgd;             /* page directory: CR3 */
    struct list_head mmap;     /* VMAs, by address */
    uint32_t map_count;
    uint32_t users;            /* tasks using it: a vfork child shares it */
    uint32_t rss;              /* private user pages present */
    uint32_t brk_start, brk;
    uint32_t mmap_top;         /* new mappings go below this, top down */
    uint32_t start_stack;
    uint32_t exe_file;         /* vfs handle of the program, or NO_FILE */
    struct exe_path *exe_path; /* what /proc/self/exe names, or NULL */
};

/* exe_path.c: a counted path, shared by the spaces fork copies */
struct exe_path {
    uint32_t count, len;
    uint32_t size;             /* of the text's buffer, as allocated */
    char text[];
};
struct exe_path *exe_path_new(const char *dir, uint32_t dlen, const char *name,
                              uint32_t nlen);
struct exe_path *exe_path_field(const char *field, uint32_t len);
struct exe_path *exe_path_lookup(uint32_t dir, const char *path, uint32_t len);
void exe_path_get(struct exe_path *p);
void exe_path_put(struct exe_path *p);
long exe_path_readlink(uint32_t ubuf, uint32_t size);

#define MAX_MAP_COUNT 4096     /* VMAs per process (Linux: 65530) */

/* The most user pages all processes may hold (--mem), and how many they do. */
extern uint32_t user_pages_limit, user_pages;

/* pgtable.c */
void paging_init(void);
uint32_t *pgd_alloc(void);                 /* kernel half filled in; NULL if short */
void pgd_free(uint32_t *pgd);              /* and every user page table */
uint32_t *pte_lookup(uint32_t *pgd, uint32_t va);       /* NULL if no table */
uint32_t *pte_alloc(uint32_t *pgd, uint32_t va);        /* NULL if short */
void flush_tlb_page(uint32_t va);
void load_cr3(uint32_t *pgd);
extern uint32_t *swapper_pg_dir;

/* memory.c */
int handle_mm_fault(struct mm_struct *mm, uint32_t addr, uint32_t error_code,
                    uint32_t user_esp);
void do_page_fault(struct trap_frame *tf);
/* Clear the PTEs of [start, end) and give the pages back. */
void zap_page_range(struct mm_struct *mm, struct vm_area_struct *vma,
                    uint32_t start, uint32_t end);
/* Give a child the PTEs of vma (the emulator copies the bytes). */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src,
                    struct vm_area_struct *vma);
void change_protection(struct mm_struct *mm, uint32_t start, uint32_t end,
                       uint32_t vm_flags);
uint32_t vma_pte_flags(uint32_t vm_flags);

/* mmap.c */
struct mm_struct *mm_alloc(void);
void mmput(struct mm_struct *mm);          /* drop a user; the last frees it */
struct mm_struct *dup_mm(struct mm_struct *old);
struct vm_area_struct *find_vma(struct mm_struct *mm, uint32_t addr);
struct vm_area_struct *find_vma_prev(struct mm_struct *mm, uint32_t addr,
                                     struct vm_area_struct **prev);
struct vm_area_struct *vma_new(uint32_t start, uint32_t end, uint32_t flags);
int insert_vma(struct mm_struct *mm, struct vm_area_struct *vma);
int do_munmap(struct mm_struct *mm, uint32_t start, uint32_t len);
/* A mapping at start (MAP_FIXED semantics: what is there goes). */
int map_region(struct mm_struct *mm, uint32_t start, uint32_t len, uint32_t vm_flags,
               uint32_t file, uint64_t offset, uint32_t file_end);
uint32_t get_unmapped_area(struct mm_struct *mm, uint32_t len);
int expand_stack(struct mm_struct *mm, struct vm_area_struct *vma, uint32_t addr);
void shm_put(struct shm_object *shm);

/* The MM hypercalls (hypercall.c). */
long mm_call(uint32_t op, uint32_t pgd, uint32_t addr, uint32_t len,
             uint32_t arg, uint32_t arg2, uint64_t arg3);

#endif
