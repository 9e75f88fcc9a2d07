/*
 * The engine's quirks (emu/engine/engine.h) and their workarounds, shown on the
 * engine itself: the hidden exception state, the refused privilege raise,
 * unbacked memory, and the translator's abort.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "support.h"

START_TEST(probe_finds_error_code_before_in_flight_exception)
{
    struct engine_layout l;
    char err[256];
    ck_assert_int_eq(engine_probe_layout(&l, err, sizeof err), 0);
    ck_assert_uint_lt(l.error_code_offset, l.old_exception_offset);
    ck_assert_uint_lt(l.old_exception_offset + 4, l.context_size + 1);
    /* same answer every time */
    struct engine_layout again;
    ck_assert_int_eq(engine_probe_layout(&again, err, sizeof err), 0);
    ck_assert_uint_eq(again.error_code_offset, l.error_code_offset);
    ck_assert_uint_eq(again.old_exception_offset, l.old_exception_offset);
}
END_TEST

static int intr_seen;
static uint32_t intr_last;

static void count_intr(uc_engine *uc, uint32_t intno, void *user)
{
    (void)user;
    intr_seen++;
    intr_last = intno;
    uc_emu_stop(uc);
}

/* The machine probes its own engine before it maps anything: the probe
 * leaves the state it found, nothing mapped, none of its code translated
 * (its page was at 0x10000) and no hook of its own. */
