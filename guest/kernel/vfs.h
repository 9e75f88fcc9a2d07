/*
 * The file tree, as the kernel reaches it: every operation is one
 * HC_PORT_VFS request (abi.h) to the emulator's vfs (emu/vfs/vfs.h), which
 * resolves paths, keeps the bytes and never touches the host's files.
 * Paths and data pass through kernel buffers; the kernel copies user
 * memory in and out, keeps the descriptors, offsets and open modes, and
 * counts its references to vfs handles (vfs_get/vfs_put).
 */
#ifndef KERNEL_VFS_H
#define KERNEL_VFS_H

#include "kernel.h"

#define VFS_CHUNK 16384   /* the bounce buffer: the most one request moves */

long vfs_call(struct hc_vfs *r);
long vfs_open(uint32_t dir, const char *path, uint32_t len, uint32_t flags, uint32_t mode);
void vfs_get(uint32_t h);
void vfs_put(uint32_t h);
long vfs_pread(uint32_t h, void *buf, uint32_t len, uint64_t pos);
long vfs_pwrite(uint32_t h, const void *buf, uint32_t len, uint64_t pos);
long vfs_fstat(uint32_t h, struct hc_stat *st);
long vfs_stat(uint32_t dir, const char *path, uint32_t len, uint32_t flags,
              struct hc_stat *st);
long vfs_size(uint32_t h, uint64_t *size);
long vfs_exec_ok(uint32_t h);
/* A request with one path (op, dir + path) and the rest in r. */
long vfs_path_op(uint32_t op, uint32_t dir, const char *path, uint32_t len,
                 struct hc_vfs *r);

extern uint8_t vfs_bounce[VFS_CHUNK];  /* one system call uses it at a time */

#endif
