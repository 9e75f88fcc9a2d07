/*
 * Page tables. The kernel's half of every page directory (entries 768 and
 * up: kernel RAM and the fixmap) is the same page tables, made at boot in
 * swapper_pg_dir and copied into each new directory; the user half is each
 * process's own. Every page-table entry maps a page at itself (abi.h).
 */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

#define PDE_INDEX(va)  ((va) >> 22)
#define PTE_INDEX(va)  (((va) >> 12) & 0x3ff)
#define USER_PDES      PDE_INDEX(USER_SPACE_TOP)
#define PTRS_PER_TABLE 1024

uint32_t *swapper_pg_dir;

void flush_tlb_page(uint32_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

void load_cr3(uint32_t *pgd)
{
    __asm__ volatile("movl %0, %%cr3" : : "r"(pgd) : "memory");
}

static uint32_t *table_of(uint32_t pde)
{
    return (uint32_t *)(pde & ~(PAGE_SIZE - 1));
}

uint32_t *pte_lookup(uint32_t *pgd, uint32_t va)
{
    uint32_t pde = pgd[PDE_INDEX(va)];

    return (pde & X86_PTE_PRESENT) ? &table_of(pde)[PTE_INDEX(va)] : NULL_PTR;
}

/* The entry for va, with a new zeroed page table under flags if need be. */
static uint32_t *pte_alloc_flags(uint32_t *pgd, uint32_t va, uint32_t flags)
{
    uint32_t *pde = &pgd[PDE_INDEX(va)];

    if (!(*pde & X86_PTE_PRESENT)) {
        uint32_t *table = get_zeroed_page();
        if (!table)
            return NULL_PTR;
        *pde = (uint32_t)table | flags;
    }
    return &table_of(*pde)[PTE_INDEX(va)];
}

uint32_t *pte_alloc(uint32_t *pgd, uint32_t va)
{
    return pte_alloc_flags(pgd, va, _PAGE_TABLE);
}

/* Boot: a kernel page in swapper_pg_dir, whose kernel half every process
 * shares; out of memory here cannot happen on a machine that booted. */
static void set_kernel_pte(uint32_t va, uint32_t flags, uint32_t table_flags)
{
    uint32_t *pte = pte_alloc_flags(swapper_pg_dir, va, table_flags);

    if (!pte)
        panic("out of memory for the kernel's page tables");
    *pte = va | flags;
    flush_tlb_page(va);
}

void paging_init(void)
{
    uint32_t cr0;

    swapper_pg_dir = get_zeroed_page();
    if (!swapper_pg_dir)
        panic("out of memory for the page directory");
    /* Paging is off: no TLB to flush yet, so a table at a time, as Linux's
     * pagetable_init fills them. */
    for (uint32_t base = KERNEL_BASE; base < KERNEL_BASE + KERNEL_RAM_SIZE;
         base += PTRS_PER_TABLE * PAGE_SIZE) {
        uint32_t *pte = pte_alloc_flags(swapper_pg_dir, base, _KERNPG_TABLE);
        if (!pte)
            panic("out of memory for the kernel's page tables");
        for (uint32_t i = 0; i < PTRS_PER_TABLE; i++)
            pte[i] = (base + i * PAGE_SIZE) | X86_PTE_PRESENT | X86_PTE_RW;
    }
    load_cr3(swapper_pg_dir);
    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 | X86_CR0_PG | X86_CR0_WP) : "memory");
}

/*
 * A fixmap page: its page table gets the user bit (_PAGE_TABLE), as the
 * sysenter patch changed one_page_table_init to do, or no PTE below it could
 * ever be user-accessible. Made at boot, before any process's directory.
 */
void set_fixmap(uint32_t vaddr, uint32_t flags)
{
    set_kernel_pte(vaddr, flags, _PAGE_TABLE);
}

uint32_t *pgd_alloc(void)
{
    uint32_t *pgd = get_zeroed_page();

    if (pgd)
        memcpy(pgd + USER_PDES, swapper_pg_dir + USER_PDES,
               (PTRS_PER_TABLE - USER_PDES) * sizeof(uint32_t));
    return pgd;
}

/* The page tables of the user half are the process's own: free them with it. */
void pgd_free(uint32_t *pgd)
{
    for (uint32_t i = 0; i < USER_PDES; i++)
        if (pgd[i] & X86_PTE_PRESENT)
            free_pages(table_of(pgd[i]), 1);
    free_pages(pgd, 1);
}

void switch_mm(struct mm_struct *prev, struct mm_struct *next)
{
    (void)prev;
    mm_call(MM_SWITCH, (uint32_t)next->pgd, 0, 0, 0, 0, 0);
    load_cr3(next->pgd);
}
