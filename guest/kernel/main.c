/* start_kernel: bring the machine up and start the boot program as pid 1. */
#include "kernel.h"
#include "mm.h"
#include "sched.h"

extern char _end[];
static struct mm_struct init_mm;

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
    init_mm.pgd = swapper_pg_dir;
    init_mm.users = 1;
    init_task->mm = init_task->active_mm = &init_mm;
    exec_boot_program(&res);
    init_mm.brk_start = init_mm.brk = res.brk;
    init_mm.mmap_top = USER_MMAP_TOP;
    enter_user(res.entry, res.stack);
}
