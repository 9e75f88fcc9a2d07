/*
 * Address spaces on the host (emu/mm/addrspace.c), on a bare machine with
 * hand-made page tables: the bytes follow CR3, a fork copies the pages the
 * page tables map and nothing else, code at one address in two spaces runs
 * as each space's own (engine.h, quirk 17), shared objects are seen by
 * every space that maps them, and a switch counts the TLB refills of the
 * space it leaves. A switch copies the pages the two spaces keep, or moves
 * the whole window when they are too many; either way the same bytes.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/cpu/debug.h"

#define KPT     0xc0060000u   /* page table of kernel RAM's first 4 MiB */
#define SETUP   0xc0070000u   /* ring-0 code that turns paging on */
#define CODE    0x08048000u
#define DATA    0x08049000u
#define LOOSE   0x0804a000u   /* never mapped: bytes there are no one's */
#define SHARED  0x08100000u
#define FAR     0x08200000u   /* never mapped, in the 4 MiB of CODE's table */
#define BIG     0x10000000u   /* BIG_PDES page tables' worth of pages */
#define BIG_PDES 5u           /* 5120 pages: more than a switch copies */
#define BIG_PT  0xc0200000u   /* their page tables, BIG_PDES a space */
#define USER_PG (X86_PTE_PRESENT | X86_PTE_RW | X86_PTE_USER)

static struct bare b;

static uint32_t pd_at(int i)  { return 0xc0080000u + 0x2000u * (uint32_t)i; }
static uint32_t upt_at(int i) { return pd_at(i) + 0x1000u; }

/* Space i: kernel RAM, and CODE, DATA and SHARED (if shared) as user pages. */
static void make_tables(int i, bool shared)
{
    uint32_t pde_k = KPT | X86_PTE_PRESENT | X86_PTE_RW;
    uint32_t pde_u = upt_at(i) | USER_PG;
    uint8_t zero[PAGE_SIZE] = { 0 };
    bare_write(&b, pd_at(i), zero, PAGE_SIZE);
    bare_write(&b, upt_at(i), zero, PAGE_SIZE);
    bare_write(&b, pd_at(i) + 4 * (KERNEL_BASE >> 22), &pde_k, 4);
    bare_write(&b, pd_at(i) + 4 * (CODE >> 22), &pde_u, 4);
    uint32_t pages[] = { CODE, DATA, SHARED };
    for (int k = 0; k < (shared ? 3 : 2); k++) {
        uint32_t pte = pages[k] | USER_PG;
        bare_write(&b, upt_at(i) + 4 * ((pages[k] >> 12) & 0x3ff), &pte, 4);
    }
}

/* Space i also keeps every page of [BIG, BIG + BIG_PDES * 4 MiB). */
static void add_big(int i)
{
    static uint32_t table[1024];
    for (uint32_t k = 0; k < BIG_PDES; k++) {
        uint32_t pt = BIG_PT + PAGE_SIZE * (BIG_PDES * (uint32_t)i + k), pde = pt | USER_PG;
        for (uint32_t j = 0; j < 1024; j++)
            table[j] = (BIG + (k << 22) + (j << 12)) | USER_PG;
        bare_write(&b, pt, table, PAGE_SIZE);
        bare_write(&b, pd_at(i) + 4 * ((BIG >> 22) + k), &pde, 4);
    }
}

static void setup(void)
{
    bare_init(&b, "pentium4");
    for (uint32_t k = 0; k < 1024; k++) {
        uint32_t pte = (KERNEL_BASE + k * PAGE_SIZE) | X86_PTE_PRESENT | X86_PTE_RW;
        bare_write(&b, KPT + 4 * k, &pte, 4);
    }
    make_tables(0, true);
    static const uint8_t on[] = {
        0xb8, 0, 0, 0, 0,                  /* mov $pd0, %eax */
        0x0f, 0x22, 0xd8,                  /* mov %eax, %cr3 */
        0x0f, 0x20, 0xc0,                  /* mov %cr0, %eax */
        0x0d, 0x00, 0x00, 0x01, 0x80,      /* or $(PG | WP), %eax */
        0x0f, 0x22, 0xc0,                  /* mov %eax, %cr0 */
        0xf4,
    };
    uint8_t code[sizeof on];
    uint32_t pd0 = pd_at(0);
    memcpy(code, on, sizeof on);
    memcpy(code + 1, &pd0, 4);
    bare_write(&b, SETUP, code, sizeof code);
    bare_run(&b, SETUP, false);
    ck_assert(bare_reg(&b, UC_X86_REG_CR0) & X86_CR0_PG);
    uint32_t refills;
    ck_assert_int_eq(as_switch(b.m.as, b.m.uc, &b.m.mem, pd0, pd0, &refills), 0);
}

