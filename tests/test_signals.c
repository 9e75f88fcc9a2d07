/*
 * Signals, modeled time and preemption (issue 12): Debian's busybox and
 * the libc test program guest/programs/static/signals.c against the same
 * binaries run natively, on every CPU model; the hostile cases of
 * guest/programs/sighostile.c; the TF single-step through the vsyscall
 * page; 2.5.53's locks on kill and delivery in the SMP kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support.h"

static const char *const cpus[] = { "pentium4", "pentium4,-sep", "pentium3", "pentium3,-sep" };
#define NCPUS (int)(sizeof cpus / sizeof cpus[0])

static const char *const shell_lines[] = {
    "trap \"echo caught\" USR1; kill -USR1 $$; echo after",
    "sleep 2; echo slept",
    "sleep 5 & kill $!; wait $!; echo $?",
    "yes | head -3",
    "trap \"echo alarm\" ALRM; (sleep 1; kill -ALRM $$) & wait; echo waited",
    "sleep 5 & kill -STOP $!; kill -CONT $!; kill $!; wait $!; echo $?",
    "sleep 1 & p=$!; kill -STOP $p; sleep 2; kill -CONT $p; wait $p; echo $?",
    "sleep 5 & p=$!; kill -STOP $p; kill -TERM $p; sleep 1; kill -CONT $p; wait $p; echo $?",
};
#define NLINES (int)(sizeof shell_lines / sizeof shell_lines[0])

START_TEST(busybox_sh_signals_and_sleeps_as_natively)
{
    const char *argv[] = { fixture("busybox"), "sh", "-c", shell_lines[_i], NULL };
    struct emu_result native, r;
    run_native(&native, "/", argv);
    for (int m = 0; m < NCPUS; m++) {
        emu(&r, "run", "--cpu", cpus[m], fixture("busybox"), "sh", "-c", shell_lines[_i], NULL);
        ck_assert_msg(r.status == native.status && !strcmp(r.out, native.out),
                      "sh -c '%s' on %s: exit %d, out:\n%s\nnatively exit %d:\n%s\nerr: %s",
                      shell_lines[_i], cpus[m], r.status, r.out, native.status, native.out,
                      r.err);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

/* libc programs: handlers, siginfo, siglongjmp out of SIGSEGV and SIGFPE,
 * masks, SA_RESETHAND, sigaltstack, SIGCHLD, sigsuspend, SA_RESTART,
 * nesting, the FPU state across a handler, real-time signals queued. */
