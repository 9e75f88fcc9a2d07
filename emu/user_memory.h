/*
 * The program's memory as ring 3 sees it: every read goes through the
 * current page tables, a page at a time, and stops at the first page ring 3
 * could not read. Tools that show what a system call read or wrote (the
 * strace arguments) read only this way.
 */
#ifndef EMU_USER_MEMORY_H
#define EMU_USER_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "machine.h"

/* Copy up to len bytes at addr into buf; returns how many could be read. */
size_t user_read(struct machine *m, uint32_t addr, void *buf, size_t len);
/* A user word; false if ring 3 could not read all of it. */
bool user_read_u32(struct machine *m, uint32_t addr, uint32_t *out);

#endif
