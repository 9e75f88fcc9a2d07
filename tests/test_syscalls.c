/*
 * The system-call accounting (emu/account/syscalls.c), attached to a machine that
 * runs guest programs: each call or trap becomes one record, on the path
 * it entered by and left by, with its entry, body and exit split at the
 * kernel's dispatch call, and each record reaches every listener once.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "syscall_nr.h"

#define MAX_RECORDS 64

/* What a listener heard: the system calls in rec; the traps (demand
 * paging takes some in any program) counted, the last one kept. */
struct heard {
    struct syscall_record rec[MAX_RECORDS];
    int nrec;
    struct syscall_record last_trap;
    int ntraps;
    int spans;
    uint64_t span_end[MAX_RECORDS];   /* the end of the span before record i */
    int order[2 * MAX_RECORDS];       /* which listener heard each record */
    int norder;
};

static struct heard *heard;

static void on_record(void *ctx, const struct syscall_record *r)
{
    if (r->path == PATH_TRAP) {
        heard->last_trap = *r;
        heard->ntraps += ctx == (void *)1;
    } else if (heard->nrec < MAX_RECORDS) {
        heard->rec[heard->nrec++] = *r;
    }
    heard->order[heard->norder++ % (2 * MAX_RECORDS)] = (int)(intptr_t)ctx;
}

static void on_span(void *ctx, uint32_t pid, uint64_t start, uint64_t end)
{
    (void)ctx;
    ck_assert_uint_ne(pid, 0);
    ck_assert_uint_lt(start, end);
    if (heard->nrec < MAX_RECORDS)
        heard->span_end[heard->nrec] = end;
    heard->spans++;
}

/* The names heard, in order, and whether each span's process had one. */
#define MAX_NAMES 8
static struct {
    uint32_t pid[MAX_NAMES];
    char comm[MAX_NAMES][TASK_COMM_LEN];
    int n;
    int unnamed_spans, spans;
} names;

static void on_named(void *ctx, uint32_t pid, const char *comm)
{
    (void)ctx;
    ck_assert_int_lt(names.n, MAX_NAMES);
    ck_assert_uint_lt(strlen(comm), TASK_COMM_LEN);
    names.pid[names.n] = pid;
    snprintf(names.comm[names.n++], TASK_COMM_LEN, "%s", comm);
}

static void on_named_span(void *ctx, uint32_t pid, uint64_t start, uint64_t end)
{
    (void)ctx;
    (void)start;
    (void)end;
    bool named = false;
    for (int i = 0; i < names.n; i++)
        named |= names.pid[i] == pid;
    names.unnamed_spans += !named;
    names.spans++;
}

static struct guest *listen_to(const char *cpu, const char *prog, const char *arg)
{
    struct guest *g = guest_new(cpu, prog, arg, NULL);
    const struct syscall_listener l = { .ctx = (void *)1, .record = on_record,
                                        .user_span = on_span };
    heard = calloc(1, sizeof *heard);
    ck_assert_int_eq(syscalls_listen(&g->sys, &l), 0);
    return g;
}

static void done(struct guest *g)
{
    guest_free(g);
    free(heard);
}

START_TEST(a_call_through_the_vsyscall_page_is_one_record_in_three_phases)
{
    struct guest *g = listen_to("pentium4", "one_call", "gettimeofday");
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_eq(heard->nrec, 2);             /* gettimeofday, exit_group */
    const struct syscall_record *r = &heard->rec[0];
    ck_assert_uint_eq(r->nr, SYS_gettimeofday);
    ck_assert_uint_eq(r->path, PATH_SYSENTER);
    ck_assert_uint_eq(r->ret, RET_SYSEXIT);
    ck_assert_int_eq(r->result, 0);
    ck_assert_uint_eq(r->user_eip, VSYSCALL_BASE + 5);   /* the stub's sysenter */
    ck_assert(r->start < r->body_start && r->body_start < r->exit_start &&
              r->exit_start < r->end);
    ck_assert_uint_gt(r->insns_end, r->insns_start);
    ck_assert_uint_eq(r->seq, 1 + heard->ntraps);
    ck_assert_uint_eq(heard->rec[1].nr, SYS_exit_group);
    ck_assert_uint_eq(heard->rec[1].ret, RET_EXITED);
    ck_assert_uint_eq(heard->rec[1].seq, 2 + heard->ntraps);
    /* the tracker's sums agree with the record */
    const struct syscall_stat *s = &g->sys.stats[PATH_SYSENTER][SYS_gettimeofday];
    ck_assert_uint_eq(s->calls, 1);
    ck_assert_uint_eq(s->total, r->end - r->start);
    ck_assert_uint_eq(s->entry + s->body + s->exit, s->total);
    ck_assert_uint_eq(g->sys.by_path[PATH_SYSENTER], 2);
    ck_assert_uint_eq(g->sys.returns_sysexit, 1);
    ck_assert_uint_eq(g->sys.vsyscall_calls, 1);  /* exit_group never comes back */
    ck_assert_uint_gt(g->sys.vsyscall_cycles, s->total);   /* the stub around it */
    done(g);
}
END_TEST