START_TEST(the_probe_leaves_its_engine_as_it_found_it)
{
    struct engine_layout own, on;
    char err[256];
    uc_engine *uc;
    uc_context *before, *after;
    uc_mem_region *regions;
    uint32_t nregions, eax = 0;
    uc_hook h;
    static const uint8_t code[] = { 0xb8, 0x34, 0x12, 0x00, 0x00, 0xcd, 0x21, 0xf4 };

    ck_assert_int_eq(engine_probe_layout(&own, err, sizeof err), 0);
    ck_assert_int_eq(engine_open(&uc), 0);
    ck_assert_int_eq(uc_context_alloc(uc, &before), UC_ERR_OK);
    ck_assert_int_eq(uc_context_alloc(uc, &after), UC_ERR_OK);
    uc_context_save(uc, before);
    /* bytes a save leaves alone (2.1 allocates a few past its copy) alike */
    memcpy(after, before, uc_context_size(uc));
    ck_assert_int_eq(engine_probe_layout_on(uc, &on, err, sizeof err), 0);
    ck_assert_uint_eq(on.context_size, own.context_size);
    ck_assert_uint_eq(on.error_code_offset, own.error_code_offset);
    ck_assert_uint_eq(on.old_exception_offset, own.old_exception_offset);
    ck_assert_uint_eq(on.is_int_offset, own.is_int_offset);
    ck_assert_int_eq(on.raise_by_context, own.raise_by_context);
    if (on.raise_by_context)
        ck_assert_uint_eq(on.cpl_offset, own.cpl_offset);
    uc_context_save(uc, after);
    ck_assert_int_eq(memcmp(before, after, uc_context_size(uc)), 0);
    ck_assert_int_eq(uc_mem_regions(uc, &regions, &nregions), UC_ERR_OK);
    ck_assert_uint_eq(nregions, 0);
    uc_free(regions);

    /* mov $0x1234,%eax; int $0x21; hlt where the probe's code was */
    ck_assert_int_eq(uc_mem_map(uc, 0x10000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
    ck_assert_int_eq(uc_mem_write(uc, 0x10000, code, sizeof code), UC_ERR_OK);
    ck_assert_int_eq(uc_hook_add(uc, &h, UC_HOOK_INTR, count_intr, NULL, 1, 0), UC_ERR_OK);
    intr_seen = 0;
    ck_assert_int_eq(uc_emu_start(uc, 0x10000, 0x10000 + sizeof code, 0, 0), UC_ERR_OK);
    uc_reg_read(uc, UC_X86_REG_EAX, &eax);
    ck_assert_uint_eq(eax, 0x1234);
    ck_assert_int_eq(intr_seen, 1);
    ck_assert_uint_eq(intr_last, 0x21);
    uc_context_free(before);
    uc_context_free(after);
    uc_close(uc);
}
END_TEST

/* What a code hook at CPL 3 saw and did (quirks 3, 13, 14). */
static struct {
    uc_err direct;               /* uc_reg_write of the kernel CS */
    bool raised;                 /* engine_enter_ring0 */
    uint32_t cs, ss, esp, eflags;
} ring;

static void raise_from_cpl3(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    (void)address;
    (void)size;
    uint32_t kcs = __KERNEL_CS;
    ring.direct = uc_reg_write(uc, UC_X86_REG_CS, &kcs);
    ring.raised = engine_enter_ring0(uc, m->scratch_ctx, &m->layout, NULL, __KERNEL_CS,
                                     __KERNEL_DS, BARE_KSTACK - 64);
    ring.cs = engine_reg_read(uc, UC_X86_REG_CS);
    ring.ss = engine_reg_read(uc, UC_X86_REG_SS);
    ring.esp = engine_reg_read(uc, UC_X86_REG_ESP);
    ring.eflags = engine_reg_read(uc, UC_X86_REG_EFLAGS);
    uc_emu_stop(uc);
}

/* A bare machine that irets to ring 3 and runs hook there. */
static void hook_at_cpl3(struct bare *b, uc_cb_hookcode_t hook)
{
    uint8_t nops[] = { 0x90, 0x90, 0xf4 };
    uc_hook h;
    bare_init(b, "pentium4");
    bare_write(b, BARE_UCODE, nops, sizeof nops);
    ck_assert_int_eq(engine_hook_code_at(b->m.uc, BARE_UCODE + 1, hook, &b->m, &h), 0);
    bare_run(b, BARE_UCODE, true);
}

START_TEST(a_hook_at_cpl3_cannot_load_kernel_selectors_but_enter_ring0_can)
{
    static struct bare b;
    hook_at_cpl3(&b, raise_from_cpl3);
    ck_assert_int_ne(ring.direct, UC_ERR_OK);
    ck_assert(ring.raised);
    ck_assert_uint_eq(ring.cs, __KERNEL_CS);
    ck_assert_uint_eq(ring.ss, __KERNEL_DS);
    ck_assert_uint_eq(ring.cs & X86_SEL_RPL, 0);   /* CPL 0 */
    ck_assert_uint_eq(ring.esp, BARE_KSTACK - 64);
    /* the flags are the user's still: the raise changes no EFLAGS bit */
    ck_assert_uint_eq(ring.eflags & (X86_EFLAGS_IF | X86_EFLAGS_FIXED),
                      X86_EFLAGS_IF | X86_EFLAGS_FIXED);
    bare_destroy(&b);
}
END_TEST

/* Quirk 14's memo: the raise from one state, the loads made or their
 * result remembered, leaves the same context; a descriptor changed in
 * memory is loaded again. */
static struct {
    bool raised[4];
    unsigned learned[4];        /* the memo's next state after each */
    bool same_again, same_reloaded;
} memo_seen;

static void enter_from(uc_engine *uc, uc_context *from, uc_context *to, struct machine *m,
                       struct engine_ring0_memo *memo, int k)
{
    memcpy(to, from, uc_context_size(uc));
    uc_context_restore(uc, from);
    memo_seen.raised[k] = engine_enter_ring0(uc, m->scratch_ctx, &m->layout, memo, __KERNEL_CS,
                                             __KERNEL_DS, BARE_KSTACK - 64);
    memo_seen.learned[k] = memo ? memo->next : 0;
    uc_context_save(uc, to);
}

/* The kernel data segment's descriptor with its accessed bit clear. */
static void clear_accessed(uc_engine *uc)
{
    uc_x86_mmr gdtr = { 0 };
    uint8_t access;
    uc_reg_read(uc, UC_X86_REG_GDTR, &gdtr);
    uc_mem_read(uc, gdtr.base + __KERNEL_DS + X86_DESC_ACCESS_SHIFT / 8, &access, 1);
    access &= (uint8_t)~X86_AR_ACCESSED;
    uc_mem_write(uc, gdtr.base + __KERNEL_DS + X86_DESC_ACCESS_SHIFT / 8, &access, 1);
}

static void raise_remembered(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    static struct engine_ring0_memo memo;
    uc_context *from, *a, *b, *c;
    (void)address;
    (void)size;
    memset(&memo, 0, sizeof memo);
    memo.mem = &m->mem;
    uc_context_alloc(uc, &from);
    uc_context_alloc(uc, &a);
    uc_context_alloc(uc, &b);
    uc_context_alloc(uc, &c);
    uc_context_save(uc, from);
    enter_from(uc, from, a, m, &memo, 0);   /* loaded, and remembered */
    enter_from(uc, from, b, m, &memo, 1);   /* remembered */
    memo_seen.same_again = !memcmp(a, b, m->layout.context_size);
    clear_accessed(uc);
    enter_from(uc, from, b, m, &memo, 2);   /* loaded again: the descriptor changed */
    clear_accessed(uc);
    enter_from(uc, from, c, m, NULL, 3);
    memo_seen.same_reloaded = !memcmp(b, c, m->layout.context_size);
    uc_context_free(from);
    uc_context_free(a);
    uc_context_free(b);
    uc_context_free(c);
    uc_emu_stop(uc);
}

START_TEST(a_remembered_ring0_entry_leaves_the_context_the_loads_leave)
{
    static struct bare b;
    hook_at_cpl3(&b, raise_remembered);
    for (int k = 0; k < 4; k++)
        ck_assert_msg(memo_seen.raised[k], "raise %d", k);
    ck_assert(memo_seen.same_again);
    ck_assert(memo_seen.same_reloaded);
    if (b.m.layout.raise_by_context) {
        /* one state learned, then used, then a second learned */
        ck_assert_uint_eq(memo_seen.learned[0], 1);
        ck_assert_uint_eq(memo_seen.learned[1], 1);
        ck_assert_uint_eq(memo_seen.learned[2], 2);
    }
    bare_destroy(&b);
}
END_TEST

/* sysenter's entry from one user state: what the API writes leave (no
 * memo, and the first, learning, entry) and what the remembered entry's one
 * context restore leaves, register by register. */
enum { SE_CS, SE_SS, SE_ESP, SE_EIP, SE_EFLAGS, SE_REGS };
static const int se_reg[SE_REGS] = { UC_X86_REG_CS, UC_X86_REG_SS, UC_X86_REG_ESP,
                                     UC_X86_REG_EIP, UC_X86_REG_EFLAGS };
static struct {
    bool entered[3];
    unsigned next[3];
    uint32_t regs[3][SE_REGS];
} se;

static void sysenter_from(uc_engine *uc, uc_context *from, struct machine *m,
                          struct engine_ring0_memo *memo, int k)
{
    const struct engine_ring0_entry e = { __KERNEL_CS, __KERNEL_DS, BARE_KSTACK - 64,
                                          0x00c0ffee, X86_EFLAGS_IF | X86_EFLAGS_RF |
                                          X86_EFLAGS_VM };
    uc_context_restore(uc, from);
    se.entered[k] = engine_enter_ring0_at(uc, m->scratch_ctx, &m->layout, memo, &e);
    se.next[k] = memo ? memo->next : 0;
    for (int r = 0; r < SE_REGS; r++)
        se.regs[k][r] = engine_reg_read(uc, se_reg[r]);
}

static void sysenter_remembered(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct machine *m = user;
    static struct engine_ring0_memo memo;
    uc_context *from;
    (void)address;
    (void)size;
    memset(&memo, 0, sizeof memo);
    memo.mem = &m->mem;
    /* RF, IF and some arithmetic flags on the user side */
    engine_reg_write(uc, UC_X86_REG_EFLAGS, X86_EFLAGS_RF | X86_EFLAGS_IF | 0x0c5 |
                                            X86_EFLAGS_FIXED);
    uc_context_alloc(uc, &from);
    uc_context_save(uc, from);
    sysenter_from(uc, from, m, NULL, 0);
    sysenter_from(uc, from, m, &memo, 1);   /* loaded, and remembered */
    sysenter_from(uc, from, m, &memo, 2);   /* remembered */
    uc_context_free(from);
    uc_emu_stop(uc);
}

START_TEST(a_remembered_sysenter_entry_sets_the_registers_the_api_writes_set)
{
    static struct bare b;
    hook_at_cpl3(&b, sysenter_remembered);
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(se.entered[k], "entry %d", k);
        for (int r = 0; r < SE_REGS; r++)
            ck_assert_msg(se.regs[k][r] == se.regs[0][r], "entry %d register %d: %#x, not %#x",
                          k, r, se.regs[k][r], se.regs[0][r]);
    }
    ck_assert_uint_eq(se.regs[0][SE_CS], __KERNEL_CS);
    ck_assert_uint_eq(se.regs[0][SE_ESP], BARE_KSTACK - 64);
    ck_assert_uint_eq(se.regs[0][SE_EIP], 0x00c0ffee);
    ck_assert_uint_eq(se.regs[0][SE_EFLAGS], 0x0c5 | X86_EFLAGS_FIXED);
    if (b.m.layout.raise_by_context) {
        ck_assert_uint_eq(se.next[1], 1);
        ck_assert_uint_eq(se.next[2], 1);   /* a hit: nothing learned */
    }
    bare_destroy(&b);
}
END_TEST

/* Quirk 14: on 2.1 a CR0 write flushes the TLB, so the ring raise sets the
 * CPL in the context; the probe finds where (and the raise above used it). */
START_TEST(probe_finds_the_cpl_where_a_cr0_write_would_flush)
{
    struct engine_layout l;
    char err[256];
    ck_assert_int_eq(engine_probe_layout(&l, err, sizeof err), 0);
    ck_assert_int_eq(l.raise_by_context, unicorn_at_least(2, 1));
    if (l.raise_by_context) {
        ck_assert_uint_lt(l.cpl_offset + 4, l.context_size + 1);
        ck_assert_uint_ne(l.cpl_offset, l.error_code_offset);
        ck_assert_uint_ne(l.cpl_offset, l.old_exception_offset);
    }
    /* ESP, EIP and EFLAGS are found with the CPL, each its own word */
    ck_assert_int_eq(l.regs_by_context, l.raise_by_context);
    if (l.regs_by_context) {
        ck_assert_uint_ne(l.esp_offset, l.eip_offset);
        ck_assert_uint_ne(l.eip_offset, l.eflags_offset);
        ck_assert_uint_ne(l.eflags_offset, l.cpl_offset);
        ck_assert_uint_lt(l.eflags_offset + 8, l.context_size + 1);
    }
    /* and a narrow context that holds them and the span */
    if (l.regs_by_context) {
        ck_assert_uint_gt(l.narrow_bytes, l.cpl_offset + ENGINE_RING0_SPAN);
        ck_assert_uint_lt(l.narrow_bytes, l.context_size);
    }
}
END_TEST

static int last_intno;

static void note_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    (void)user;
    last_intno = (int)intno;
    uc_emu_stop(uc);
}

