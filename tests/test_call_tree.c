/*
 * emu/observe/call_tree.c on its own: a tree built by hand over a hand-made symbol
 * table, written as folded stacks and as a callgrind file that Debian's
 * callgrind_annotate (valgrind) reads back: each function's own cycles,
 * its cycles with its callees' (a deeper recursion not again), a call site of
 * its own per place a function is called from, code no symbol covers
 * named by its address, kernel code marked.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"
#include "../emu/observe/call_tree.h"

#define MAIN 0x08048000u
#define HELPER 0x08048100u
#define NOSYM 0x0804f000u
#define KENTRY 0xc0100000u

struct fixture {
    struct symtab syms;
    struct call_tree t;
    uint32_t main, helper, kernel, nosym;
};

static void fixture_init(struct fixture *x)
{
    memset(x, 0, sizeof *x);
    ck_assert_int_eq(symtab_add(&x->syms, "main", MAIN, MAIN + 0x100, SYM_FUNC), 0);
    ck_assert_int_eq(symtab_add(&x->syms, "help;er", HELPER, HELPER + 0x100, SYM_FUNC), 0);
    ck_assert_int_eq(symtab_add(&x->syms, "sysenter_entry", KENTRY, KENTRY + 0x80,
                                SYM_FUNC | SYM_KERNEL), 0);
    symtab_finish(&x->syms);
    ck_assert_int_eq(call_tree_init(&x->t), 0);
    x->main = call_tree_fn(&x->t, MAIN);
    x->helper = call_tree_fn(&x->t, HELPER);
    x->kernel = call_tree_fn(&x->t, KENTRY);
    x->nosym = call_tree_fn(&x->t, FN_UNNAMED | NOSYM);
    ck_assert_uint_eq(call_tree_fn(&x->t, MAIN), x->main);
}

static void fixture_free(struct fixture *x)
{
    call_tree_free(&x->t);
    symtab_free(&x->syms);
}

static uint32_t call(struct call_tree *t, uint32_t parent, uint32_t fn, uint32_t site,
                     uint64_t self)
{
    uint32_t n = call_tree_child(t, parent, fn, site);
    t->nodes[n].calls++;
    call_tree_charge(t, n, true, site + 4, self);
    return n;
}

/* main (100) calls helper from two places (50, 20); the first helper
 * enters the kernel (30); main calls code without a symbol (5); the root
 * itself holds 7. 212 in all. */
static void build(struct fixture *x)
{
    uint32_t m = call(&x->t, 0, x->main, 0x08047ff0, 100);
    uint32_t h = call(&x->t, m, x->helper, MAIN + 0x20, 50);
    call(&x->t, h, x->kernel, HELPER + 0x10, 30);
    call(&x->t, m, x->helper, MAIN + 0x40, 20);
    call(&x->t, m, x->nosym, MAIN + 0x60, 5);
    call_tree_charge(&x->t, 0, false, 0, 7);
}

static char *folded(struct fixture *x)
{
    const char *path = scratch("folded");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(call_tree_write_folded(&x->t, &x->syms, f), 0);
    ck_assert_int_eq(fclose(f), 0);
    char *text = read_file(path);
    unlink(path);
    return text;
}

static const char *callgrind(struct fixture *x)
{
    const char *path = scratch("callgrind.out");
    const struct callgrind_names names = { "emu run prog", "prog", "kernel.elf" };
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(call_tree_write_callgrind(&x->t, &x->syms, &names, f), 0);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* callgrind_annotate's figure for the line naming "file:fn [object]"
 * (its PROGRAM TOTALS for fn NULL); -1 if none. */
static long annotated(const char *path, bool inclusive, const char *fn)
{
    const char *argv[] = { "callgrind_annotate", "--auto=no", "--threshold=100",
                           inclusive ? "--inclusive=yes" : "--inclusive=no", path, NULL };
    struct emu_result r;
    run_command(&r, argv);
    ck_assert_msg(r.status == 0, "callgrind_annotate: %d %s", r.status, r.err);
    char want[96];
    snprintf(want, sizeof want, ":%s ", fn ? fn : "");
    long v = -1;
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l && v < 0;
         l = strtok_r(NULL, "\n", &save))
        if (fn ? strstr(l, "%)  ") && strstr(l, want) : strstr(l, "PROGRAM TOTALS") != NULL)
            v = strtol(l + strspn(l, " "), NULL, 10);
    emu_result_free(&r);
    return v;
}