static void teardown(void)
{
    bare_destroy(&b);
}

/* Make space i current, as the kernel does: the request, then CR3. */
static uint32_t switch_to(int i)
{
    uint32_t refills = 0;
    ck_assert_int_eq(as_switch(b.m.as, b.m.uc, &b.m.mem, bare_reg(&b, UC_X86_REG_CR3),
                               pd_at(i), &refills), 0);
    reg_write(&b.m, UC_X86_REG_CR3, pd_at(i));
    as_note_paging(b.m.as, false, true);   /* the kernel's load, in a block */
    return refills;
}

static void clone_to(int child, int parent)
{
    uint32_t pages;
    /* the kernel copies the page tables first */
    uint8_t table[PAGE_SIZE];
    uc_mem_read(b.m.uc, upt_at(parent), table, PAGE_SIZE);
    make_tables(child, false);
    bare_write(&b, upt_at(child), table, PAGE_SIZE);
    ck_assert_int_eq(as_clone(b.m.as, &b.m.mem, pd_at(child), pd_at(parent), &pages), 0);
}

/* Bytes the host writes into the current space's user pages, as a fill
 * would: the next switch copies those pages out (as_host_wrote), where a
 * program's own store shows in the accessed bit its page walk sets. */
static void user_write(uint32_t addr, const void *bytes, size_t len)
{
    bare_write(&b, addr, bytes, len);
    as_host_wrote(b.m.as, addr, (uint32_t)len);
}

static uint32_t run_code(void)
{
    b.m.stop = STOP_NONE;
    bare_run(&b, CODE, false);
    return bare_reg(&b, UC_X86_REG_EAX);
}

static void put_code(uint32_t value)
{
    uint8_t code[] = { 0xb8, 0, 0, 0, 0, 0xf4 };   /* mov $value, %eax; hlt */
    memcpy(code + 1, &value, 4);
    user_write(CODE, code, sizeof code);
}

static void put(uint32_t addr, const char *s)
{
    user_write(addr, s, strlen(s) + 1);
}

static const char *at(uint32_t addr)
{
    return (const char *)guest_ptr(&b.m.mem, addr, 16);
}

START_TEST(code_at_the_same_address_in_two_spaces_runs_each_its_own)
{
    put_code(2);
    clone_to(1, 0);           /* space 1 holds "mov $2" */
    put_code(1);              /* space 0 now "mov $1", not yet run */
    ck_assert_uint_eq(run_code(), 1);
    switch_to(1);
    ck_assert_uint_eq(run_code(), 2);
    switch_to(0);
    ck_assert_uint_eq(run_code(), 1);
    switch_to(1);
    ck_assert_uint_eq(run_code(), 2);
}
END_TEST

/* The same program in both spaces (a fork): its translations stay. */
START_TEST(translations_stay_where_the_next_space_has_the_same_code)
{
    put_code(5);
    clone_to(1, 0);
    ck_assert_uint_eq(run_code(), 5);
    uint64_t dropped = addrspaces_stats(b.m.as)->code_pages_dropped;
    switch_to(1);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_dropped, dropped);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_kept, 1);
    ck_assert_uint_eq(run_code(), 5);
    switch_to(0);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_kept, 2);
    ck_assert_uint_eq(run_code(), 5);
}
END_TEST

/* A page of code both spaces share is not copied in at a switch (the
 * window has its bytes already), until one space rewrites it: then each
 * space runs its own bytes again. */
