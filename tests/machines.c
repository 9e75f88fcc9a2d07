/* Machines the tests drive in their own process: a guest program under
 * the guest kernel, and a bare machine with a hand-built GDT, IDT and TSS. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* ---- a guest program in this process ---- */

struct guest *guest_new(const char *cpu, const char *prog, ...)
{
    struct guest *g = calloc(1, sizeof *g);
    ck_assert_ptr_nonnull(g);
    g->opts.cpu_spec = cpu;
    g->opts.max_insns = 100000000;
    g->opts.epoch_sec = 1040103547u;
    g->opts.quiet = true;
    g->opts.program = program(prog);
    g->argv[0] = (char *)prog;
    int argc = 1;
    va_list ap;
    va_start(ap, prog);
    for (const char *a; argc < 7 && (a = va_arg(ap, const char *));)
        g->argv[argc++] = (char *)a;
    va_end(ap);
    g->opts.argc = argc;
    g->opts.argv = g->argv;
    g->opts.envp = g->envp;
    ck_assert_int_eq(machine_init(&g->m, &g->opts), 0);
    ck_assert_int_eq(syscalls_attach_zeroed(&g->sys, &g->m), 0);
    return g;
}

int guest_run(struct guest *g)
{
    return machine_run(&g->m);
}

void guest_free(struct guest *g)
{
    machine_destroy(&g->m);
    free(g);
}

/* ---- bare machine ---- */
static const uint64_t patch_gdt[26] = {
    [12] = 0x00cf9a000000ffffull, [13] = 0x00cf92000000ffffull,
    [14] = 0x00cffa000000ffffull, [15] = 0x00cff2000000ffffull,
};

void bare_init(struct bare *b, const char *cpu_spec)
{
    memset(b, 0, sizeof *b);
    b->opts.cpu_spec = cpu_spec;
    b->opts.max_insns = 1000000;
    ck_assert_int_eq(machine_init_bare(&b->m, &b->opts), 0);
    ck_assert_int_eq(syscalls_attach(&b->sys, &b->m), 0);
    uint64_t gdt[32] = { 0 };
    memcpy(gdt, patch_gdt, sizeof patch_gdt);
    uint32_t tss = BARE_TSS;
    gdt[16] = (103 & 0xffff) | ((uint64_t)(tss & 0xffffff) << 16) | ((uint64_t)(X86_AR_P | X86_TYPE_TSS32) << X86_DESC_ACCESS_SHIFT) |
              ((uint64_t)(tss >> 24) << 56);
    bare_write(b, BARE_GDT, gdt, sizeof gdt);
    uint32_t tss_words[26] = { 0 };
    tss_words[1] = BARE_KSTACK;
    tss_words[2] = __KERNEL_DS;
    bare_write(b, BARE_TSS, tss_words, sizeof tss_words);
    for (int v = 0; v < 256; v++) {
        uint8_t hlt = 0xf4;
        bare_write(b, BARE_HANDLER + 16 * (uint32_t)v, &hlt, 1);
        bare_set_gate(b, v, X86_TYPE_TRAP_GATE32, 0);
    }
    uc_x86_mmr gdtr = { .base = BARE_GDT, .limit = sizeof gdt - 1 };
    uc_x86_mmr idtr = { .base = BARE_IDT, .limit = 256 * 8 - 1 };
    uc_x86_mmr tr = { .selector = __TSS_SEL, .base = BARE_TSS, .limit = 103,
                      .flags = X86_AR_P | X86_TYPE_TSS32 };
    uc_reg_write(b->m.uc, UC_X86_REG_GDTR, &gdtr);
    uc_reg_write(b->m.uc, UC_X86_REG_IDTR, &idtr);
    uc_reg_write(b->m.uc, UC_X86_REG_TR, &tr);
    uint32_t kcs = __KERNEL_CS, kds = __KERNEL_DS;
    ck_assert_int_eq(uc_reg_write(b->m.uc, UC_X86_REG_CS, &kcs), UC_ERR_OK);
    ck_assert_int_eq(uc_reg_write(b->m.uc, UC_X86_REG_SS, &kds), UC_ERR_OK);
    uc_reg_write(b->m.uc, UC_X86_REG_DS, &kds);
    uc_reg_write(b->m.uc, UC_X86_REG_ES, &kds);
}

void bare_destroy(struct bare *b)
{
    machine_destroy(&b->m);
}

void bare_set_gate(struct bare *b, int vector, int type, int dpl)
{
    uint32_t off = BARE_HANDLER + 16 * (uint32_t)vector;
    uint64_t gate = (off & 0xffff) | ((uint64_t)__KERNEL_CS << 16) |
                    ((uint64_t)(X86_AR_P | (dpl << X86_AR_DPL_SHIFT) | type) << X86_DESC_ACCESS_SHIFT) |
                    ((uint64_t)(off >> 16) << 48);
    bare_write(b, BARE_IDT + 8 * (uint32_t)vector, &gate, 8);
}

void bare_write(struct bare *b, uint32_t addr, const void *bytes, size_t n)
{
    ck_assert_int_eq(uc_mem_write(b->m.uc, addr, bytes, n), UC_ERR_OK);
}

/* Enter ring 3 the way an OS does: iret from ring 0 with a user frame. */
void bare_run(struct bare *b, uint32_t eip, bool user)
{
    uint32_t start = eip;
    if (user) {
        uint32_t frame[5] = { eip, __USER_CS, X86_EFLAGS_IF | X86_EFLAGS_FIXED, BARE_USTACK,
                              __USER_DS };
        uint8_t iret[] = { 0xcf };
        uint32_t kesp = BARE_KSTACK - 0x100;
        bare_write(b, kesp, frame, sizeof frame);
        bare_write(b, BARE_HANDLER - 16, iret, sizeof iret);
        reg_write(&b->m, UC_X86_REG_ESP, kesp);
        start = BARE_HANDLER - 16;
    } else {
        reg_write(&b->m, UC_X86_REG_ESP, BARE_KSTACK - 0x200);
    }
    reg_write(&b->m, UC_X86_REG_EIP, start);
    machine_run(&b->m);
}

uint32_t bare_reg(struct bare *b, int reg)
{
    return reg_read(&b->m, reg);
}

uint32_t bare_u32(struct bare *b, uint32_t addr)
{
    uint32_t v = 0;
    uc_mem_read(b->m.uc, addr, &v, 4);
    return v;
}

int bare_halted_vector(struct bare *b)
{
    /* hlt leaves EIP after the instruction */
    uint32_t eip = bare_reg(b, UC_X86_REG_EIP) - 1;
    if (eip < BARE_HANDLER || eip >= BARE_HANDLER + 16 * 256 || (eip - BARE_HANDLER) % 16)
        return -1;
    return (int)((eip - BARE_HANDLER) / 16);
}