/* With paging on, read 0x00400000, whose page directory entry is not
 * present; back it with host memory or not. */
static uc_err read_not_present_page(bool backed)
{
    static const uint8_t code[] = {
        0xb8, 0x00, 0x20, 0x00, 0x00,        /* mov $0x2000, %eax: the page directory */
        0x0f, 0x22, 0xd8,                    /* mov %eax, %cr3 */
        0x0f, 0x20, 0xc0,                    /* mov %cr0, %eax */
        0x0d, 0x01, 0x00, 0x00, 0x80,        /* or $0x80000001, %eax: PG, PE */
        0x0f, 0x22, 0xc0,                    /* mov %eax, %cr0 */
        0xa1, 0x00, 0x00, 0x40, 0x00,        /* mov 0x00400000, %eax */
        0xf4,
    };
    const uint32_t pde = 0x3000 | X86_PTE_PRESENT | X86_PTE_RW;
    const uint32_t pte = 0x1000 | X86_PTE_PRESENT | X86_PTE_RW;   /* the code page */
    uc_engine *uc;
    uc_hook h;
    ck_assert_int_eq(engine_open(&uc), 0);
    ck_assert_int_eq(uc_mem_map(uc, 0x1000, 0x3000, UC_PROT_ALL), UC_ERR_OK);
    if (backed)
        ck_assert_int_eq(uc_mem_map(uc, 0x400000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
    uc_mem_write(uc, 0x1000, code, sizeof code);
    uc_mem_write(uc, 0x2000, &pde, 4);
    uc_mem_write(uc, 0x3000 + 4 * 1, &pte, 4);
    uc_hook_add(uc, &h, UC_HOOK_INTR, note_interrupt, NULL, 1, 0);
    last_intno = -1;
    uc_err e = uc_emu_start(uc, 0x1000, 0x1000 + sizeof code, 0, 100);
    uc_close(uc);
    return e;
}

/* Quirk 8, on 2.0.1 and 2.1.1 alike: rdtsc, rdtscp, rdmsr and wrmsr are
 * refused as instruction hooks, which is why the machine puts code hooks
 * on their addresses; cpuid and sysenter are taken. */
static int no_insn_hook(uc_engine *uc, void *user)
{
    (void)uc;
    (void)user;
    return 0;
}

START_TEST(rdtsc_and_the_msr_instructions_cannot_be_hooked_as_instructions)
{
    static const int refused[] = { UC_X86_INS_RDTSC, UC_X86_INS_RDTSCP, UC_X86_INS_RDMSR,
                                   UC_X86_INS_WRMSR };
    static const int taken[] = { UC_X86_INS_CPUID, UC_X86_INS_SYSENTER };
    uc_engine *uc;
    uc_hook h;
    ck_assert_int_eq(uc_open(UC_ARCH_X86, UC_MODE_32, &uc), UC_ERR_OK);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        ck_assert_int_eq(uc_hook_add(uc, &h, UC_HOOK_INSN, no_insn_hook, NULL, 1, 0, refused[i]),
                         UC_ERR_HOOK);
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        ck_assert_int_eq(uc_hook_add(uc, &h, UC_HOOK_INSN, no_insn_hook, NULL, 1, 0, taken[i]),
                         UC_ERR_OK);
    uc_close(uc);
}
END_TEST

START_TEST(unbacked_addresses_stop_the_engine_backed_ones_fault)
{
    if (unicorn_at_least(2, 1)) {
        /* 2.1 walks the page tables first: the #PF a CPU raises */
        ck_assert_int_eq(read_not_present_page(false), UC_ERR_OK);
        ck_assert_int_eq(last_intno, X86_VEC_PF);
    } else {
        /* the quirk: no #PF, the run fails */
        ck_assert_int_eq(read_not_present_page(false), UC_ERR_READ_UNMAPPED);
        ck_assert_int_eq(last_intno, -1);
    }
    /* backed (engine_back_memory backs everything): a #PF, as on the CPU */
    ck_assert_int_eq(read_not_present_page(true), UC_ERR_OK);
    ck_assert_int_eq(last_intno, X86_VEC_PF);
}
END_TEST

START_TEST(every_guest_address_is_backed)
{
    static struct bare b;
    bare_init(&b, "pentium3");
    static const uint32_t probes[] = { 0, USER_SPACE_BASE, 0x7fffffffu, USER_SPACE_TOP - 4,
                                       KERNEL_BASE, KERNEL_BASE + KERNEL_RAM_SIZE,
                                       0xe0000000u, FIXADDR_TOP - 4, FIXADDR_TOP, 0xfffffffcu };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        ck_assert_msg(guest_ptr(&b.m.mem, probes[i], 4), "%08x is not backed", probes[i]);
    bare_destroy(&b);
}
END_TEST

/* int $0x21 and a #GP reach the interrupt hook alike; the engine's own
 * flag, where the probe found it, tells them apart (quirk 2). */
static struct { int vector; struct engine_exception x; } seen;
static struct engine_layout seen_layout;
static uc_context *seen_ctx;

static void note_kind(uc_engine *uc, uint32_t intno, void *user)
{
    (void)user;
    seen.vector = (int)intno;
    engine_take_exception(uc, seen_ctx, &seen_layout, &seen.x);
    uc_emu_stop(uc);
}

START_TEST(probe_finds_the_software_interrupt_flag)
{
    char err[256];
    ck_assert_int_eq(engine_probe_layout(&seen_layout, err, sizeof err), 0);
    ck_assert_uint_lt(seen_layout.is_int_offset + 4, seen_layout.context_size + 1);
    /* int $0x21; then mov (0x1100), %ds with selector 0x1238, past a tiny GDT */
    static const uint8_t soft[] = { 0xcd, 0x21, 0xf4 };
    static const uint8_t fault[] = { 0x8e, 0x1d, 0x00, 0x11, 0x00, 0x00, 0xf4 };
    static const uint16_t bad = 0x1238;
    uc_engine *uc;
    uc_hook h;
    ck_assert_int_eq(engine_open(&uc), 0);
    ck_assert_int_eq(uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
    uc_x86_mmr gdtr = { .base = 0x1800, .limit = 0x17 };
    uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr);
    uc_mem_write(uc, 0x1000, soft, sizeof soft);
    uc_mem_write(uc, 0x1010, fault, sizeof fault);
    uc_mem_write(uc, 0x1100, &bad, sizeof bad);
    ck_assert_int_eq(uc_context_alloc(uc, &seen_ctx), UC_ERR_OK);
    uc_hook_add(uc, &h, UC_HOOK_INTR, note_kind, NULL, 1, 0);
    uc_emu_start(uc, 0x1000, 0x1100, 0, 16);
    ck_assert_int_eq(seen.vector, 0x21);
    ck_assert(seen.x.software);
    uc_emu_start(uc, 0x1010, 0x1100, 0, 16);
    ck_assert_int_eq(seen.vector, X86_VEC_GP);
    ck_assert(!seen.x.software);
    ck_assert_uint_eq(seen.x.error_code, bad);
    uc_context_free(seen_ctx);
    uc_close(uc);
}
END_TEST

START_TEST(a_translator_abort_is_survived)
{
    /* lock cmp %al, (%eax): the translator aborts the process on it */
    static const uint8_t code[] = { 0xf0, 0x38, 0x00, 0xf4 };
    uc_engine *uc;
    uc_err e = UC_ERR_OK;
    ck_assert_int_eq(engine_open(&uc), 0);
    ck_assert_int_eq(uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
    uc_mem_write(uc, 0x1000, code, sizeof code);
    /* what reaches descriptor 2 meanwhile: ours, not the engine's complaint */
    int pipefd[2], saved = dup(2);
    ck_assert_int_eq(pipe(pipefd), 0);
    dup2(pipefd[1], 2);
    fprintf(stderr, "before\n");
    bool returned = engine_run(uc, 0x1000, 0x1000 + sizeof code, &e);
    fprintf(stderr, "after\n");
    dup2(saved, 2);
    close(saved);
    close(pipefd[1]);
    char text[256] = { 0 };
    ck_assert_int_ge(read(pipefd[0], text, sizeof text - 1), 0);
    close(pipefd[0]);
    if (unicorn_at_least(2, 1)) {
        /* 2.1 translates it into the #UD a CPU raises (quirk 7's path) */
        ck_assert_msg(returned, "the translator aborted on lock cmp on Unicorn 2.1");
        ck_assert_int_eq(e, UC_ERR_INSN_INVALID);
    } else {
        ck_assert_msg(!returned, "the translator took lock cmp: quirk 10 is gone (error %d)", e);
    }
    ck_assert_str_eq(text, "before\nafter\n");
    /* and the engine still runs other code */
    static const uint8_t ok[] = { 0x90, 0xf4 };
    uc_mem_write(uc, 0x1800, ok, sizeof ok);
    ck_assert(engine_run(uc, 0x1800, 0x1800 + 1, &e));
    ck_assert_int_eq(e, UC_ERR_OK);
    uc_close(uc);
}
END_TEST

Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("quirks");
    tcase_add_test(tc, probe_finds_error_code_before_in_flight_exception);
    tcase_add_test(tc, probe_finds_the_software_interrupt_flag);
    tcase_add_test(tc, the_probe_leaves_its_engine_as_it_found_it);
    tcase_add_test(tc, a_hook_at_cpl3_cannot_load_kernel_selectors_but_enter_ring0_can);
    tcase_add_test(tc, probe_finds_the_cpl_where_a_cr0_write_would_flush);
    tcase_add_test(tc, a_remembered_ring0_entry_leaves_the_context_the_loads_leave);
    tcase_add_test(tc, a_remembered_sysenter_entry_sets_the_registers_the_api_writes_set);
    tcase_add_test(tc, rdtsc_and_the_msr_instructions_cannot_be_hooked_as_instructions);
    tcase_add_test(tc, unbacked_addresses_stop_the_engine_backed_ones_fault);
    tcase_add_test(tc, every_guest_address_is_backed);
    tcase_add_test(tc, a_translator_abort_is_survived);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(engine_suite());
}