START_TEST(a_shared_code_page_one_space_rewrites_runs_each_spaces_bytes)
{
    uint32_t imm = CODE + 1;
    uint8_t store[] = { 0xc7, 0x05, 0, 0, 0, 0, 6, 0, 0, 0, 0xf4 }; /* movl $6, imm; hlt */
    const struct as_stats *st = addrspaces_stats(b.m.as);
    put_code(5);
    clone_to(1, 0);
    ck_assert_uint_eq(run_code(), 5);
    switch_to(1);
    ck_assert_uint_eq(st->switch_pages, 5);   /* out: CODE, DATA, SHARED; in: DATA only */
    ck_assert_uint_eq(run_code(), 5);
    memcpy(store + 2, &imm, 4);
    user_write(DATA, store, sizeof store);
    b.m.stop = STOP_NONE;
    bare_run(&b, DATA, false);                /* space 1's own store into CODE */
    ck_assert_uint_eq(run_code(), 6);
    for (int k = 0; k < 4; k++) {             /* 0, 1, 0, 1: each its own */
        switch_to(k % 2 ? 1 : 0);
        ck_assert_uint_eq(run_code(), (k % 2 ? 6u : 5u));
    }
}
END_TEST

/* Space i's CODE PTE: the page there, or none yet (an exec's new space). */
static void set_code_pte(int i, bool mapped)
{
    uint32_t pte = mapped ? CODE | USER_PG : 0;
    bare_write(&b, upt_at(i) + 4 * ((CODE >> 12) & 0x3ff), &pte, 4);
}

/* A fault's fill of CODE as the kernel asks for it (MM_FILE): the PTE,
 * then the bytes, written by the host. */
static void fill_code(int i, uint32_t value)
{
    uint8_t code[] = { 0xb8, 0, 0, 0, 0, 0xf4 };
    set_code_pte(i, true);
    memcpy(code + 1, &value, 4);
    uint8_t *page = as_page(b.m.as, CODE);
    memset(page, 0, PAGE_SIZE);
    memcpy(page, code, sizeof code);
    as_filled(b.m.as, b.m.uc, CODE);
}

/* exec: the current space runs code, then a new space with nothing at
 * CODE yet is switched to. */
static void exec_into(int i)
{
    make_tables(i, false);
    set_code_pte(i, false);
    switch_to(i);
}

/* The same program executed again: the code page's translations are held
 * while no page is there and kept when the same bytes come back. */
START_TEST(an_exec_of_the_same_program_keeps_its_translations)
{
    const struct as_stats *st = addrspaces_stats(b.m.as);
    put_code(7);
    ck_assert_uint_eq(run_code(), 7);
    uint64_t dropped = st->code_pages_dropped;
    exec_into(2);
    fill_code(2, 7);
    ck_assert(st->code_pages_held == 1 && st->code_pages_back == 1 &&
              st->code_pages_dropped == dropped);
    ck_assert_uint_eq(run_code(), 7);
    /* kept indeed: bytes the host writes unannounced do not run (quirk 17) */
    put_code(8);
    ck_assert_uint_eq(run_code(), 7);
}
END_TEST

/* Another program at the same address: what its fault brings in runs. */
START_TEST(an_exec_of_another_program_at_the_same_address_runs_the_new_code)
{
    put_code(1);
    ck_assert_uint_eq(run_code(), 1);
    exec_into(2);
    fill_code(2, 2);
    ck_assert_uint_eq(run_code(), 2);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_back, 0);
    exec_into(3);
    fill_code(3, 1);           /* the first program's bytes, not run last */
    ck_assert_uint_eq(run_code(), 1);
}
END_TEST

/* A held page meets the next space's bytes at a switch: the same ones
 * keep the translations, others drop them. */
