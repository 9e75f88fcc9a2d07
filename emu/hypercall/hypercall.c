/*
 * The guest kernel's requests to the host: "outl %eax, $port" with EAX the
 * address of an argument block in kernel memory (abi.h). Ring 3 cannot get
 * here: the TSS has no I/O bitmap, so its "out" is a #GP.
 */
#include "hypercall/hypercall.h"
#include "cpu/irq.h"
#include "cpu/smp.h"
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hypercall/mm.h"
#include "hypercall/vfs.h"
#include "machine/names.h"

static void (*before_output)(void);

void hypercall_before_output(void (*fn)(void))
{
    before_output = fn;
}

/* Copy guest text into a bounded C string. */
static void guest_text(struct machine *m, uint32_t addr, uint32_t len, char *out, size_t cap)
{
    if (len >= cap)
        len = (uint32_t)cap - 1;
    const uint8_t *p = guest_ptr(&m->mem, addr, len);
    if (!p)
        len = 0;
    for (uint32_t i = 0; i < len; i++)
        out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
    out[len] = 0;
}

static void hc_io(struct machine *m, struct hc_io *io, bool is_write)
{
    uint8_t *buf = guest_ptr(&m->mem, io->buf, io->len);
    if (!buf || !in_kernel_ram(io->buf)) {
        io->result = -EFAULT;
        return;
    }
    if (is_write) {
        if (io->fd != 1 && io->fd != 2) {
            io->result = -EBADF;
            return;
        }
        struct output_capture *c = m->opts->capture;
        if (c && io->fd == 1 && c->cap > c->len + 1) {
            size_t n = io->len < c->cap - c->len - 1 ? io->len : c->cap - c->len - 1;
            memcpy(c->text + c->len, buf, n);
            c->len += n;
            c->text[c->len] = 0;
        }
        if (m->opts->quiet) {
            io->result = (int32_t)io->len;
            return;
        }
        FILE *f = io->fd == 1 ? stdout : stderr;
        if (before_output)
            before_output();
        size_t n = fwrite(buf, 1, io->len, f);
        if (fflush(f) != 0 || n < io->len) {
            /* the host could not take it (a full disk, a closed pipe):
             * the program's write fails as it would on Linux */
            io->result = -(errno ? errno : EIO);
            clearerr(f);
            return;
        }
        io->result = (int32_t)n;
        return;
    }
    if (io->fd != 0) {
        io->result = -EBADF;
        return;
    }
    if (m->opts->harness.stdin_data) {
        size_t left = m->opts->harness.stdin_size - m->stdin_pos;
        size_t n = left < io->len ? left : io->len;
        memcpy(buf, m->opts->harness.stdin_data + m->stdin_pos, n);
        m->stdin_pos += n;
        io->result = (int32_t)n;
        return;
    }
    ssize_t n = m->opts->quiet ? 0 : read(STDIN_FILENO, buf, io->len);
    io->result = n < 0 ? -errno : (int32_t)n;
}

/* Does the guest's stream fd reach the host's descriptor itself (not the
 * swallowed output of a quiet run, nor stdin from memory)? */
static bool console_on_host(const struct machine *m, uint32_t fd)
{
    if (fd > 2 || m->opts->quiet)
        return false;
    return fd != 0 || !m->opts->harness.stdin_data;
}

static void host_stat(const struct stat *s, struct hc_stat *st)
{
    memset(st, 0, sizeof *st);
    st->dev = s->st_dev;
    st->ino = s->st_ino;
    st->rdev = s->st_rdev;
    st->size = (uint64_t)s->st_size;
    st->blocks = (uint64_t)s->st_blocks;
    st->mode = s->st_mode;
    st->nlink = (uint32_t)s->st_nlink;
    st->uid = s->st_uid;
    st->gid = s->st_gid;
    st->blksize = (uint32_t)s->st_blksize;
    st->atime = (struct hc_time){ s->st_atim.tv_sec, (uint32_t)s->st_atim.tv_nsec, 0 };
    st->mtime = (struct hc_time){ s->st_mtim.tv_sec, (uint32_t)s->st_mtim.tv_nsec, 0 };
    st->ctime = (struct hc_time){ s->st_ctim.tv_sec, (uint32_t)s->st_ctim.tv_nsec, 0 };
}

