/* Size of sys_call_table; shared by C and entry.S. */
#ifndef KERNEL_SYSCALL_NR_H
#define KERNEL_SYSCALL_NR_H
#define NR_syscalls 1000
#define NR_sysemu_args6 999
#endif