START_TEST(a_held_page_runs_what_each_next_space_has_there)
{
    put_code(2);
    clone_to(1, 0);           /* space 1 holds "mov $2" */
    put_code(1);
    ck_assert_uint_eq(run_code(), 1);
    exec_into(2);             /* "mov $1" held */
    switch_to(1);
    ck_assert_uint_eq(run_code(), 2);
    exec_into(3);             /* "mov $2" held */
    switch_to(1);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_back, 1);
    ck_assert_uint_eq(run_code(), 2);
    switch_to(0);
    ck_assert_uint_eq(run_code(), 1);
}
END_TEST

/* A debugger's hooks reach only code translated after them: attaching
 * drops what is held, and nothing is held while it is attached. */
START_TEST(a_debugger_finds_no_held_code)
{
    struct debug d;
    put_code(7);
    ck_assert_uint_eq(run_code(), 7);
    exec_into(2);
    debug_attach(&d, &b.m);
    set_code_pte(2, true);
    put_code(9);              /* not told: only a dropped translation sees it */
    ck_assert_uint_eq(run_code(), 9);
    exec_into(3);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_held, 1);
    debug_detach(&d);
}
END_TEST

/* Room for AS_HELD_MAX pages' bytes: the pages past it lose their
 * translations at once, as every page did before. */
START_TEST(code_pages_past_the_room_to_hold_them_are_dropped_at_once)
{
    const uint32_t n = 300;   /* two execs' worth fill the room */
    add_big(0);
    for (uint32_t k = 0; k < n; k++)
        as_note_code(b.m.as, BIG + k * PAGE_SIZE, 1);
    exec_into(2);
    add_big(2);
    for (uint32_t k = n; k < 2 * n; k++)
        as_note_code(b.m.as, BIG + k * PAGE_SIZE, 1);
    uint64_t dropped = addrspaces_stats(b.m.as)->code_pages_dropped;
    exec_into(3);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_held, AS_HELD_MAX);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->code_pages_dropped,
                      dropped + 2 * n - AS_HELD_MAX);
}
END_TEST

START_TEST(the_bytes_follow_cr3)
{
    put(DATA, "space zero");
    make_tables(2, false);
    switch_to(2);             /* never seen: a fresh space */
    ck_assert_str_eq(at(DATA), "");
    put(DATA, "space two");
    switch_to(0);
    ck_assert_str_eq(at(DATA), "space zero");
    switch_to(2);
    ck_assert_str_eq(at(DATA), "space two");
    ck_assert_int_eq(as_count(b.m.as), 2);
    ck_assert_int_eq(as_destroy(b.m.as, pd_at(2)), -EINVAL);   /* current */
    switch_to(0);
    ck_assert_int_eq(as_destroy(b.m.as, pd_at(2)), 0);
    ck_assert_int_eq(as_count(b.m.as), 1);
}
END_TEST

/* A gone space's store serves the next new space (item 45): what it held
 * shows nowhere, the new space's own bytes do. */
START_TEST(a_new_space_on_a_gone_spaces_store_shows_only_its_own_bytes)
{
    uint32_t loose = LOOSE | USER_PG;
    put(DATA, "space zero");
    clone_to(2, 0);
    bare_write(&b, upt_at(2) + 4 * ((LOOSE >> 12) & 0x3ff), &loose, 4);
    switch_to(2);
    put(DATA, "space two");
    put(LOOSE, "two's loose");
    switch_to(0);
    ck_assert_int_eq(as_destroy(b.m.as, pd_at(2)), 0);
    clone_to(3, 0);
    switch_to(3);
    ck_assert_str_eq(at(DATA), "space zero");
    ck_assert_str_eq(at(LOOSE), "");
}
END_TEST

START_TEST(a_clone_gets_the_mapped_pages_only)
{
    put(DATA, "mapped");
    put(LOOSE, "not mapped");
    clone_to(3, 0);
    put(DATA, "changed after");
    switch_to(3);
    ck_assert_str_eq(at(DATA), "mapped");
    ck_assert_str_eq(at(LOOSE), "");
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->clones, 1);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->pages_copied, 3);   /* CODE, DATA, SHARED */
    switch_to(0);
    ck_assert_str_eq(at(DATA), "changed after");
}
END_TEST

