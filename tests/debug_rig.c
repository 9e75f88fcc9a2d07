/* Shared by the debugger's tests (debug_rig.h). */
#include "debug_rig.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../emu/cost/cpu_models.h"
#include "../emu/image/ksyms.h"

uint32_t ksym(const char *name)
{
    uint32_t a = ksym_find(kernel_image_start, (size_t)(kernel_image_end - kernel_image_start),
                           name);
    ck_assert_msg(a, "the kernel has no %s", name);
    return a;
}

/* A symbol of a guest program. */
uint32_t psym(const char *prog, const char *name)
{
    FILE *f = fopen(program(prog), "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t image[1 << 20];
    size_t n = fread(image, 1, sizeof image, f);
    fclose(f);
    uint32_t a = ksym_find(image, n, name);
    ck_assert_msg(a, "%s has no %s", prog, name);
    return a;
}

uint32_t reg(struct guest *g, int r)
{
    return reg_read(&g->m, r);
}

uint32_t msr(struct guest *g, uint32_t index)
{
    return (uint32_t)engine_read_msr(g->m.uc, index);
}

/* A 32-bit word of guest memory as the debugger reads it. */
uint32_t word(struct debug *d, uint32_t addr)
{
    uint32_t v = 0;
    ck_assert_uint_eq(debug_read_mem(d, addr, (uint8_t *)&v, 4), 4);
    return v;
}

uint32_t tss_esp0(struct guest *g)
{
    uc_x86_mmr tr = { 0 };
    uc_reg_read(g->m.uc, UC_X86_REG_TR, &tr);
    uint32_t esp0;
    memcpy(&esp0, guest_ptr(&g->m.mem, (uint32_t)tr.base + 4, 4), 4);
    return esp0;
}

/* ---- what a run without a debugger counts ---- */

void reference(struct counts *c, const char *cpu, const char *prog, const char *arg,
               const char *arg2)
{
    struct guest *g = guest_new(cpu, prog, arg, arg2, NULL);
    c->status = guest_run(g);
    c->cycles = g->m.cycles;
    c->insns = g->m.insns;
    memcpy(c->class_count, g->m.class_count, sizeof c->class_count);
    memcpy(&c->sys, &g->sys, sizeof c->sys);
    guest_free(g);
}

/* Everything the model counted, the system-call records included. */
void assert_counts_as(const struct counts *c, struct guest *g, int status)
{
    ck_assert_int_eq(status, c->status);
    ck_assert_uint_eq(g->m.cycles, c->cycles);
    ck_assert_uint_eq(g->m.insns, c->insns);
    for (int k = 0; k < NCLASSES; k++)
        ck_assert_msg(g->m.class_count[k] == c->class_count[k],
                      "%s: %llu instructions, not %llu", class_name(k),
                      (unsigned long long)g->m.class_count[k],
                      (unsigned long long)c->class_count[k]);
    ck_assert_uint_eq(g->sys.seq, c->sys.seq);
    for (int k = 0; k < TRACK_TASKS; k++)
        ck_assert_msg(!memcmp(&g->sys.tasks[k].rec, &c->sys.tasks[k].rec,
                              sizeof c->sys.tasks[k].rec),
                      "task %d: the last system call's record differs", k);
    ck_assert_msg(!memcmp(g->sys.stats, c->sys.stats, sizeof c->sys.stats),
                  "the per-call cycle statistics differ");
    ck_assert_uint_eq(g->sys.vsyscall_cycles, c->sys.vsyscall_cycles);
    ck_assert_uint_eq(g->sys.returns_sysexit, c->sys.returns_sysexit);
    ck_assert_uint_eq(g->sys.returns_iret, c->sys.returns_iret);
}

/* Continue to the end, through every stop; the exit status. */
int run_out(struct debug *d)
{
    struct debug_stop s;
    int status;
    while ((status = debug_run(d, false, &s)) == MACHINE_PAUSED)
        ;
    return status;
}

void stop_at(struct debug *d, enum debug_why why, uint32_t eip)
{
    struct debug_stop s;
    ck_assert_int_eq(debug_run(d, false, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, why);
    ck_assert_uint_eq(reg_read(d->m, UC_X86_REG_EIP), eip);
}

void step(struct debug *d)
{
    struct debug_stop s;
    ck_assert_int_eq(debug_run(d, true, &s), MACHINE_PAUSED);
    ck_assert_int_eq(s.why, DEBUG_STEPPED);
}

/* Stop at the program's main: its pages are loaded, its bss cleared. */
void to_main(struct debug *d, const char *prog)
{
    uint32_t main_fn = psym(prog, "main");
    ck_assert_int_eq(debug_insert_break(d, main_fn, false), 0);
    stop_at(d, DEBUG_BREAK, main_fn);
    ck_assert_int_eq(debug_remove_break(d, main_fn, false), 0);
}
