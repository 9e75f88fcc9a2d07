/*
 * The guest kernel's requests to the host: "outl %eax, $port" with EAX the
 * address of an argument block in kernel memory (abi.h). Ring 3 cannot get
 * here: the TSS has no I/O bitmap, so its "out" is a #GP.
 */
#include "hypercall.h"
#include "irq.h"
#include "smp.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "mmcall.h"
#include "vfscall.h"
#include "names.h"
#include "progress.h"

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
        progress_clear();
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
    if (m->opts->stdin_data) {
        size_t left = m->opts->stdin_size - m->stdin_pos;
        size_t n = left < io->len ? left : io->len;
        memcpy(buf, m->opts->stdin_data + m->stdin_pos, n);
        m->stdin_pos += n;
        io->result = (int32_t)n;
        return;
    }
    ssize_t n = m->opts->quiet ? 0 : read(STDIN_FILENO, buf, io->len);
    io->result = n < 0 ? -errno : (int32_t)n;
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
        machine_stop(m, STOP_DEADLOCK, "deadlock: %s", text);
        machine_notify_exit(m);
        break;
    }
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