START_TEST(a_released_range_reads_zero)
{
    put(DATA, "bytes");
    ck_assert_int_eq(as_release(b.m.as, b.m.uc, &b.m.mem, DATA, PAGE_SIZE), 0);
    ck_assert_str_eq(at(DATA), "");
    ck_assert_int_eq(as_release(b.m.as, b.m.uc, &b.m.mem, DATA + 1, PAGE_SIZE), -EINVAL);
    ck_assert_int_eq(as_release(b.m.as, b.m.uc, &b.m.mem, 0xbffff000u, 2 * PAGE_SIZE),
                     -EINVAL);
}
END_TEST

START_TEST(every_space_that_maps_a_shared_object_sees_its_bytes)
{
    int obj = as_shm_create(b.m.as, 2);
    ck_assert_int_ge(obj, 0);
    ck_assert_int_eq(as_shm_map(b.m.as, SHARED, 2 * PAGE_SIZE, (uint32_t)obj, 0), 0);
    ck_assert_int_eq(as_shm_fault(b.m.as, SHARED, false), -ENOMEM);
    ck_assert_int_eq(as_shm_fault(b.m.as, SHARED, true), 1);    /* new: zeroed */
    ck_assert_int_eq(as_shm_fault(b.m.as, SHARED, true), 0);    /* has bytes now */
    put(SHARED, "from zero");
    clone_to(4, 0);
    switch_to(4);
    ck_assert_str_eq(at(SHARED), "from zero");
    put(SHARED, "from four");
    switch_to(0);
    ck_assert_str_eq(at(SHARED), "from four");
    uint32_t held;
    ck_assert_int_eq(as_shm_free(b.m.as, (uint32_t)obj, &held), 0);
    ck_assert_uint_eq(held, 1);
    ck_assert_int_eq(as_shm_map(b.m.as, SHARED, PAGE_SIZE, (uint32_t)obj, 0), -EINVAL);
}
END_TEST

START_TEST(a_switch_counts_the_pages_the_space_touched)
{
    static const uint8_t code[] = {
        0xa1, 0x00, 0x90, 0x04, 0x08,      /* mov DATA, %eax */
        0xf4,
    };
    user_write(CODE, code, sizeof code);
    make_tables(5, false);
    run_code();
    ck_assert_uint_eq(switch_to(5), 2);   /* the code page and DATA */
    ck_assert_uint_eq(switch_to(0), 0);   /* space 5 ran nothing */
    ck_assert_uint_eq(switch_to(5), 0);   /* nor did 0 since: the bits were cleared */
}
END_TEST

/* A store of the program's own (no host write to note it) sets the
 * accessed bit of its page as the walk finds it: that page goes out with
 * the switch, one the space did not touch stays in the store it came
 * from. */
START_TEST(a_page_the_program_stored_to_follows_cr3_and_an_untouched_one_is_not_copied)
{
    static const uint8_t code[] = {
        0xc7, 0x05, 0x00, 0x90, 0x04, 0x08, 7, 0, 0, 0,    /* movl $7, DATA */
        0xf4,
    };
    const struct as_stats *st = addrspaces_stats(b.m.as);
    uint32_t seven = 0;
    put(SHARED, "zero's");
    make_tables(8, true);
    switch_to(8);
    switch_to(0);             /* past the first switch: what is touched is known */
    user_write(CODE, code, sizeof code);
    run_code();
    uint64_t before = st->switch_pages;
    ck_assert_uint_eq(switch_to(8), 2); /* touched: CODE, DATA */
    ck_assert_uint_eq(st->switch_pages - before, 2 + 3);   /* out CODE, DATA; in all three */
    switch_to(0);
    memcpy(&seven, at(DATA), 4);
    ck_assert_uint_eq(seven, 7);
    ck_assert_str_eq(at(SHARED), "zero's");
}
END_TEST

/* A page stored to and then made inaccessible in the same turn (mprotect
 * PROT_NONE rewrites its entry, accessed bit and all) still goes out. */
