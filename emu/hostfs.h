/*
 * "emu run --root DIR": the read-only file tree the guest kernel reads
 * through the HC_PORT_FS_* hypercalls (guest/abi.h). Every path resolves
 * inside DIR (openat2 with RESOLVE_IN_ROOT); nothing is ever written; only
 * regular files and directories are opened.
 */
#ifndef EMU_HOSTFS_H
#define EMU_HOSTFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../guest/abi.h"
#include "memory.h"

struct hostfs_dirent;

struct hostfs_file {
    int fd;                        /* -1: the slot is free */
    bool dir;
    char *path;                    /* as the guest named it, for paths relative to it */
    struct hostfs_dirent *ents;    /* directories: a sorted snapshot, read at open */
    size_t nents;
};

struct hostfs {
    bool ready;                    /* hostfs_init ran: destroy has work to do */
    int root_fd;                   /* -1 without --root: nothing exists */
    struct hostfs_file files[HC_FS_MAX_FILES];
};

/* root may be NULL (no tree). 0, or -1 with a message in err. */
int hostfs_init(struct hostfs *fs, const char *root, char *err, size_t errlen);
void hostfs_destroy(struct hostfs *fs);
bool hostfs_is_port(uint32_t port);
/* Serve one request; the block and its buffers must lie in kernel memory.
 * 0, or -1 if the block itself is not there (the result is then unset). */
int hostfs_hypercall(struct hostfs *fs, const struct guest_memory *mem, uint32_t port,
                      uint32_t block);

#endif
