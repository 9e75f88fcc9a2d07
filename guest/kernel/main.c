/* start_kernel: bring the machine up and start the boot program as pid 2,
 * a child of init (exit.c). */
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "file.h"
#include "vfs.h"
#include "smp.h"

extern char _end[];

__attribute__((noreturn)) void start_kernel(const struct boot_record *record)
{
    boot = record;
    if (boot->magic != BOOT_MAGIC || boot->version != BOOT_VERSION)
        panic("bad boot record");

    page_alloc_init((uint32_t)_end, KERNEL_BASE + KERNEL_RAM_SIZE);
    sched_init();
    identify_cpu();
    trap_init();
    paging_init();
    tss_init((uint32_t)init_task->ti + THREAD_SIZE);
    time_init();
    timer_init();
    random_init();
#ifdef CONFIG_SMP
    smp_boot_cpus();
    smp_test_hooks_boot();
#endif
    sysenter_setup();
#ifdef SMP_BIG_LOCK
    /* from here the boot CPU holds the big kernel lock until the boot
     * program's first return to user mode (entry.S drops it) */
    lock_kernel();
#endif

    user_pages_limit = boot->mem_pages;
    init_task->files = files_alloc();
    init_task->sighand = sighand_alloc(NULL_PTR);
    init_task->cwd = (uint32_t)vfs_open(HC_VFS_ROOT, "/", 1, O_DIRECTORY | O_RDONLY, 0);
    if (!init_task->files || !init_task->sighand || (int32_t)init_task->cwd < 0 ||
        console_files(init_task->files))
        panic("no memory for the first process");
    exec_boot_program();
    start_user(task_pt_regs(init_task));
}
