/*
 * Demand paging. A user page exists once it is touched: the page fault
 * handler finds the VMA, grows the stack down if need be (to 8 MiB), and
 * maps a page at the address: zeroed (the emulator zeroes it; the model
 * charges what clear_page costs), read from the VMA's file, or the shared
 * object's. A private page of a file mapping is mapped read-only until its
 * first write, which is charged as the copy Linux would make then.
 *
 * Every process's private pages and every shared object's pages count
 * against --mem (user_pages_limit); a fault that needs a page beyond it
 * kills the process with SIGSEGV.
 */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

uint32_t user_pages_limit, user_pages;

uint32_t vma_pte_flags(uint32_t vm_flags)
{
    if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
        return PTE_SW_PROTNONE;
    return X86_PTE_PRESENT | X86_PTE_USER | X86_PTE_ACCESSED |
           ((vm_flags & VM_WRITE) ? X86_PTE_RW | X86_PTE_DIRTY : 0);
}

static int file_private(const struct vm_area_struct *vma)
{
    return vma->file != NO_FILE && !(vma->flags & VM_SHARED);
}

/* The bytes of the file that page holds, 0 to PAGE_SIZE. */
static uint32_t file_bytes(const struct vm_area_struct *vma, uint32_t page)
{
    if (vma->file_end <= page)
        return 0;
    return vma->file_end - page < PAGE_SIZE ? vma->file_end - page : PAGE_SIZE;
}

/* A page for addr in vma, whose PTE is empty. */
static int do_no_page(struct mm_struct *mm, struct vm_area_struct *vma, uint32_t page,
                      uint32_t *pte, int write)
{
    uint32_t flags = vma_pte_flags(vma->flags);

    if (vma->shm) {
        long r = mm_call(MM_SHM_FAULT, 0, page, 0, user_pages < user_pages_limit, 0, 0);
        if (r < 0)
            return -ENOMEM;
        user_pages += (uint32_t)r;
        *pte = page | flags;
        return 0;
    }
    if (user_pages >= user_pages_limit)
        return -ENOMEM;
    user_pages++;
    mm->rss++;
    if (file_private(vma) && !write)
        flags &= ~(X86_PTE_RW | X86_PTE_DIRTY);
    *pte = page | flags;
    if (vma->file != NO_FILE && file_bytes(vma, page))
        mm_call(MM_FILE, 0, page, write && file_private(vma), vma->file,
                file_bytes(vma, page), vma->offset + (page - vma->start));
    else
        mm_call(MM_CLEAR, 0, page, 0, 0, 0, 0);
    return 0;
}

/*
 * 0 when the access can be retried, -EFAULT when it is an error (SIGSEGV
 * for the program, -EFAULT for the kernel's copy), -ENOMEM when no page is
 * left. user_esp is 0 for the kernel's own accesses.
 */
int handle_mm_fault(struct mm_struct *mm, uint32_t addr, uint32_t error_code,
                    uint32_t user_esp)
{
    struct vm_area_struct *vma = find_vma(mm, addr);
    int write = (error_code & X86_PF_WRITE) != 0;
    uint32_t page = PAGE_DOWN(addr), *pte;

    if (!vma)
        return -EFAULT;
    if (vma->start > addr) {
        /* Linux 2.5's check: a push or pusha may touch 32 bytes below ESP,
         * nothing further. */
        if (!(vma->flags & VM_GROWSDOWN))
            return -EFAULT;
        if ((error_code & X86_PF_USER) && addr + 32 < user_esp)
            return -EFAULT;
        if (expand_stack(mm, vma, addr))
            return -EFAULT;
    }
    if (write ? !(vma->flags & VM_WRITE) : !(vma->flags & (VM_READ | VM_EXEC | VM_WRITE)))
        return -EFAULT;
    pte = pte_alloc(mm->pgd, page);
    if (!pte)
        return -ENOMEM;
    if (*pte & X86_PTE_PRESENT) {
        /* The first write to a private page of a file mapping: the copy. */
        if (!write || (*pte & X86_PTE_RW))
            return -EFAULT;
        *pte |= X86_PTE_RW | X86_PTE_DIRTY;
        flush_tlb_page(page);
        if (file_private(vma))
            mm_call(MM_COW, 0, page, 0, 0, 0, 0);
        return 0;
    }
    if (*pte & PTE_SW_PROTNONE) {
        /* Kept while inaccessible; the VMA allows it now. */
        *pte = page | vma_pte_flags(vma->flags);
        return 0;
    }
    return do_no_page(mm, vma, page, pte, write);
}

