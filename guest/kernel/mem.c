/*
 * /dev/null and /dev/zero, as 2.5.53's drivers/char/mem.c serves them:
 * null reads nothing and swallows every write, zero reads zeros and
 * swallows too. The tree (emu/vfs/vfs_tree.c) holds the nodes, character
 * devices 1,3 and 1,5; open_device gives their files these operations.
 */
#include "kernel.h"
#include "file.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static long read_null(struct file *file, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    return 0;
}

static long write_null(struct file *file, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    return count;
}

/* 2.5.53 clears the user buffer with clear_user (and maps zero pages for
 * big reads); this kernel has no clear_user yet: a copy from zeros. */
static long read_zero(struct file *file, uint32_t buf, uint32_t count, uint64_t *ppos)
{
    static const uint8_t zeros[1024];
    uint32_t written = 0;

    if (!count)
        return 0;
    if (!access_ok(buf, count))
        return -EFAULT;
    while (written < count) {
        uint32_t n = count - written < sizeof(zeros) ? count - written : sizeof(zeros);

        if (copy_to_user(buf + written, zeros, n) != 0)
            break;
        written += n;
    }
    return written ? (long)written : -EFAULT;
}

#define write_zero write_null

const struct file_operations null_fops = { .read = read_null, .write = write_null };
const struct file_operations zero_fops = { .read = read_zero, .write = write_zero };
