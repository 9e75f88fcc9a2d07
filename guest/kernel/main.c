/* start_kernel: bring the machine up and start the boot program as pid 1. */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

extern char _end[];

__attribute__((noreturn)) void start_kernel(const struct boot_record *record)
{
    boot = record;
    if (boot->magic != BOOT_MAGIC || boot->version != BOOT_VERSION)
        panic("bad boot record");

    page_alloc_init((uint32_t)_end, FILE_AREA_ADDR);
    sched_init();
    identify_cpu();
    trap_init();
    paging_init();
    tss_init((uint32_t)init_task->ti + THREAD_SIZE);
    time_init();
    random_init();
    sysenter_setup();

    struct exec_result res;
    struct mm_struct *mm = mm_alloc();
    if (!mm)
        panic("no memory for the first address space");
    user_pages_limit = boot->mem_pages;
    init_task->mm = init_task->active_mm = mm;
    switch_mm(NULL_PTR, mm);
    exec_boot_program(&res);
    mm->brk_start = mm->brk = res.brk;
    enter_user(res.entry, res.stack);
}