START_TEST(a_page_stored_to_then_made_inaccessible_still_follows_cr3)
{
    static const uint8_t code[] = {
        0xc7, 0x05, 0x00, 0x90, 0x04, 0x08, 9, 0, 0, 0,    /* movl $9, DATA */
        0xf4,
    };
    uint32_t none = DATA | PTE_SW_PROTNONE, back = DATA | USER_PG, nine = 0;
    make_tables(8, false);
    switch_to(8);
    switch_to(0);
    user_write(CODE, code, sizeof code);
    run_code();
    bare_write(&b, upt_at(0) + 4 * ((DATA >> 12) & 0x3ff), &none, 4);
    switch_to(8);
    switch_to(0);
    bare_write(&b, upt_at(0) + 4 * ((DATA >> 12) & 0x3ff), &back, 4);
    memcpy(&nine, at(DATA), 4);
    ck_assert_uint_eq(nine, 9);
}
END_TEST

/* What a debugger writes into a page the program then leaves alone
 * still follows CR3: no page walk of the program's marked the page, the
 * debugger's write did (as_host_wrote). */
START_TEST(a_debuggers_write_to_an_untouched_page_follows_cr3)
{
    struct debug d;
    make_tables(8, false);
    switch_to(8);
    switch_to(0);             /* past the first switch: what is touched is known */
    debug_attach(&d, &b.m);
    ck_assert_uint_eq(debug_write_mem(&d, DATA, (const uint8_t *)"from gdb", 9), 9);
    debug_detach(&d);
    switch_to(8);
    ck_assert_str_eq(at(DATA), "");
    switch_to(0);
    ck_assert_str_eq(at(DATA), "from gdb");
}
END_TEST

/* CODE read-only in spaces 0 and 1, the same bytes, run by both and
 * handed back and forth with nothing run between that could lower a
 * permission: from the second switch on, known the same uncompared. */
static void read_only_code_in_two_spaces(const struct as_stats *st)
{
    uint32_t ro = CODE | X86_PTE_PRESENT | X86_PTE_USER;
    bare_write(&b, upt_at(0) + 4 * ((CODE >> 12) & 0x3ff), &ro, 4);
    put_code(5);
    clone_to(1, 0);
    ck_assert_uint_eq(run_code(), 5);
    switch_to(1);             /* the first: compared */
    ck_assert_uint_eq(run_code(), 5);
    ck_assert_uint_eq(st->code_pages_known, 0);
    switch_to(0);
    ck_assert_uint_eq(st->code_pages_known, 1);
    ck_assert_uint_eq(run_code(), 5);
    switch_to(1);
    ck_assert_uint_eq(st->code_pages_known, 2);
}

static size_t put_insn(uint8_t *at, const uint8_t *op, size_t n, const uint32_t *a, int na)
{
    memcpy(at, op, n);
    if (na)
        memcpy(at + n, a, 4 * (size_t)na);
    return n + 4 * (size_t)na;
}

/* Space 1, at CPL 0, makes CODE writable, stores 6 as its immediate and
 * makes it read-only again, as the kernel's mprotect would, emptying
 * the TLB after each change with invlpg or a CR3 reload; then each
 * space runs its own bytes. */
static void rewrite_in_one_then_each_runs_its_own(bool reload_cr3)
{
    static const uint8_t movl_to_mem[] = { 0xc7, 0x05 }, invlpg[] = { 0x0f, 0x01, 0x3d },
                         reload[] = { 0x0f, 0x20, 0xd8, 0x0f, 0x22, 0xd8 }; /* cr3 -> eax -> cr3 */
    uint32_t pte_at = upt_at(1) + 4 * ((CODE >> 12) & 0x3ff), code_at = CODE;
    uint32_t rw[] = { pte_at, CODE | X86_PTE_PRESENT | X86_PTE_USER | X86_PTE_RW };
    uint32_t ro[] = { pte_at, CODE | X86_PTE_PRESENT | X86_PTE_USER }, six[] = { CODE + 1, 6 };
    uint8_t code[64];
    size_t k = 0;
    const uint32_t *changes[] = { rw, six, ro };
    for (int c = 0; c < 3; c++) {
        k += put_insn(code + k, movl_to_mem, sizeof movl_to_mem, changes[c], 2);
        if (c != 1)
            k += reload_cr3 ? put_insn(code + k, reload, sizeof reload, NULL, 0)
                            : put_insn(code + k, invlpg, sizeof invlpg, &code_at, 1);
    }
    code[k++] = 0xf4;
    user_write(DATA, code, k);
    b.m.stop = STOP_NONE;
    bare_run(&b, DATA, false);
    ck_assert_uint_eq(run_code(), 6);
    for (int n = 0; n < 4; n++) {             /* 0, 1, 0, 1: each its own */
        switch_to(n % 2 ? 1 : 0);
        ck_assert_uint_eq(run_code(), (n % 2 ? 6u : 5u));
    }
}

