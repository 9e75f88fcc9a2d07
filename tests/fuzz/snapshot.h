/*
 * A machine kept at one moment, to run many inputs from it without booting
 * again (the fuzz targets: tests/fuzz/harness.c). snapshot_take records
 * the CPU state, the machine's own state, its code hooks and guest memory;
 * snapshot_restore puts all of it back.
 *
 * Memory is copied at snapshot_take only where the host has committed it
 * (the pages the boot touched), and every guest page is then write-
 * protected on the host: the first write to a page after a take or a
 * restore, by the engine's code or by the emulator, faults once; the fault
 * handler notes the page and opens it. A restore rewrites only those pages
 * (the saved copy, or zeros for a page the snapshot did not have) and
 * tells the engine (engine.h, quirk 23). So a restore costs in proportion
 * to what the run wrote. A page once written stays open (up to 256 of
 * them: then they are protected again): runs tend to write the same pages
 * (stacks, page tables, the program's data), and a fault and two mprotect
 * calls, each a host TLB flush, cost more than comparing 4 KiB. Each
 * restore compares the open pages with the saved copies and rewrites,
 * and has the engine forget, those that differ.
 *
 * A host system call that writes into a protected page would fail with
 * EFAULT instead of faulting: snapshot_take refuses a machine that could
 * make one (--root, or guest reads of the host's stdin).
 *
 * What lives outside guest memory comes back too. The address spaces
 * (addrspace.h: the stores of the spaces not in the window, the shared
 * objects, which space is current, the code notes) are saved at the take
 * and rebuilt only if the run changed them (a fork, an exit, a shared
 * map). The window is guest memory, watched as above, with two
 * exceptions the address spaces report: pages a munmap or mremap drops
 * are restored although nothing wrote them, and a switch, which moves the
 * window's pages out with mremap, ends the watch (the window is made one
 * writable mapping again, as mremap needs): the restore then builds the
 * window anew from the saved pages. The file tree (vfs.h) is copied at the
 * take and copied again at a restore if the run changed it. The timer and
 * interrupt controller, the process table, pipes and signals live in
 * struct machine or in guest memory. The engine forgets the translations
 * of every page rewritten and, after a switch or a fork, of the user code
 * the spaces noted.
 */
#ifndef EMU_SNAPSHOT_H
#define EMU_SNAPSHOT_H

#include <stddef.h>
#include "../../emu/machine/machine.h"
#include "../../emu/mm/addrspace.h"
#include "../../emu/vfs/vfs.h"

/* What a snapshot keeps of the address spaces (addrspace_save.c): the
 * stores and their bytes, the shared objects and theirs, the pieces,
 * which space is current, the code notes and the counters. */
struct as_saved;
/* NULL if the host has no memory for it. */
struct as_saved *as_save(const struct addrspaces *as);
/* 0, or -errno if the host failed (then as must be freed). The stores and
 * objects are rebuilt only if they changed since; the window is not
 * touched. */
int as_restore(struct addrspaces *as, const struct as_saved *s);
void as_saved_free(struct as_saved *s);
/* Did anything outside the window change since s (tests)? */
bool as_changed_since(const struct addrspaces *as, const struct as_saved *s);

/* A copy of the tree, its handles and its counters, to go back to later
 * (vfs_clone.c); NULL if the host has no memory for it, or if v has a
 * lower tree (whose host descriptors are not the copy's to share). */
struct vfs *vfs_clone(const struct vfs *v);
/* Counts the calls that may have changed the in-memory layer or the
 * handles (lookups that read a lower tree aside): equal counts, no change. */
uint64_t vfs_changes(const struct vfs *v);

struct snapshot;

/* The machine as it is now, or NULL with the reason in err. */
struct snapshot *snapshot_take(struct machine *m, char *err, size_t errlen);
/* Back to the snapshot: 0, or -1 when it cannot be (the run spent engine
 * state that does not come back, wrote more pages than are logged, or the
 * host refused memory): then the machine must be built anew. The machine's
 * address spaces must outlive the snapshot (snapshot_free before
 * machine_destroy). */
int snapshot_restore(struct machine *m, struct snapshot *s);
void snapshot_free(struct snapshot *s);

#endif
