/* One system call through AT_SYSINFO, then exit: for the reference traces.
 *   one_call gettimeofday|getpid|gettimeofday-edge
 * gettimeofday-edge hands the kernel a timeval whose first word is the last
 * one of the last mapped page: the copy to user space faults on its second
 * word, and the call must return -EFAULT. */
#include "mini/mini.h"

#define PAGE 4096u

int main(int argc, char **argv)
{
    struct timeval tv;
    if (argc > 1 && !strcmp(argv[1], "getpid"))
        return syscall0(SYS_getpid) == 2 ? 0 : 1;   /* the boot program: init is 1 */
    if (argc > 1 && !strcmp(argv[1], "gettimeofday-edge")) {
        uint32_t end = ((uint32_t)syscall1(SYS_brk, 0) + PAGE - 1) & ~(PAGE - 1);
        return syscall2(SYS_gettimeofday, end - 4, 0) == -14 ? 0 : 1;
    }
    return syscall2(SYS_gettimeofday, &tv, 0) == 0 ? 0 : 1;
}