START_TEST(without_sep_the_same_call_enters_by_int80_and_leaves_by_iret)
{
    struct guest *g = listen_to("pentium4,-sep", "one_call", "gettimeofday");
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_eq(heard->nrec, 2);
    ck_assert_uint_eq(heard->rec[0].path, PATH_INT80);
    ck_assert_uint_eq(heard->rec[0].ret, RET_IRET);
    ck_assert_uint_eq(g->sys.by_path[PATH_SYSENTER], 0);
    ck_assert_uint_eq(g->sys.returns_iret, 1 + (uint64_t)heard->ntraps);
    done(g);
}
END_TEST

START_TEST(the_arguments_are_the_registers_and_the_sixth_is_on_the_user_stack)
{
    /* check_syscalls makes sysemu_args6(1, 2, 3, 4, 5, 6) among others */
    static const char *const modes[] = { "int80", "vsyscall" };
    struct guest *g = listen_to("pentium4", "check_syscalls", modes[_i]);
    ck_assert_int_eq(guest_run(g), 0);
    int found = 0;
    for (int i = 0; i < heard->nrec; i++) {
        const struct syscall_record *r = &heard->rec[i];
        if (r->nr != SYS_sysemu_args6 || r->args[0] != 1)
            continue;
        for (int a = 0; a < 6; a++)
            ck_assert_uint_eq(r->args[a], (uint32_t)a + 1);
        ck_assert_uint_eq(r->path, _i ? PATH_SYSENTER : PATH_INT80);
        found++;
    }
    ck_assert_int_eq(found, 1);
    done(g);
}
END_TEST

START_TEST(a_user_fault_is_a_trap_record_with_its_error_code)
{
    struct guest *g = listen_to("pentium4", "faults", "kread");
    ck_assert_int_eq(guest_run(g), 128 + 11);
    const struct syscall_record *last = &heard->last_trap;
    ck_assert_int_gt(heard->ntraps, 0);
    ck_assert_uint_eq(last->path, PATH_TRAP);
    ck_assert_uint_eq(last->nr, X86_VEC_PF);
    ck_assert_uint_eq(last->error_code, X86_PF_USER | X86_PF_PROT);
    ck_assert_uint_eq(last->ret, RET_EXITED);
    ck_assert_uint_gt(last->seq, heard->rec[heard->nrec - 1].seq);
    ck_assert_uint_eq(g->sys.by_path[PATH_TRAP], (uint64_t)heard->ntraps);
    done(g);
}
END_TEST

START_TEST(faults_the_kernel_fixes_up_are_counted_in_the_call)
{
    /* write(1, a bad buffer): the copy faults in the kernel, the exception
     * table turns it into -EFAULT */
    struct guest *g = listen_to("pentium4", "faults", "efault-storm");
    guest_run(g);
    int faulted = 0;
    for (int i = 0; i < heard->nrec; i++)
        if (heard->rec[i].nr == SYS_write && heard->rec[i].result == -14)
            faulted += heard->rec[i].kernel_faults > 0;
    ck_assert_int_gt(faulted, 0);
    done(g);
}
END_TEST

START_TEST(calls_the_kernel_has_no_handler_for_count_as_enosys)
{
    struct guest *g = listen_to("pentium3", "check_syscalls", "vsyscall");
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_uint_eq(g->sys.enosys, 3);    /* acct, 5000, -1 */
    done(g);
}
END_TEST