START_TEST(folded_stacks_name_each_path_once_with_its_own_cycles)
{
    struct fixture x;
    fixture_init(&x);
    build(&x);
    char *text = folded(&x);
    /* a line per call site (help;er has two); ';' in a name becomes '_' */
    const char *want[] = {
        "main 100\n", "main;help_er 50\n", "main;help_er;sysenter_entry_[k] 30\n",
        "main;help_er 20\n", "main;0x0804f000 5\n", "[unknown] 7\n",
    };
    size_t len = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_msg(strstr(text, want[i]), "want %s in:\n%s", want[i], text);
        len += strlen(want[i]);
    }
    ck_assert_uint_eq(strlen(text), len);
    free(text);
    fixture_free(&x);
}
END_TEST

START_TEST(callgrind_annotate_reads_the_costs_back)
{
    struct fixture x;
    fixture_init(&x);
    build(&x);
    const char *path = callgrind(&x);
    ck_assert_int_eq(annotated(path, false, NULL), 212);
    ck_assert_int_eq(annotated(path, false, "main"), 100);
    ck_assert_int_eq(annotated(path, false, "help;er"), 70);
    ck_assert_int_eq(annotated(path, false, "sysenter_entry"), 30);
    ck_assert_int_eq(annotated(path, false, "0x0804f000"), 5);
    ck_assert_int_eq(annotated(path, true, "main"), 205);
    ck_assert_int_eq(annotated(path, true, "help;er"), 100);
    char *text = read_file(path);
    ck_assert_ptr_nonnull(strstr(text, "ob=kernel.elf\nfl=???\nfn=sysenter_entry\n"));
    ck_assert_ptr_nonnull(strstr(text, "ob=prog\nfl=???\nfn=main\n"));
    free(text);
    unlink(path);
    fixture_free(&x);
}
END_TEST

START_TEST(a_deeper_recursion_is_not_counted_again)
{
    struct fixture x;
    fixture_init(&x);
    /* main -> helper -> helper -> helper, 10 each */
    uint32_t n = call(&x.t, 0, x.main, 0x08047ff0, 10);
    n = call(&x.t, n, x.helper, MAIN + 0x20, 10);
    n = call(&x.t, n, x.helper, HELPER + 0x30, 10);
    call(&x.t, n, x.helper, HELPER + 0x30, 10);
    const char *path = callgrind(&x);
    ck_assert_int_eq(annotated(path, false, NULL), 40);
    ck_assert_int_eq(annotated(path, false, "help;er"), 30);
    /* its own 30 and the helper -> helper call (20) as callgrind writes a
     * recursion; the call one level deeper is inside that one, not again
     * (60 if it were) */
    ck_assert_int_eq(annotated(path, true, "help;er"), 50);
    ck_assert_int_eq(annotated(path, true, "main"), 40);
    unlink(path);
    fixture_free(&x);
}
END_TEST

START_TEST(a_node_is_one_per_parent_function_and_call_site)
{
    struct fixture x;
    fixture_init(&x);
    uint32_t m = call_tree_child(&x.t, 0, x.main, 1);
    ck_assert_uint_eq(call_tree_child(&x.t, 0, x.main, 1), m);
    ck_assert_uint_ne(call_tree_child(&x.t, 0, x.main, 2), m);
    ck_assert_uint_ne(call_tree_child(&x.t, m, x.main, 1), m);
    /* no function (no room for one): the cycles stay in the parent */
    ck_assert_uint_eq(call_tree_child(&x.t, m, UINT32_MAX, 1), m);
    ck_assert_uint_eq(x.t.nnodes, 4);
    ck_assert(!x.t.truncated);
    fixture_free(&x);
}
END_TEST

Suite *call_tree_suite(void)
{
    Suite *s = suite_create("call_tree");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, folded_stacks_name_each_path_once_with_its_own_cycles);
    tcase_add_test(tc, callgrind_annotate_reads_the_costs_back);
    tcase_add_test(tc, a_deeper_recursion_is_not_counted_again);
    tcase_add_test(tc, a_node_is_one_per_parent_function_and_call_site);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(call_tree_suite());
}
