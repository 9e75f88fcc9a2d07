/* The errno values: guest/linux_abi.def (generated linux_abi.h). */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H
#include "linux_abi.h"
#endif
