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
 * (the saved copy, or zeros for a page the snapshot did not have), protects
 * them again, and tells the engine (engine.h, quirk 23). So a restore costs
 * in proportion to what the run wrote.
 *
 * A host system call that writes into a protected page would fail with
 * EFAULT instead of faulting: snapshot_take refuses a machine that could
 * make one (--root, or guest reads of the host's stdin).
 */
#ifndef EMU_SNAPSHOT_H
#define EMU_SNAPSHOT_H

#include <stddef.h>
#include "machine.h"

struct snapshot;

/* The machine as it is now, or NULL with the reason in err. */
struct snapshot *snapshot_take(struct machine *m, char *err, size_t errlen);
/* Back to the snapshot: 0, or -1 when it cannot be (the run spent engine
 * state that does not come back, or wrote more pages than are logged):
 * then the machine must be built anew. */
int snapshot_restore(struct machine *m, struct snapshot *s);
/* Pages the last run wrote (what the next restore costs). */
size_t snapshot_dirty_pages(const struct snapshot *s);
void snapshot_free(struct snapshot *s);

#endif
