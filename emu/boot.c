/* Booting: the kernel image, the program file and the boot record. */
#include "boot.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The program's file image goes to FILE_AREA_ADDR; the kernel parses it. */
static int load_program_file(struct machine *m, struct boot_record *br)
{
    const char *path = m->opts->program;
    if (m->opts->program_image) {
        size_t size = m->opts->program_size;
        if (size > FILE_AREA_MAX)
            return machine_fail(m, 126, "%s: too large (%zu bytes; at most %u)", path,
                                size, FILE_AREA_MAX);
        if (size)
            memcpy(guest_ptr(&m->mem, FILE_AREA_ADDR, (uint32_t)size),
                   m->opts->program_image, size);
        br->image_addr = FILE_AREA_ADDR;
        br->image_size = (uint32_t)size;
        return 0;
    }
    /* Non-blocking, so that a FIFO is refused below instead of waiting
     * for a writer in open(). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return machine_fail(m, errno == ENOENT ? 127 : 126, "%s: %s", path,
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return machine_fail(m, 126, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > FILE_AREA_MAX) {
        close(fd);
        return machine_fail(m, 126, "%s: too large (%lld bytes; at most %u)", path,
                            (long long)st.st_size, FILE_AREA_MAX);
    }
    uint8_t *dst = guest_ptr(&m->mem, FILE_AREA_ADDR, (uint32_t)st.st_size);
    size_t done = 0;
    while (dst && done < (size_t)st.st_size) {
        ssize_t n = read(fd, dst + done, (size_t)st.st_size - done);
        if (n <= 0) {
            close(fd);
            return machine_fail(m, 126, "%s: read error", path);
        }
        done += (size_t)n;
    }
    close(fd);
    br->image_addr = FILE_AREA_ADDR;
    br->image_size = (uint32_t)st.st_size;
    return 0;
}

static int pack_strings(struct machine *m, char *const *strs, int count, uint32_t *used)
{
    for (int i = 0; i < count; i++) {
        size_t len = strlen(strs[i]) + 1;
        if (len > BOOT_ARGS_MAX - *used)
            return machine_fail(m, 126, "argument list too long (more than %u bytes)",
                                BOOT_ARGS_MAX);
        memcpy(guest_ptr(&m->mem, BOOT_ARGS_ADDR + *used, (uint32_t)len), strs[i], len);
        *used += (uint32_t)len;
    }
    return 0;
}

int machine_write_boot_record(struct machine *m)
{
    struct boot_record br = {
        .magic = BOOT_MAGIC,
        .version = BOOT_VERSION,
        .cpu_khz = m->cpu.model->clock_mhz * 1000,
        .epoch_sec = m->opts->epoch_sec,
    };
    int rc = load_program_file(m, &br);
    if (rc)
        return rc;
    int envc = 0;
    while (m->opts->envp && m->opts->envp[envc])
        envc++;
    uint32_t used = 0;
    char *const *argv = m->opts->argv;
    if (m->opts->argv0 && m->opts->argc > 0) {
        char *const first[1] = { (char *)m->opts->argv0 };
        if ((rc = pack_strings(m, first, 1, &used)))
            return rc;
        argv++;
    }
    int rest = m->opts->argc - (argv - m->opts->argv);
    if ((rc = pack_strings(m, argv, rest, &used)) ||
        (rc = pack_strings(m, m->opts->envp, envc, &used)))
        return rc;
    br.args_addr = BOOT_ARGS_ADDR;
    br.args_size = used;
    br.argc = (uint32_t)m->opts->argc;
    br.envc = (uint32_t)envc;
    for (int i = 0; i < 16; i++)
        br.random[i] = (uint8_t)(0x5a ^ (i * 37));
    memcpy(guest_ptr(&m->mem, BOOT_RECORD_ADDR, sizeof br), &br, sizeof br);
    return 0;
}

int machine_boot_image(struct machine *m, const uint8_t *image, size_t size)
{
    char err[256];
    int rc;
    if (ksyms_load(&m->ksyms, image, size, err, sizeof err) ||
        kernel_load(image, size, &m->mem, err, sizeof err))
        return machine_fail(m, 125, "%s", err);
    if (hostfs_init(&m->fs, m->opts->root, err, sizeof err))
        return machine_fail(m, 2, "%s", err);
    if ((rc = machine_write_boot_record(m)))
        return rc;
    reg_write(m, UC_X86_REG_EBX, BOOT_RECORD_ADDR);
    reg_write(m, UC_X86_REG_EIP, m->ksyms.entry);
    return 0;
}

int machine_boot(struct machine *m)
{
    return machine_boot_image(m, kernel_image_start,
                              (size_t)(kernel_image_end - kernel_image_start));
}
