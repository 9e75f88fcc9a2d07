/* The guest kernel's file requests (HC_PORT_VFS, guest/abi.h), served from
 * the vfs (vfs.h). */
#ifndef EMU_VFSCALL_H
#define EMU_VFSCALL_H

#include "machine/machine.h"

/* The machine's file tree: the --root directory, if any, under an
 * in-memory layer of --fs-size bytes (and room for the program), whose
 * clock is modeled time. NULL with a one-line reason in err. */
struct vfs *vfscall_new_tree(struct machine *m, uint64_t program_size, char *err,
                             size_t errlen);
/* Serve the struct hc_vfs at block, which lies in kernel memory. */
void vfs_hypercall(struct machine *m, struct hc_vfs *r);

#endif
