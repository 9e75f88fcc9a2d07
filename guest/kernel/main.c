/* start_kernel: bring the machine up and start the boot program. */
#include "kernel.h"

extern char init_thread_union[];
struct thread_info *current;

__attribute__((noreturn)) void start_kernel(const struct boot_record *record)
{
    boot = record;
    current = (struct thread_info *)init_thread_union;
    if (boot->magic != BOOT_MAGIC || boot->version != BOOT_VERSION)
        panic("bad boot record");
    current->pid = 1;

    identify_cpu();
    trap_init();
    paging_init();
    tss_init((uint32_t)init_thread_union + THREAD_SIZE);
    time_init();
    random_init();
    sysenter_setup();

    struct exec_result res;
    exec_boot_program(&res);
    current->brk_start = current->brk = res.brk;
    current->mmap_top = USER_MMAP_TOP;
    enter_user(res.entry, res.stack);
}
