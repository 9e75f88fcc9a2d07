/*
 * What Unicorn 2.0.1 keeps in its CPU context but does not expose: the
 * error code of the exception being raised, and the "exception in flight"
 * that turns the next fault into a spurious double fault (upstream #1883,
 * see the facts file). Their offsets are found at start-up by raising known
 * faults on a scratch engine, then used through uc_context_save/restore.
 */
#ifndef EMU_ENGINE_H
#define EMU_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

struct engine_layout {
    size_t context_size;
    size_t error_code_offset;
    size_t old_exception_offset;
};

/* 0, or -1 with a reason in err. */
int engine_probe_layout(struct engine_layout *layout, char *err, size_t errlen);
/* Read the pending error code and mark no exception in flight. */
uint32_t engine_take_exception(uc_engine *uc, uc_context *ctx,
                               const struct engine_layout *layout);

#endif
