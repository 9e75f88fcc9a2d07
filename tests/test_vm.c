/*
 * One process's address space under the guest kernel (guest/kernel/mmap.c,
 * memory.c): demand paging, the stack that grows to 8 MiB, brk, mmap,
 * munmap, mprotect, mremap, and the --mem limit, run by
 * guest/programs/vm.c.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

static void vm(struct emu_result *r, const char *mem, const char *c, const char *n)
{
    const char *args[8] = { "run" };
    int i = 1;
    if (mem) {
        args[i++] = "--mem";
        args[i++] = mem;
    }
    args[i++] = program("vm");
    args[i++] = c;
    args[i++] = n;
    args[i] = NULL;
    run_emu(r, args);
}

/* The one kill report names a #PF at the address the program printed. */
static void killed_at_printed_cr2(const struct emu_result *r, const char *what)
{
    ck_assert_msg(r->status == 139, "%s: exit %d: %s", what, r->status, r->err);
    long want = hex_after(r->out, "cr2=");
    ck_assert_msg(want > 0, "%s printed no cr2: %s", what, r->out);
    ck_assert_int_eq(count_char(r->err, '\n'), 1);
    ck_assert_msg(strstr(r->err, "killed by SIGSEGV: #PF page fault"), "%s: %s", what, r->err);
    ck_assert_msg(hex_after(r->err, "cr2 ") == want, "%s: want cr2 %lx: %s", what, want, r->err);
}

START_TEST(the_stack_grows_on_demand_to_7_mib)
{
    struct emu_result r;
    vm(&r, NULL, "stack", "7000");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "ok 7000\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(the_stack_stops_at_8_mib)
{
    struct emu_result r;
    vm(&r, NULL, "stack-over", NULL);
    ck_assert_int_eq(r.status, 139);
    long cr2 = hex_after(r.err, "cr2 ");
    ck_assert_msg(cr2 >= (long)(USER_STACK_TOP - USER_STACK_MAX - PAGE_SIZE) &&
                  cr2 < (long)(USER_STACK_TOP - USER_STACK_MAX), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(touching_more_than_mem_kills_the_process)
{
    struct emu_result r;
    vm(&r, "16M", "touch", "15");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "ok\n");
    emu_result_free(&r);
    vm(&r, "16M", "touch", "16");
    ck_assert_msg(r.status == 139, "exit %d: %s", r.status, r.err);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    ck_assert_msg(strstr(r.err, "killed by SIGSEGV: out of memory (--mem)"), "%s", r.err);
    ck_assert_str_eq(r.out, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(one_mapping_larger_than_mem_is_enomem)
{
    struct emu_result r;
    vm(&r, NULL, "mmap-huge", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "ENOMEM\n");
    emu_result_free(&r);
    vm(&r, "16M", "touch", "32");
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.out, "mmap: 12\n");
    emu_result_free(&r);
}
END_TEST

/* The child's copy counts against --mem with the parent's pages. */
START_TEST(a_fork_whose_copy_exceeds_mem_is_enomem)
{
    struct emu_result r;
    vm(&r, "16M", "fork-after", "6");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "ok\nfork: child exited 0\n");
    emu_result_free(&r);
    vm(&r, "16M", "fork-after", "9");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "ok\nfork: ENOMEM\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(heap_pages_given_back_come_back_zero)
{
    struct emu_result r;
    vm(&r, NULL, "brk", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "brk: grew 1 MiB, 0 of 256 pages nonzero after shrink and grow\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(mremap_grows_moves_and_shrinks_with_the_bytes)
{
    struct emu_result r;
    vm(&r, NULL, "mremap", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "moved yes; bytes abc; new tail 0\n"
                            "shrunk to the same place; byte a\n"
                            "grew in place: yes, byte a, new page 0\n");
    emu_result_free(&r);
}
END_TEST

START_TEST(mprotect_keeps_the_bytes_and_prot_none_faults)
{
    struct emu_result r;
    vm(&r, NULL, "mprotect", NULL);
    ck_assert(strstr(r.out, "read-only page reads r\nPROT_NONE then PROT_READ keeps n\n"));
    killed_at_printed_cr2(&r, "mprotect");
    ck_assert_msg(strstr(r.err, "error 0x4\n"), "%s", r.err);   /* user read, not present */
    emu_result_free(&r);
}
END_TEST

START_TEST(an_unmapped_page_faults_and_a_hole_refills_zero)
{
    struct emu_result r;
    vm(&r, NULL, "munmap", NULL);
    killed_at_printed_cr2(&r, "munmap");
    emu_result_free(&r);
    vm(&r, NULL, "maps", NULL);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "refilled the hole: yes; 01...567\n");
    emu_result_free(&r);
}
END_TEST

Suite *vm_suite(void)
{
    Suite *s = suite_create("vm");
    TCase *tc = tcase_create("address space");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, the_stack_grows_on_demand_to_7_mib);
    tcase_add_test(tc, the_stack_stops_at_8_mib);
    tcase_add_test(tc, touching_more_than_mem_kills_the_process);
    tcase_add_test(tc, one_mapping_larger_than_mem_is_enomem);
    tcase_add_test(tc, a_fork_whose_copy_exceeds_mem_is_enomem);
    tcase_add_test(tc, heap_pages_given_back_come_back_zero);
    tcase_add_test(tc, mremap_grows_moves_and_shrinks_with_the_bytes);
    tcase_add_test(tc, mprotect_keeps_the_bytes_and_prot_none_faults);
    tcase_add_test(tc, an_unmapped_page_faults_and_a_hole_refills_zero);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vm_suite());
}
