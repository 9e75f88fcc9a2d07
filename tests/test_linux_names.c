/*
 * The names --strace prints (emu/machine/linux_names.c), checked against the
 * host's headers: each constant has the value Linux gives it. The host is
 * x86-64, whose values are the i386 ones except where noted (O_LARGEFILE
 * is 0 in the 64-bit C library; the 64-bit lock commands differ), and the
 * guest kernel's errno values have the host's names.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include "support.h"
#include "../emu/machine/linux_names.h"

static void check(const struct xlat *x, const char *name, long value)
{
    for (; x->name; x++)
        if (!strcmp(x->name, name)) {
            ck_assert_msg(x->value == (uint32_t)value, "%s is %#x here, %#lx in the headers",
                          name, x->value, value);
            return;
        }
    ck_assert_msg(0, "%s is missing", name);
}

#define CHECK(table, name) check(table, #name, (long)(name))

START_TEST(flags_have_the_values_of_the_linux_headers)
{
    CHECK(open_access_modes, O_RDONLY); CHECK(open_access_modes, O_WRONLY);
    CHECK(open_access_modes, O_RDWR); CHECK(open_access_modes, O_ACCMODE);
    CHECK(open_flags, O_CREAT); CHECK(open_flags, O_EXCL); CHECK(open_flags, O_NOCTTY);
    CHECK(open_flags, O_TRUNC); CHECK(open_flags, O_APPEND); CHECK(open_flags, O_NONBLOCK);
    CHECK(open_flags, O_SYNC); CHECK(open_flags, O_DSYNC); CHECK(open_flags, O_DIRECT);
    CHECK(open_flags, O_NOFOLLOW); CHECK(open_flags, O_NOATIME); CHECK(open_flags, O_CLOEXEC);
    CHECK(open_flags, O_PATH); CHECK(open_flags, O_TMPFILE); CHECK(open_flags, O_DIRECTORY);
    CHECK(open_flags, FASYNC);
    CHECK(at_flags, AT_SYMLINK_NOFOLLOW); CHECK(at_flags, AT_REMOVEDIR);
    CHECK(at_flags, AT_SYMLINK_FOLLOW); CHECK(at_flags, AT_NO_AUTOMOUNT);
    CHECK(at_flags, AT_EMPTY_PATH);
    CHECK(statx_sync_types, AT_STATX_SYNC_AS_STAT); CHECK(statx_sync_types, AT_STATX_FORCE_SYNC);
    CHECK(statx_sync_types, AT_STATX_DONT_SYNC);
    CHECK(statx_masks, STATX_ALL); CHECK(statx_masks, STATX_BASIC_STATS);
    CHECK(statx_masks, STATX_TYPE); CHECK(statx_masks, STATX_SIZE); CHECK(statx_masks, STATX_BTIME);
    CHECK(prot_flags, PROT_READ); CHECK(prot_flags, PROT_WRITE); CHECK(prot_flags, PROT_EXEC);
    CHECK(prot_flags, PROT_GROWSDOWN); CHECK(prot_flags, PROT_GROWSUP);
    CHECK(mmap_flags, MAP_SHARED); CHECK(mmap_flags, MAP_PRIVATE);
    CHECK(mmap_flags, MAP_SHARED_VALIDATE); CHECK(mmap_flags, MAP_FIXED);
    CHECK(mmap_flags, MAP_ANONYMOUS); CHECK(mmap_flags, MAP_32BIT);
    CHECK(mmap_flags, MAP_NORESERVE); CHECK(mmap_flags, MAP_POPULATE);
    CHECK(mmap_flags, MAP_NONBLOCK); CHECK(mmap_flags, MAP_GROWSDOWN);
    CHECK(mmap_flags, MAP_DENYWRITE); CHECK(mmap_flags, MAP_EXECUTABLE);
    CHECK(mmap_flags, MAP_LOCKED); CHECK(mmap_flags, MAP_STACK); CHECK(mmap_flags, MAP_HUGETLB);
    CHECK(mmap_flags, MAP_SYNC); CHECK(mmap_flags, MAP_FIXED_NOREPLACE);
    CHECK(access_flags, R_OK); CHECK(access_flags, W_OK); CHECK(access_flags, X_OK);
    CHECK(clock_names, CLOCK_REALTIME); CHECK(clock_names, CLOCK_MONOTONIC);
    CHECK(clock_names, CLOCK_PROCESS_CPUTIME_ID); CHECK(clock_names, CLOCK_THREAD_CPUTIME_ID);
    CHECK(clock_names, CLOCK_MONOTONIC_RAW); CHECK(clock_names, CLOCK_REALTIME_COARSE);
    CHECK(clock_names, CLOCK_MONOTONIC_COARSE); CHECK(clock_names, CLOCK_BOOTTIME);
    CHECK(clock_names, CLOCK_REALTIME_ALARM); CHECK(clock_names, CLOCK_BOOTTIME_ALARM);
    CHECK(clock_names, CLOCK_TAI);
    CHECK(fcntl_cmds, F_DUPFD); CHECK(fcntl_cmds, F_GETFD); CHECK(fcntl_cmds, F_SETFD);
    CHECK(fcntl_cmds, F_GETFL); CHECK(fcntl_cmds, F_SETFL); CHECK(fcntl_cmds, F_GETLK);
    CHECK(fcntl_cmds, F_SETLK); CHECK(fcntl_cmds, F_SETLKW); CHECK(fcntl_cmds, F_SETOWN);
    CHECK(fcntl_cmds, F_GETOWN); CHECK(fcntl_cmds, F_SETSIG); CHECK(fcntl_cmds, F_GETSIG);
    CHECK(fcntl_cmds, F_OFD_GETLK); CHECK(fcntl_cmds, F_SETLEASE); CHECK(fcntl_cmds, F_NOTIFY);
    CHECK(fcntl_cmds, F_DUPFD_CLOEXEC); CHECK(fcntl_cmds, F_SETPIPE_SZ);
    CHECK(fcntl_cmds, F_ADD_SEALS); CHECK(fcntl_cmds, F_GET_SEALS);
    CHECK(fd_flags, FD_CLOEXEC);
    CHECK(whence_names, SEEK_SET); CHECK(whence_names, SEEK_CUR); CHECK(whence_names, SEEK_END);
    CHECK(whence_names, SEEK_DATA); CHECK(whence_names, SEEK_HOLE);
    CHECK(rlimit_names, RLIMIT_CPU); CHECK(rlimit_names, RLIMIT_STACK);
    CHECK(rlimit_names, RLIMIT_NOFILE); CHECK(rlimit_names, RLIMIT_AS);
    CHECK(rlimit_names, RLIMIT_NPROC); CHECK(rlimit_names, RLIMIT_RTTIME);
    CHECK(futex_ops, FUTEX_WAIT); CHECK(futex_ops, FUTEX_WAKE); CHECK(futex_ops, FUTEX_WAKE_OP);
    CHECK(futex_ops, FUTEX_WAIT_BITSET); CHECK(futex_ops, FUTEX_CMP_REQUEUE_PI);
    CHECK(futex_flags, FUTEX_CLOCK_REALTIME);
    CHECK(prctl_ops, PR_SET_NAME); CHECK(prctl_ops, PR_GET_NAME);
    CHECK(prctl_ops, PR_SET_DUMPABLE); CHECK(prctl_ops, PR_SET_NO_NEW_PRIVS);
    CHECK(prctl_ops, PR_SET_VMA);
    CHECK(ioctl_cmds, TCGETS); CHECK(ioctl_cmds, TCSETS); CHECK(ioctl_cmds, TIOCGWINSZ);
    CHECK(ioctl_cmds, FIONREAD); CHECK(ioctl_cmds, FIONBIO); CHECK(ioctl_cmds, FIOCLEX);
    CHECK(sigmask_hows, SIG_BLOCK); CHECK(sigmask_hows, SIG_UNBLOCK);
    CHECK(sigmask_hows, SIG_SETMASK);
    CHECK(itimer_names, ITIMER_REAL); CHECK(itimer_names, ITIMER_VIRTUAL);
    CHECK(itimer_names, ITIMER_PROF);
    CHECK(wait_flags, WNOHANG); CHECK(wait_flags, WSTOPPED); CHECK(wait_flags, WEXITED);
    CHECK(wait_flags, WCONTINUED); CHECK(wait_flags, WNOWAIT); CHECK(wait_flags, __WALL);
    CHECK(clone_flags, CLONE_VM); CHECK(clone_flags, CLONE_VFORK); CHECK(clone_flags, CLONE_THREAD);
    CHECK(clone_flags, CLONE_SETTLS); CHECK(clone_flags, CLONE_CHILD_CLEARTID);
    CHECK(clone_flags, CLONE_NEWNET); CHECK(clone_flags, CLONE_PIDFD);
    CHECK(grnd_flags, GRND_NONBLOCK); CHECK(grnd_flags, GRND_RANDOM);
    CHECK(grnd_flags, GRND_INSECURE);
    CHECK(file_types, S_IFSOCK); CHECK(file_types, S_IFLNK); CHECK(file_types, S_IFREG);
    CHECK(file_types, S_IFBLK); CHECK(file_types, S_IFDIR); CHECK(file_types, S_IFCHR);
    CHECK(file_types, S_IFIFO);
    CHECK(sigact_flags, SA_ONSTACK); CHECK(sigact_flags, SA_RESTART);
    CHECK(sigact_flags, SA_NODEFER); CHECK(sigact_flags, SA_RESETHAND);
    CHECK(sigact_flags, SA_SIGINFO); CHECK(sigact_flags, SA_NOCLDSTOP);
    CHECK(sigact_flags, SA_NOCLDWAIT);
}
END_TEST

START_TEST(fault_codes_have_their_siginfo_names)
{
    ck_assert_str_eq(si_code_name(SIGSEGV, SEGV_MAPERR), "SEGV_MAPERR");
    ck_assert_str_eq(si_code_name(SIGSEGV, SEGV_ACCERR), "SEGV_ACCERR");
    ck_assert_str_eq(si_code_name(SIGILL, ILL_ILLOPN), "ILL_ILLOPN");
    ck_assert_str_eq(si_code_name(SIGFPE, FPE_INTDIV), "FPE_INTDIV");
    ck_assert_str_eq(si_code_name(SIGBUS, BUS_ADRALN), "BUS_ADRALN");
    ck_assert_str_eq(si_code_name(SIGTRAP, TRAP_BRKPT), "TRAP_BRKPT");
    ck_assert_str_eq(si_code_name(SIGSEGV, SI_KERNEL), "SI_KERNEL");
}
END_TEST

START_TEST(every_guest_errno_has_the_host_name)
{
    char *text = read_file("guest/linux_abi.def");
    ck_assert_msg(text != NULL, "run the tests from the source tree");
    int seen = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        int value;
        /* the errno rows: ABI(E..., N); the other rows name no E... */
        if (sscanf(line, "ABI(%63[A-Z0-9], %d)", name, &value) != 2 || name[0] != 'E')
            continue;
        ck_assert_msg(errno_name(value) && !strcmp(errno_name(value), name),
                      "guest %s is %d, which the host calls %s", name, value,
                      errno_name(value) ? errno_name(value) : "nothing");
        ck_assert_str_eq(errno_text(value), strerror(value));
        seen++;
    }
    ck_assert_int_gt(seen, 20);
    ck_assert_ptr_null(errno_name(0));
    ck_assert_ptr_null(errno_name(4096));
    free(text);
}
END_TEST

START_TEST(flags_print_in_table_order_with_the_rest_in_hex)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    print_flags(f, prot_flags, PROT_READ | PROT_EXEC | 0x100, NULL);
    fputc(' ', f);
    print_flags(f, prot_flags, 0, "PROT_NONE");
    fputc(' ', f);
    print_xlat(f, clock_names, 123, "CLOCK_???");
    fclose(f);
    ck_assert_str_eq(out, "PROT_READ|PROT_EXEC|0x100 PROT_NONE 0x7b /* CLOCK_??? */");
    free(out);
}
END_TEST

Suite *linux_names_suite(void)
{
    Suite *s = suite_create("linux_names");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, flags_have_the_values_of_the_linux_headers);
    tcase_add_test(tc, fault_codes_have_their_siginfo_names);
    tcase_add_test(tc, every_guest_errno_has_the_host_name);
    tcase_add_test(tc, flags_print_in_table_order_with_the_rest_in_hex);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(linux_names_suite());
}