START_TEST(libc_signal_program_prints_what_it_prints_natively)
{
    const char *name = _i ? "static/signals-musl" : "static/signals-glibc";
    char path[256];
    snprintf(path, sizeof path, "%s/%s", BUILD_DIR, name);
    const char *argv[] = { path, NULL };
    struct emu_result native, r;
    run_native(&native, "/", argv);
    ck_assert_msg(native.status == 0 && strstr(native.out, "segv: sig 11"), "native: %s",
                  native.out);
    static const char qemu_fpu[] = "fpu: hits 1 control word kept no\n",
                      linux_fpu[] = "fpu: hits 1 control word kept yes\n";
    const char *at = strstr(native.out, qemu_fpu);
    if (!native_is_host() && at) {
        /* qemu-user 7.2's sigreturn loses the control word; Linux restores
         * the whole FPU state saved in the signal frame */
        fprintf(stderr, "%s: under %s the x87 control word is lost across a handler; held "
                        "to Linux's rule (kept) instead\n", name, native_runner());
        char *fixed = malloc(strlen(native.out) + 2);
        sprintf(fixed, "%.*s%s%s", (int)(at - native.out), native.out, linux_fpu,
                at + strlen(qemu_fpu));
        free(native.out);
        native.out = fixed;
    }
    for (int m = 0; m < NCPUS; m++) {
        emu(&r, "run", "--cpu", cpus[m], path, NULL);
        ck_assert_msg(r.status == 0 && !strcmp(r.out, native.out),
                      "%s on %s: exit %d:\n%s\nnatively:\n%s\nerr: %s", name, cpus[m], r.status,
                      r.out, native.out, r.err);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

/* Stopping and continuing (guest/programs/static/stop_cont.c): WUNTRACED
 * and WCONTINUED once each, SIGCHLD's CLD_STOPPED and CLD_CONTINUED,
 * SIGKILL and SIGTERM on a stopped child, a pending stop taken back by
 * SIGCONT, SIGCONT blocked, SA_NOCLDSTOP, SIGTSTP in a group of its own
 * and dropped in an orphaned one; on one CPU and two. */
START_TEST(stop_and_continue_as_natively)
{
    const char *name = _i ? "static/stop_cont-musl" : "static/stop_cont-glibc";
    char path[256];
    snprintf(path, sizeof path, "%s/%s", BUILD_DIR, name);
    const char *argv[] = { path, NULL };
    struct emu_result native, r;
    run_native(&native, "/", argv);
    ck_assert_msg(native.status == 0 && strstr(native.out, "self stop: stopped by 19"),
                  "native: %s", native.out);
    static const char qemu_line[] = "nocldstop: SIGCHLD 3 times\n",
                      linux_line[] = "nocldstop: SIGCHLD 1 times\n";
    const char *at = strstr(native.out, qemu_line);
    if (!native_is_host() && at) {
        /* qemu-user does not pass SA_NOCLDSTOP on to the host kernel and
         * hands the guest every SIGCHLD; Linux sends none for a stop or a
         * continue under SA_NOCLDSTOP (the same program built for the
         * host says 1) */
        fprintf(stderr, "%s: under %s SA_NOCLDSTOP is not honoured; held to Linux's rule "
                        "(one SIGCHLD, the exit) instead\n", name, native_runner());
        memcpy((char *)at, linux_line, strlen(linux_line));
    }
    const char *runs[][3] = { { "--cpu", "pentium4" }, { "--cpu", "pentium3,-sep" },
                              { "--smp", "2" } };
    for (int m = 0; m < 3; m++) {
        emu(&r, "run", runs[m][0], runs[m][1], path, NULL);
        ck_assert_msg(r.status == 0 && !strcmp(r.out, native.out),
                      "%s %s %s: exit %d:\n%s\nnatively:\n%s\nerr: %s", name, runs[m][0],
                      runs[m][1], r.status, r.out, native.out, r.err);
        emu_result_free(&r);
    }
    emu_result_free(&native);
}
END_TEST

/* A process stopped with nobody left to continue it: the run cannot make
 * progress, and ends as a deadlock does (124, the report), not hanging.
 * Natively these never end. */
START_TEST(a_stop_nobody_can_continue_ends_the_run)
{
    static const char *const lines[][2] = {
        { "kill -STOP $$; echo continued", "deadlock: pid 2 (busybox) is stopped" },
        { "sleep 1 & kill -STOP $!; wait; echo waited",
          "pid 3 (busybox) is stopped" },
    };
    for (int k = 0; k < 2; k++) {
        for (int smp = 1; smp <= 2; smp++) {
            struct emu_result r;
            emu(&r, "run", "--smp", smp == 1 ? "1" : "2", fixture("busybox"), "sh", "-c",
                lines[k][0], NULL);
            ck_assert_msg(r.status == 124 && strstr(r.err, lines[k][1]) && !*r.out,
                          "sh -c '%s' --smp %d: exit %d, out %s, err %s", lines[k][0], smp,
                          r.status, r.out, r.err);
            emu_result_free(&r);
        }
    }
}
END_TEST

struct hostile {
    const char *args[3];
    int status;
    const char *expect;   /* in stdout, or in stderr for a kill */
};

static const struct hostile hostile[] = {
    { { "forge-cs" }, 139, "killed by SIGSEGV: #GP" },
    { { "forge-ss" }, 139, "killed by SIGSEGV: #GP" },
    { { "forge-eip" }, 139, "killed by SIGSEGV: sigreturn with a bad frame" },
    { { "forge-iopl" }, 0, "returned: iopl 0 nt 0 vm 0 if 1 ds 7b" },
    { { "forge-nt" }, 0, "returned: iopl 0 nt 0 vm 0 if 1 ds 7b" },
    { { "forge-vm" }, 0, "returned: iopl 0 nt 0 vm 0 if 1 ds 7b" },
    { { "forge-if" }, 0, "returned: iopl 0 nt 0 vm 0 if 1 ds 7b" },
    { { "forge-ds" }, 0, "returned: iopl 0 nt 0 vm 0 if 1 ds 0\n" },
    { { "storm", "5000" }, 0, "storm: 5000 sent, 5000 caught" },
    { { "fault-forever" }, 139, "killed by SIGSEGV: #PF page fault" },
    { { "ignore-term" }, 0, "still here after SIGTERM" },
};
#define NHOSTILE (int)(sizeof hostile / sizeof hostile[0])

START_TEST(hostile_signal_use_ends_cleanly)
{
    const struct hostile *h = &hostile[_i];
    for (int m = 0; m < NCPUS; m++) {
        struct emu_result r;
        emu(&r, "run", "--cpu", cpus[m], program("sighostile"), h->args[0], h->args[1], NULL);
        const char *where = h->status ? r.err : r.out;
        ck_assert_msg(r.status == h->status && strstr(where, h->expect),
                      "sighostile %s on %s: exit %d (want %d), out %s, err %s", h->args[0],
                      cpus[m], r.status, h->status, r.out, r.err);
        emu_result_free(&r);
    }
}
END_TEST

/* A frame on an alternate stack that was unmapped: killed by SIGSEGV,
 * with the frame's address in the report (inside the stack), not the
 * interrupted ESP. */
START_TEST(an_unwritable_frame_is_reported_at_the_frame)
{
    struct emu_result r;
    emu(&r, "run", program("sighostile"), "altstack-unmapped", NULL);
    long alt = hex_after(r.out, "altstack "), cr2 = hex_after(r.err, "cr2 ");
    ck_assert_msg(r.status == 139 && alt > 0 &&
                  strstr(r.err, "killed by SIGSEGV: no room for the frame of signal 10") &&
                  cr2 >= alt && cr2 < alt + 65536 && !strstr(r.out, "handler ran"),
                  "exit %d, out %s, err %s", r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* Through int $0x80, one SIGTRAP per user instruction, none for the int
 * itself (its gate clears TF). Through sysenter the seed patch's kernel
 * oopses on the step it takes on its trampoline (test_variants has why):
 * the program dies of SIGSEGV before it prints. */
START_TEST(tf_single_step_through_the_vsyscall_page)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", cpus[_i], program("sighostile"), "step", NULL);
    if (strstr(cpus[_i], "-sep"))
        ck_assert_msg(r.status == 0 && !strcmp(r.out, "getpid 2, 3 traps: prog +0 prog\n"),
                      "%s: exit %d: %s%s", cpus[_i], r.status, r.out, r.err);
    else
        ck_assert_msg(r.status == 139 && !*r.out && strstr(r.err, "killed by SIGSEGV: oops: "),
                      "%s: exit %d: %s%s", cpus[_i], r.status, r.out, r.err);
    emu_result_free(&r);
}
END_TEST

/* A busy loop would never let its parent run without preemption; with the
 * tick, the parent's sleep ends (0.05 modeled seconds) and it kills it. */
START_TEST(a_busy_process_is_preempted)
{
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium3", fixture("busybox"), "sh", "-c",
        "while :; do :; done & sleep 0.05; kill $!; wait $!; echo $?", NULL);
    ck_assert_msg(r.status == 0 && !strcmp(r.out, "143\n"), "exit %d: %s%s", r.status, r.out,
                  r.err);
    emu_result_free(&r);
}
END_TEST

/* A sleep skips modeled time, the same on every run. */
START_TEST(sleeping_is_deterministic_modeled_time)
{
    struct emu_result a, b;
    emu(&a, "run", "--report", fixture("busybox"), "sleep", "3", NULL);
    emu(&b, "run", "--report", fixture("busybox"), "sleep", "3", NULL);
    ck_assert_msg(a.status == 0 && b.status == 0, "%s", a.err);
    char *la = line_with(a.err, "cycles"), *lb = line_with(b.err, "cycles");
    ck_assert_msg(la && lb && !strcmp(la, lb), "%s\n---\n%s", a.err, b.err);
    char *idle = line_with(a.err, "idle");
    ck_assert_msg(idle != NULL, "no idle line in the report: %s", a.err);
    free(la);
    free(lb);
    free(idle);
    emu_result_free(&a);
    emu_result_free(&b);
}
END_TEST

/* A kernel function's [start, end) from nm -S of the kernel image. */
static void function_range(const char *image, const char *name, unsigned *start, unsigned *end)
{
    const char *argv[] = { "nm", "-S", image, NULL };
    struct emu_result r;
    char want[96];
    run_command(&r, argv);
    snprintf(want, sizeof want, " %s\n", name);
    const char *at = strstr(r.out, want);
    ck_assert_msg(at != NULL, "%s not in nm -S %s", name, image);
    while (at > r.out && at[-1] != '\n')
        at--;
    unsigned size;
    ck_assert(sscanf(at, "%x %x", start, &size) == 2);
    *end = *start + size;
    emu_result_free(&r);
}

/* How many lock-prefixed instructions the trace shows run in [start, end):
 * by address (under --smp the trace names kernel code with the one-CPU
 * image's symbols), and by the mnemonic, after the name column. */
static int locked_in(const char *trace, unsigned start, unsigned end)
{
    int n = 0;
    for (const char *line = trace; *line; ) {
        const char *next = strchr(line, '\n');
        size_t len = next ? (size_t)(next - line) : strlen(line);
        char one[512], ring, name[128];
        unsigned addr;
        int off = 0;
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        if (sscanf(one, " %x %c %127s %n", &addr, &ring, name, &off) == 3 && off &&
            ring == 'k' && addr >= start && addr < end && !strncmp(one + off, "lock ", 5))
            n++;
        line = next ? next + 1 : line + len;
    }
    return n;
}

/* 2.5.53's locks on kill and delivery (docs/fidelity-signals.md): the SMP
 * kernel (--kernel-config smp) runs lock-prefixed instructions in sys_kill
 * (tasklist_lock's lock subl and lock incl, the siglock's lock decb),
 * specific_send_sig_info (lock btsl of TIF_SIGPENDING), get_signal_to_deliver
 * (the siglock) and recalc_sigpending (lock btsl/btrl); the UP kernel runs
 * none there. */
START_TEST(the_smp_kernel_locks_kill_and_delivery_as_2_5_53)
{
    static const char *const names[] = { "sys_kill", "specific_send_sig_info",
                                         "get_signal_to_deliver", "recalc_sigpending" };
    static const int smp_least[] = { 2, 1, 1, 1 };
    int smp = _i;
    const char *image = smp ? BUILD_DIR "/guest/kernel-pentium4-smp.elf"
                            : BUILD_DIR "/guest/kernel-pentium4-up.elf";
    const char *trace = scratch("locks.trace");
    struct emu_result r;
    emu(&r, "run", "--cpu", "pentium4", "--kernel-config", smp ? "smp" : "up", "--trace", trace,
        "--trace-insns", program("lat"), "sig", "1", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.out, "lat_sig_catch"), "exit %d: %s%s", r.status,
                  r.out, r.err);
    char *text = read_file(trace);
    for (int i = 0; i < 4; i++) {
        unsigned start, end;
        function_range(image, names[i], &start, &end);
        int n = locked_in(text, start, end);
        if (smp)
            ck_assert_msg(n >= smp_least[i], "%s: %d locked instructions (want %d or more)",
                          names[i], n, smp_least[i]);
        else
            ck_assert_msg(n == 0, "%s: %d locked instructions in the one-CPU kernel", names[i],
                          n);
    }
    free(text);
    unlink(trace);
    emu_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("signals");
    TCase *tc = tcase_create("signals");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, busybox_sh_signals_and_sleeps_as_natively, 0, NLINES);
    tcase_add_loop_test(tc, libc_signal_program_prints_what_it_prints_natively, 0, 2);
    tcase_add_loop_test(tc, hostile_signal_use_ends_cleanly, 0, NHOSTILE);
    tcase_add_loop_test(tc, stop_and_continue_as_natively, 0, 2);
    tcase_add_test(tc, a_stop_nobody_can_continue_ends_the_run);
    tcase_add_test(tc, an_unwritable_frame_is_reported_at_the_frame);
    tcase_add_loop_test(tc, tf_single_step_through_the_vsyscall_page, 0, NCPUS);
    tcase_add_test(tc, a_busy_process_is_preempted);
    tcase_add_test(tc, sleeping_is_deterministic_modeled_time);
    tcase_add_loop_test(tc, the_smp_kernel_locks_kill_and_delivery_as_2_5_53, 0, 2);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