/* _i = 0: invlpg after each change, 1: CR3 reloads (a CR3 load other
 * than a switch's own makes the slice not quiet too). */
START_TEST(a_read_only_code_page_known_unwritten_is_compared_once_rewritten)
{
    const struct as_stats *st = addrspaces_stats(b.m.as);
    read_only_code_in_two_spaces(st);
    rewrite_in_one_then_each_runs_its_own(_i == 1);
    ck_assert_uint_eq(st->code_pages_known, 2);
}
END_TEST

/* With CR0.WP clear the kernel stores through read-only entries: such a
 * page is compared at the next switch however quiet the slice was. */
START_TEST(a_read_only_page_the_kernel_may_write_without_wp_is_compared)
{
    const struct as_stats *st = addrspaces_stats(b.m.as);
    uint32_t imm = CODE + 1;
    uint8_t store[] = { 0xc7, 0x05, 0, 0, 0, 0, 6, 0, 0, 0, 0xf4 }; /* movl $6, CODE + 1 */
    memcpy(store + 2, &imm, 4);
    read_only_code_in_two_spaces(st);
    reg_write(&b.m, UC_X86_REG_CR0, bare_reg(&b, UC_X86_REG_CR0) & ~X86_CR0_WP);
    user_write(DATA, store, sizeof store);
    b.m.stop = STOP_NONE;
    bare_run(&b, DATA, false);
    ck_assert_uint_eq(run_code(), 6);
    switch_to(0);
    ck_assert_uint_eq(run_code(), 5);
    switch_to(1);
    ck_assert_uint_eq(run_code(), 6);
    ck_assert_uint_eq(st->code_pages_known, 2);
}
END_TEST


START_TEST(a_small_switch_copies_and_what_only_the_last_space_kept_reads_zero)
{
    put(SHARED, "only zero keeps it");
    put(DATA, "zero");
    make_tables(8, false);
    switch_to(8);
    ck_assert_str_eq(at(SHARED), "");
    ck_assert_str_eq(at(DATA), "");
    put(DATA, "eight");
    switch_to(0);
    ck_assert_str_eq(at(SHARED), "only zero keeps it");
    ck_assert_str_eq(at(DATA), "zero");
    switch_to(8);
    ck_assert_str_eq(at(DATA), "eight");
    ck_assert_str_eq(at(SHARED), "");   /* 0's, and 8 keeps nothing there */
    /* the first switch, where what the window holds is not known yet: out
     * of 0 CODE, DATA, SHARED, into 8 CODE, DATA; then out of 8 only the
     * DATA written, into 0 its three; out of 0 nothing (untouched since),
     * into 8 its two */
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->switch_pages, 5 + 4 + 2);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->window_moves, 0);
}
END_TEST

/* A page the host wrote where neither space keeps one (a fill the kernel
 * asked for before its PTE, say) reads zero after a switch, one written
 * page or more than the switch remembers (in a 4 MiB the outgoing space
 * maps: those the host is asked about), in either direction. */