START_TEST(user_time_between_calls_reaches_the_listener_first)
{
    struct guest *g = guest_new("pentium4", "syscall_loop", "getpid", "3", NULL);
    const struct syscall_listener l = { .ctx = (void *)1, .record = on_record,
                                        .user_span = on_span };
    heard = calloc(1, sizeof *heard);
    ck_assert_int_eq(syscalls_listen(&g->sys, &l), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_ge(heard->nrec, 4);
    ck_assert_int_ge(heard->spans, heard->nrec);
    ck_assert_int_le(heard->spans, heard->nrec + heard->ntraps);
    for (int i = 0; i < heard->nrec; i++)
        ck_assert_uint_eq(heard->span_end[i], heard->rec[i].start);
    done(g);
}
END_TEST

/* proc exec: the program forks a child that execs /proc/self/exe. Each
 * process is named (the kernel's comm) before its first user span: the
 * program's file name, the child its parent's, then after the exec the
 * last part of the path it ran. */
START_TEST(each_process_is_named_before_it_runs_and_again_after_an_exec)
{
    struct guest *g = guest_new("pentium4", "proc", "exec", NULL);
    const struct syscall_listener l = { .named = on_named, .user_span = on_named_span };
    memset(&names, 0, sizeof names);
    ck_assert_int_eq(syscalls_listen(&g->sys, &l), 0);
    ck_assert_int_eq(guest_run(g), 0);
    ck_assert_int_eq(names.n, 3);
    ck_assert_str_eq(names.comm[0], "proc");
    ck_assert_str_eq(names.comm[1], "proc");
    ck_assert_str_eq(names.comm[2], "exe");
    ck_assert_uint_ne(names.pid[0], names.pid[1]);
    ck_assert_uint_eq(names.pid[1], names.pid[2]);
    ck_assert_int_gt(names.spans, 4);
    ck_assert_int_eq(names.unnamed_spans, 0);
    guest_free(g);
}
END_TEST

START_TEST(every_listener_hears_every_record_in_the_order_they_listened)
{
    struct guest *g = listen_to("pentium3", "one_call", "getpid");
    const struct syscall_listener second = { .ctx = (void *)2, .record = on_record };
    ck_assert_int_eq(syscalls_listen(&g->sys, &second), 0);
    ck_assert_int_eq(guest_run(g), 0);
    /* two system calls and the traps, two listeners */
    ck_assert_int_eq(heard->norder, 2 * (2 + heard->ntraps));
    ck_assert_int_eq(heard->order[0], 1);
    ck_assert_int_eq(heard->order[1], 2);
    ck_assert_int_eq(heard->order[2], 1);
    ck_assert_int_eq(heard->order[3], 2);
    for (int i = 2; i < SYSCALL_MAX_LISTENERS; i++)
        ck_assert_int_eq(syscalls_listen(&g->sys, &second), 0);
    ck_assert_int_eq(syscalls_listen(&g->sys, &second), -1);
    done(g);
}
END_TEST

/* guest_new's tracker is attached over calloc's zeros, without a reset */
START_TEST(a_tracker_attached_over_old_contents_counts_what_a_fresh_one_counts)
{
    struct guest *g = guest_new("pentium4", "syscall_loop", "gettimeofday", "20", NULL);
    struct syscall_tracker *old = malloc(sizeof *old);
    ck_assert_ptr_nonnull(old);
    memset(old, 0xa5, sizeof *old);
    ck_assert_int_eq(syscalls_attach(old, &g->m), 0);
    ck_assert_int_eq(guest_run(g), 0);
    const struct syscall_tracker *fresh = &g->sys;
    ck_assert_uint_ge(fresh->stats[PATH_SYSENTER][SYS_gettimeofday].calls, 20);
    ck_assert_uint_eq(old->seq, fresh->seq);
    ck_assert_uint_eq(old->vsyscall_cycles, fresh->vsyscall_cycles);
    ck_assert_uint_eq(old->trap_cycles, fresh->trap_cycles);
    ck_assert_int_eq(old->ncall_rows, fresh->ncall_rows);
    ck_assert_mem_eq(old->call_rows, fresh->call_rows, sizeof old->call_rows);
    ck_assert_mem_eq(old->stats, fresh->stats, sizeof old->stats);
    ck_assert_mem_eq(old->enosys_by_nr, fresh->enosys_by_nr, sizeof old->enosys_by_nr);
    guest_free(g);
    free(old);
}
END_TEST

Suite *syscalls_suite(void)
{
    Suite *s = suite_create("syscalls");
    TCase *tc = tcase_create("records");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_call_through_the_vsyscall_page_is_one_record_in_three_phases);
    tcase_add_test(tc, without_sep_the_same_call_enters_by_int80_and_leaves_by_iret);
    tcase_add_loop_test(tc, the_arguments_are_the_registers_and_the_sixth_is_on_the_user_stack,
                        0, 2);
    tcase_add_test(tc, a_user_fault_is_a_trap_record_with_its_error_code);
    tcase_add_test(tc, faults_the_kernel_fixes_up_are_counted_in_the_call);
    tcase_add_test(tc, calls_the_kernel_has_no_handler_for_count_as_enosys);
    tcase_add_test(tc, user_time_between_calls_reaches_the_listener_first);
    tcase_add_test(tc, every_listener_hears_every_record_in_the_order_they_listened);
    tcase_add_test(tc, each_process_is_named_before_it_runs_and_again_after_an_exec);
    tcase_add_test(tc, a_tracker_attached_over_old_contents_counts_what_a_fresh_one_counts);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(syscalls_suite());
}
