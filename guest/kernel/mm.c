/*
 * Paging. The emulator backs every address the guest may map at the same
 * physical address (Unicorn 2.0.1 does not translate), so a page table
 * entry here always points a page at itself: what the tables decide is
 * whether a page is present, user-accessible and writable.
 */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

#define PDE_INDEX(va) ((va) >> 22)
#define PTE_INDEX(va) (((va) >> 12) & 0x3ff)

uint32_t *swapper_pg_dir;

static void *alloc_kernel_page(void)
{
    void *page = get_zeroed_page();

    if (!page)
        panic("out of kernel memory");
    return page;
}

static inline void invlpg(uint32_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* The page table for va; allocated with table_flags when absent. */
static uint32_t *page_table(uint32_t va, uint32_t table_flags, int create)
{
    uint32_t *pde = &swapper_pg_dir[PDE_INDEX(va)];
    if (!(*pde & X86_PTE_PRESENT)) {
        if (!create)
            return NULL_PTR;
        *pde = (uint32_t)alloc_kernel_page() | table_flags;
    }
    return (uint32_t *)(*pde & ~(PAGE_SIZE - 1));
}

static void set_pte(uint32_t va, uint32_t flags, uint32_t table_flags)
{
    page_table(va, table_flags, 1)[PTE_INDEX(va)] = va | flags;
    invlpg(va);
}

void paging_init(void)
{
    swapper_pg_dir = alloc_kernel_page();
    for (uint32_t va = KERNEL_BASE; va < KERNEL_BASE + KERNEL_RAM_SIZE; va += PAGE_SIZE)
        set_pte(va, X86_PTE_PRESENT | X86_PTE_RW, _KERNPG_TABLE);
    __asm__ volatile("movl %0, %%cr3" : : "r"(swapper_pg_dir) : "memory");
    uint32_t cr0;
    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 | X86_CR0_PG | X86_CR0_WP) : "memory");
}

/*
 * A fixmap page: its page table gets the user bit (_PAGE_TABLE), as the
 * sysenter patch changed one_page_table_init to do, or no PTE below it could
 * ever be user-accessible.
 */
void set_fixmap(uint32_t vaddr, uint32_t flags)
{
    set_pte(vaddr, flags, _PAGE_TABLE);
}

static int user_range_ok(uint32_t start, uint32_t len)
{
    return (start & (PAGE_SIZE - 1)) == 0 && start >= USER_SPACE_BASE &&
           len <= USER_SPACE_TOP - start;
}

static uint32_t *user_pte(uint32_t va, int create)
{
    uint32_t *table = page_table(va, _PAGE_TABLE, create);
    return table ? &table[PTE_INDEX(va)] : NULL_PTR;
}

int map_user_range(uint32_t start, uint32_t len, int writable)
{
    len = PAGE_ALIGN(len);
    if (!user_range_ok(start, len))
        return -EINVAL;
    for (uint32_t va = start; va < start + len; va += PAGE_SIZE) {
        uint32_t *pte = user_pte(va, 1);
        if (*pte & X86_PTE_PRESENT) {
            if (writable)
                *pte |= X86_PTE_RW;
        } else {
            /* Zero it through a kernel-writable mapping, then hand it out. */
            *pte = va | X86_PTE_PRESENT | X86_PTE_RW;
            invlpg(va);
            memset((void *)va, 0, PAGE_SIZE);
            *pte = va | (writable ? PAGE_SHARED : PAGE_READONLY);
        }
        invlpg(va);
    }
    return 0;
}

int protect_user_range(uint32_t start, uint32_t len, int writable)
{
    len = PAGE_ALIGN(len);
    if (!user_range_ok(start, len) || !user_range_mapped(start, len))
        return -ENOMEM;
    for (uint32_t va = start; va < start + len; va += PAGE_SIZE) {
        uint32_t *pte = user_pte(va, 0);
        *pte = va | (writable ? PAGE_SHARED : PAGE_READONLY);
        invlpg(va);
    }
    return 0;
}

void unmap_user_range(uint32_t start, uint32_t len)
{
    len = PAGE_ALIGN(len);
    if (!user_range_ok(start, len))
        return;
    for (uint32_t va = start; va < start + len; va += PAGE_SIZE) {
        uint32_t *pte = user_pte(va, 0);
        if (pte && (*pte & X86_PTE_PRESENT)) {
            *pte = 0;
            invlpg(va);
        }
    }
}

int user_range_mapped(uint32_t start, uint32_t len)
{
    len = PAGE_ALIGN(len);
    if (!user_range_ok(start, len))
        return 0;
    for (uint32_t va = start; va < start + len; va += PAGE_SIZE) {
        uint32_t *pte = user_pte(va, 0);
        if (!pte || !(*pte & X86_PTE_PRESENT))
            return 0;
    }
    return 1;
}

void load_cr3(uint32_t *pgd)
{
    __asm__ volatile("movl %0, %%cr3" : : "r"(pgd) : "memory");
}

void switch_mm(struct mm_struct *prev, struct mm_struct *next)
{
    (void)prev;
    load_cr3(next->pgd);
}