START_TEST(what_the_host_wrote_where_no_space_keeps_a_page_reads_zero_after_a_switch)
{
    make_tables(9, false);
    switch_to(9);
    switch_to(0);             /* the window's bytes are the spaces' now */
    memcpy(as_page(b.m.as, LOOSE), "no one's", 9);
    switch_to(9);
    ck_assert_str_eq(at(LOOSE), "");
    for (uint32_t k = 0; k < 2 * AS_LOOSE_MAX; k++)
        memcpy(as_page(b.m.as, FAR + k * PAGE_SIZE), "host", 5);
    memcpy(as_page(b.m.as, LOOSE), "no one's", 9);
    put(DATA, "nine");
    switch_to(0);
    ck_assert_str_eq(at(LOOSE), "");
    ck_assert_str_eq(at(FAR), "");
    ck_assert_str_eq(at(FAR + (2 * AS_LOOSE_MAX - 1) * PAGE_SIZE), "");
    switch_to(9);
    ck_assert_str_eq(at(DATA), "nine");
}
END_TEST

START_TEST(a_switch_too_big_to_copy_moves_the_window_and_the_bytes_still_follow_cr3)
{
    add_big(0);
    put(BIG + 0x123000, "big zero");
    put(DATA, "zero");
    make_tables(6, false);
    make_tables(7, false);
    switch_to(6);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->window_moves, 1);
    ck_assert_str_eq(at(BIG + 0x123000), "");
    ck_assert_str_eq(at(DATA), "");
    put(DATA, "six");
    switch_to(7);             /* two small spaces: copied */
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->window_moves, 1);
    ck_assert_str_eq(at(DATA), "");
    put(DATA, "seven");
    switch_to(6);
    ck_assert_str_eq(at(DATA), "six");
    switch_to(0);
    ck_assert_uint_eq(addrspaces_stats(b.m.as)->window_moves, 2);
    ck_assert_str_eq(at(BIG + 0x123000), "big zero");
    ck_assert_str_eq(at(DATA), "zero");
    switch_to(7);
    ck_assert_str_eq(at(DATA), "seven");
    ck_assert_str_eq(at(BIG + 0x123000), "");
}
END_TEST

Suite *addrspace_suite(void)
{
    Suite *s = suite_create("addrspace");
    TCase *tc = tcase_create("spaces");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, code_at_the_same_address_in_two_spaces_runs_each_its_own);
    tcase_add_test(tc, translations_stay_where_the_next_space_has_the_same_code);
    tcase_add_test(tc, a_shared_code_page_one_space_rewrites_runs_each_spaces_bytes);
    tcase_add_test(tc, an_exec_of_the_same_program_keeps_its_translations);
    tcase_add_test(tc, an_exec_of_another_program_at_the_same_address_runs_the_new_code);
    tcase_add_test(tc, a_held_page_runs_what_each_next_space_has_there);
    tcase_add_test(tc, code_pages_past_the_room_to_hold_them_are_dropped_at_once);
    tcase_add_test(tc, a_debugger_finds_no_held_code);
    tcase_add_test(tc, a_debuggers_write_to_an_untouched_page_follows_cr3);
    tcase_add_loop_test(tc, a_read_only_code_page_known_unwritten_is_compared_once_rewritten, 0, 2);
    tcase_add_test(tc, a_read_only_page_the_kernel_may_write_without_wp_is_compared);
    tcase_add_test(tc, the_bytes_follow_cr3);
    tcase_add_test(tc, a_clone_gets_the_mapped_pages_only);
    tcase_add_test(tc, a_new_space_on_a_gone_spaces_store_shows_only_its_own_bytes);
    tcase_add_test(tc, a_released_range_reads_zero);
    tcase_add_test(tc, every_space_that_maps_a_shared_object_sees_its_bytes);
    tcase_add_test(tc, a_switch_counts_the_pages_the_space_touched);
    tcase_add_test(tc, a_small_switch_copies_and_what_only_the_last_space_kept_reads_zero);
    tcase_add_test(tc, a_page_the_program_stored_to_follows_cr3_and_an_untouched_one_is_not_copied);
    tcase_add_test(tc, a_page_stored_to_then_made_inaccessible_still_follows_cr3);
    tcase_add_test(tc, what_the_host_wrote_where_no_space_keeps_a_page_reads_zero_after_a_switch);
    tcase_add_test(tc, a_switch_too_big_to_copy_moves_the_window_and_the_bytes_still_follow_cr3);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(addrspace_suite());
}
