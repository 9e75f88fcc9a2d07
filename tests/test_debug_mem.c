/* Guest memory as the debugger sees it (emu/cpu/debug_mem.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debug_rig.h"

/* ---- memory as the debugger sees it ---- */

START_TEST(memory_reads_follow_the_page_tables)
{
    struct guest *g = guest_new("pentium4", "one_call", "getpid", NULL);
    struct debug d;
    debug_attach(&d, &g->m);
    uint8_t buf[8];
    /* before the first instruction paging is off: physical memory */
    ck_assert_uint_eq(debug_read_mem(&d, 0x00001000u, buf, 8), 8);
    uint32_t main_fn = psym("one_call", "main");
    to_main(&d, "one_call");
    ck_assert_uint_eq(reg(g, UC_X86_REG_CS), __USER_CS);
    /* user code: readable, not writable (read-only pages) */
    uint8_t code[4];
    ck_assert_uint_eq(debug_read_mem(&d, main_fn, code, 4), 4);
    ck_assert(!memcmp(code, guest_ptr(&g->m.mem, main_fn, 4), 4));
    ck_assert_uint_eq(debug_write_mem(&d, main_fn, code, 4), 0);
    /* the user stack: writable; what is written reads back */
    uint32_t esp = reg(g, UC_X86_REG_ESP), v = 0x5a5aa5a5, old = word(&d, esp - 64);
    ck_assert_uint_eq(debug_write_mem(&d, esp - 64, (uint8_t *)&v, 4), 4);
    ck_assert_uint_eq(word(&d, esp - 64), v);
    ck_assert_uint_eq(debug_write_mem(&d, esp - 64, (uint8_t *)&old, 4), 4);
    /* never mapped: the NULL page, a hole in user space, beyond kernel RAM */
    ck_assert_uint_eq(debug_read_mem(&d, 0, buf, 1), 0);
    ck_assert_uint_eq(debug_read_mem(&d, 0x40000000u, buf, 1), 0);
    ck_assert_uint_eq(debug_read_mem(&d, KERNEL_BASE + KERNEL_RAM_SIZE, buf, 1), 0);
    /* a read stops at the first byte it cannot read */
    ck_assert_uint_eq(debug_read_mem(&d, KERNEL_BASE + KERNEL_RAM_SIZE - 3, buf, 8), 3);
    /* kernel memory reads as the kernel sees it, from ring 3 too */
    uint32_t entry = ksym("sysenter_entry");
    ck_assert_uint_eq(debug_read_mem(&d, entry, buf, 8), 8);
    ck_assert(!memcmp(buf, guest_ptr(&g->m.mem, entry, 8), 8));
    /* the vsyscall page: user-readable, writable by no one */
    ck_assert_uint_eq(debug_read_mem(&d, VSYSCALL_BASE, buf, 1), 1);
    ck_assert_uint_eq(buf[0], 0x51);   /* push %ecx */
    ck_assert_uint_eq(debug_write_mem(&d, VSYSCALL_BASE, buf, 1), 0);
    ck_assert_int_eq(run_out(&d), 0);
    guest_free(g);
}
END_TEST

Suite *debug_mem_suite(void)
{
    Suite *s = suite_create("debug_mem");
    TCase *tc_memory = tcase_create("memory");
    tcase_set_timeout(tc_memory, 120);
    tcase_add_test(tc_memory, memory_reads_follow_the_page_tables);
    suite_add_tcase(s, tc_memory);
    return s;
}

int main(void)
{
    return run_suite(debug_mem_suite());
}