/* A stream that is not the host's looks like a pipe. The guest's buffer
 * may be only 4-aligned: the answer is copied in. */
static int32_t console_stat(const struct machine *m, uint32_t fd, uint8_t *out)
{
    struct hc_stat st;
    struct stat s;
    if (!console_on_host(m, fd)) {
        memset(&s, 0, sizeof s);
        s.st_mode = S_IFIFO | 0600;
        s.st_nlink = 1;
        s.st_blksize = 4096;
    } else if (fstat((int)fd, &s) != 0) {
        return -errno;
    }
    host_stat(&s, &st);
    memcpy(out, &st, sizeof st);
    return 0;
}

static off_t console_offset(const struct hc_console *c)
{
    return (off_t)(((uint64_t)c->offset_hi << 32) | c->offset_lo);
}

static int32_t console_seek(const struct machine *m, struct hc_console *c)
{
    if (!console_on_host(m, c->fd))
        return -ESPIPE;
    if (c->fd != 0)
        fflush(c->fd == 1 ? stdout : stderr);
    off_t at = lseek((int)c->fd, console_offset(c), (int)c->whence);
    if (at < 0)
        return -errno;
    c->offset_lo = (uint32_t)at;
    c->offset_hi = (uint32_t)((uint64_t)at >> 32);
    return 0;
}

/* 1 if a read of stdin would not wait; output never waits. */
static int32_t console_poll(const struct machine *m, uint32_t fd)
{
    struct pollfd p = { (int)fd, POLLIN, 0 };
    if (fd != 0 || !console_on_host(m, fd))
        return 1;
    if (poll(&p, 1, 0) < 0)
        return -errno;
    return p.revents != 0;
}

static int32_t console_ioctl(const struct machine *m, struct hc_console *c, uint8_t *buf)
{
    uint8_t out[64];
    if ((c->whence != TCGETS && c->whence != TIOCGWINSZ) || c->len > sizeof out)
        return -EINVAL;
    if (!console_on_host(m, c->fd))
        return -ENOTTY;
    if (ioctl((int)c->fd, c->whence, out) != 0)
        return -errno;
    memcpy(buf, out, c->len);
    return 0;
}

static int32_t console_pread(const struct machine *m, struct hc_console *c, uint8_t *buf)
{
    if (c->fd != 0 || !console_on_host(m, c->fd))
        return -ESPIPE;
    ssize_t n = pread(0, buf, c->len, console_offset(c));
    return n < 0 ? -errno : (int32_t)n;
}

static void hc_console(struct machine *m, struct hc_console *c)
{
    uint8_t *buf = c->len ? guest_ptr(&m->mem, c->buf, c->len) : NULL;
    if (c->len && (!buf || !in_kernel_ram(c->buf))) {
        c->result = -EFAULT;
        return;
    }
    switch (c->op) {
    case CONSOLE_SEEK: c->result = console_seek(m, c); break;
    case CONSOLE_STAT:
        c->result = c->len == sizeof(struct hc_stat) ? console_stat(m, c->fd, buf)
                                                      : -EINVAL;
        break;
    case CONSOLE_IOCTL: c->result = console_ioctl(m, c, buf); break;
    case CONSOLE_POLL: c->result = console_poll(m, c->fd); break;
    case CONSOLE_PREAD: c->result = console_pread(m, c, buf); break;
    default: c->result = -EINVAL;
    }
}