/* The pages of [start, end) of vma go: PTEs cleared, pages uncounted, the
 * emulator told first (the code there may still be translated). */
void zap_page_range(struct mm_struct *mm, struct vm_area_struct *vma,
                    uint32_t start, uint32_t end)
{
    if (start >= end)
        return;
    mm_call(MM_RELEASE, 0, start, end - start, 0, 0, 0);
    for (uint32_t va = start; va < end; va += PAGE_SIZE) {
        uint32_t *pte = pte_lookup(mm->pgd, va);
        if (!pte || !(*pte & (X86_PTE_PRESENT | PTE_SW_PROTNONE)))
            continue;
        *pte = 0;
        flush_tlb_page(va);
        if (!vma->shm) {
            mm->rss--;
            user_pages--;
        }
    }
}

/* fork: the child's PTEs for vma, with the accessed bit clear (the child
 * has touched nothing yet). The emulator copies the bytes (MM_CLONE). */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src,
                    struct vm_area_struct *vma)
{
    for (uint32_t va = vma->start; va < vma->end; va += PAGE_SIZE) {
        uint32_t *from = pte_lookup(src->pgd, va), *to;
        if (!from || !(*from & (X86_PTE_PRESENT | PTE_SW_PROTNONE)))
            continue;
        to = pte_alloc(dst->pgd, va);
        if (!to)
            return -ENOMEM;
        *to = *from & ~X86_PTE_ACCESSED;
        if (!vma->shm)
            dst->rss++;
    }
    return 0;
}

void change_protection(struct mm_struct *mm, uint32_t start, uint32_t end,
                       uint32_t vm_flags)
{
    for (uint32_t va = start; va < end; va += PAGE_SIZE) {
        uint32_t *pte = pte_lookup(mm->pgd, va);
        if (!pte || !(*pte & (X86_PTE_PRESENT | PTE_SW_PROTNONE)))
            continue;
        *pte = va | vma_pte_flags(vm_flags);
        flush_tlb_page(va);
    }
}

static const char *oom_note(int err)
{
    return err == -ENOMEM ? "out of memory (--mem)" : NULL_PTR;
}

void do_page_fault(struct trap_frame *tf)
{
    uint32_t addr = read_cr2();
    struct mm_struct *mm = current->mm;
    int user = user_mode(tf->xcs), err = -EFAULT;
    uint32_t fixup;

    /* Interrupts were off for the CR2 read (an interrupt gate); the work
     * below may take long, but nothing here can be interrupted anyway. */
    if (addr < USER_SPACE_TOP && mm && !(tf->error_code & X86_PF_RSVD)) {
        err = handle_mm_fault(mm, addr, tf->error_code, user ? tf->esp : 0);
        if (!err)
            return;
    }
    if (user) {
        mm_call(MM_BAD_FAULT, 0, addr, 0, tf->error_code, tf->eip, 0);
        user_fault(tf, addr, SIGSEGV,
                   (tf->error_code & X86_PF_PROT) ? SEGV_ACCERR : SEGV_MAPERR, addr,
                   oom_note(err));
        return;
    }
    fixup = search_exception_table(tf->eip);
    if (fixup) {
        tf->eip = fixup;
        return;
    }
    panic("kernel page fault: error %x at eip %08x cr2 %08x", tf->error_code, tf->eip,
          addr);
}
