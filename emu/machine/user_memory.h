/*
 * The program's memory as ring 3 sees it: every read goes through the
 * current page tables, a page at a time, and stops at the first page ring 3
 * could not read. Tools that show what a system call read or wrote (the
 * strace arguments) read only this way. A page the process may use but
 * has not touched yet is not present (demand paging): a read stopped by
 * one counts in m->user_reads_unpaged, so the reader can try again once
 * the kernel has paged it in.
 */
#ifndef EMU_USER_MEMORY_H
#define EMU_USER_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "machine/machine.h"

/*
 * The page walk behind it: where addr maps to through the current page
 * tables, if the access is allowed; *room: the bytes left in its page.
 * user: as ring 3 (user pages only; with paging off, user space only);
 * write: writable pages only (the kernel sets CR0.WP, so for it too).
 * The debugger reads and writes this way, with the kernel's view above
 * user space (debug_mem.c).
 */
bool page_walk(struct machine *m, uint32_t addr, bool user, bool write, uint32_t *phys,
               uint32_t *room);

/* Copy up to len bytes at addr into buf; returns how many could be read. */
size_t user_read(struct machine *m, uint32_t addr, void *buf, size_t len);
/* A user word; false if ring 3 could not read all of it. */
bool user_read_u32(struct machine *m, uint32_t addr, uint32_t *out);

#endif