void on_hypercall(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user)
{
    struct machine *m = user;
    char text[512];
    (void)uc;
    (void)size;
    /* A ring-3 "out" never gets here (#GP first); check anyway. */
    if ((reg_read(m, UC_X86_REG_CS) & 3) != 0)
        return;
    if (irq_port_out(m, port, value) || smp_port_out(m, port, value))
        return;
    void *block = guest_ptr(&m->mem, value, 20);
    if (!block || !in_kernel_ram(value)) {
        machine_stop(m, STOP_MACHINE, "hypercall %#x with a bad block address %08x", port, value);
        return;
    }
    switch (port) {
    case HC_PORT_WRITE:
    case HC_PORT_READ:
        hc_io(m, block, port == HC_PORT_WRITE);
        break;
    case HC_PORT_EXIT: {
        const struct hc_exit *e = block;
        m->exit_status = (int)(e->status & 0xff);
        machine_notify_exit(m);
        machine_stop(m, STOP_EXIT, "exited with status %d", m->exit_status);
        break;
    }
    case HC_PORT_KILL: {
        const struct hc_fault *f = block;
        m->exit_status = 128 + (int)(f->signal & 0x7f);
        m->ending = (struct program_ending){ true, f->signal & 0x7f, f->vector,
                                             f->error_code, f->eip, f->cr2 };
        machine_notify_exit(m);
        if (f->note && guest_ptr(&m->mem, value, sizeof *f)) {
            guest_text(m, f->note, f->note_len, text, sizeof text);
            machine_stop(m, STOP_KILLED, "killed by %s: %s at eip %08x, cr2 %08x, error %#x",
                         signal_name(f->signal), text, f->eip, f->cr2, f->error_code);
        } else if (f->vector == HC_FAULT_NONE)
            machine_stop(m, STOP_KILLED, "killed by %s", signal_name(f->signal));
        else if (f->vector == X86_VEC_PF)
            machine_stop(m, STOP_KILLED, "killed by %s: %s at eip %08x, cr2 %08x, error %#x",
                         signal_name(f->signal), vector_name(f->vector), f->eip, f->cr2,
                         f->error_code);
        else
            machine_stop(m, STOP_KILLED, "killed by %s: %s at eip %08x, error %#x",
                         signal_name(f->signal), vector_name(f->vector), f->eip,
                         f->error_code);
        break;
    }
    case HC_PORT_PANIC: {
        const struct hc_text *t = block;
        guest_text(m, t->text, t->len, text, sizeof text);
        machine_stop(m, STOP_PANIC, "guest kernel panic: %s", text);
        break;
    }
    case HC_PORT_EXECERR: {
        const struct hc_text *t = block;
        guest_text(m, t->text, t->len, text, sizeof text);
        m->exit_status = 126;
        machine_stop(m, STOP_EXEC_ERROR, "cannot run program: %s", text);
        break;
    }
    case HC_PORT_MM:
        if (!guest_ptr(&m->mem, value, sizeof(struct hc_mm)))
            machine_stop(m, STOP_MACHINE, "MM hypercall with a bad block address %08x", value);
        else
            mm_hypercall(m, block);
        break;
    case HC_PORT_CONSOLE:
        if (!guest_ptr(&m->mem, value, sizeof(struct hc_console)))
            machine_stop(m, STOP_MACHINE, "console hypercall with a bad block address %08x",
                         value);
        else
            hc_console(m, block);
        break;
    case HC_PORT_VFS:
        if (!guest_ptr(&m->mem, value, sizeof(struct hc_vfs)))
            machine_stop(m, STOP_MACHINE, "VFS hypercall with a bad block address %08x", value);
        else
            vfs_hypercall(m, block);
        break;
    case HC_PORT_DEADLOCK: {
        const struct hc_text *t = block;
        guest_text(m, t->text, t->len, text, sizeof text);
        /* stopped first: the observers see that no process exited */
        machine_stop(m, t->code == HC_DEADLOCK_SPINLOCK ? STOP_LOCKED : STOP_DEADLOCK,
                     "deadlock: %s", text);
        machine_notify_exit(m);
        break;
    }
    case HC_PORT_NOHZ:
        if (!guest_ptr(&m->mem, value, sizeof(struct hc_nohz)))
            machine_stop(m, STOP_MACHINE, "NOHZ hypercall with a bad block address %08x", value);
        else
            irq_nohz(m, block);
        break;
    case HC_PORT_LOG: {
        const struct hc_text *t = block;
        guest_text(m, t->text, t->len, text, sizeof text);
        if (m->opts->verbose)
            fprintf(stderr, "[kernel] %s\n", text);
        break;
    }
    default:
        machine_stop(m, STOP_MACHINE, "unknown hypercall port %#x", port);
    }
}
