/*
 * bad_pointers int80|vsyscall: every system call of the guest kernel that
 * takes a user pointer, given bad pointers of every kind; each call must
 * return -EFAULT (-14), and the kernel must survive them all. Prints a
 * line for each call that did not, then a summary:
 *   "bad_pointers: N calls, N returned -EFAULT, 0 did not"
 * and exits 0 only if every call returned -EFAULT. (The file calls count
 * only where the kernel has them: -ENOSYS skips one.)
 *
 * The kinds of bad pointer (struct bad below): kernel memory (refused by
 * access_ok before any access), the vsyscall page and a pointer that wraps
 * past 4 GiB (the same), an unmapped user page and a range that runs off
 * the end of a mapping (the kernel's copy faults and its exception-table
 * fixup returns -EFAULT), NULL where NULL is not "absent", and a read-only
 * page for the calls that write to user memory (a kernel write fault: CR0.WP
 * is set).
 */
#include "mini/mini.h"
#include "linux_abi.h"

#define PAGE 4096u


/* How a call uses the pointer under test. */
#define READS  1  /* the kernel reads through it */
#define WRITES 2  /* the kernel writes through it */
#define NULL_OK 4 /* NULL means "none": not a bad pointer for this call */
#define HOST_FIRST 8 /* read(): the data comes from the host before the
                      * kernel touches the buffer; with nothing to read (the
                      * tests give /dev/null) only access_ok can refuse */
#define FS 16        /* a file call: -ENOSYS where the kernel has no files */

struct call {
    const char *name;
    long nr;
    long a[5];
    int bad;    /* which argument is the bad pointer */
    int use;
};

struct iovec32 { uint32_t base, len; };
struct user_desc { uint32_t entry_number, base_addr, limit, flags; };

static struct iovec32 iov_bad_base[1] = { { 0, 16 } };
static uint8_t good_buf[512];
/* In read-only memory, for the calls that read first and write back. */
static const struct user_desc ro_desc = { 0xffffffffu, 0, 0xfffff, 0x51 };
static const uint32_t ro_tls_index = 6;

#define BAD (-1L) /* placeholder for the argument under test */
static const struct call calls[] = {
    { "read", SYS_read, { 0, BAD, 16 }, 1, WRITES | HOST_FIRST },
    { "write", SYS_write, { 1, BAD, 16 }, 1, READS },
    { "writev", SYS_writev, { 1, BAD, 1 }, 1, READS },
    { "writev.iov_base", SYS_writev, { 1, (long)iov_bad_base, 1 }, -1, READS },
    { "time", SYS_time, { BAD }, 0, WRITES | NULL_OK },
    { "gettimeofday.tv", SYS_gettimeofday, { BAD, 0 }, 0, WRITES | NULL_OK },
    { "gettimeofday.tz", SYS_gettimeofday, { 0, BAD }, 1, WRITES | NULL_OK },
    { "clock_gettime", SYS_clock_gettime, { 0, BAD }, 1, WRITES },
    { "clock_gettime64", SYS_clock_gettime64, { 0, BAD }, 1, WRITES },
    { "fstat", SYS_fstat, { 1, BAD }, 1, WRITES },
    { "fstat64", SYS_fstat64, { 1, BAD }, 1, WRITES },
    { "uname", SYS_uname, { BAD }, 0, WRITES },
    { "ugetrlimit", SYS_ugetrlimit, { 7, BAD }, 1, WRITES },
    { "prlimit64.new", SYS_prlimit64, { 0, 7, BAD, 0 }, 2, READS | NULL_OK },
    { "prlimit64.old", SYS_prlimit64, { 0, 7, 0, BAD }, 3, WRITES | NULL_OK },
    { "mmap.args", SYS_mmap, { BAD }, 0, READS },
    { "rt_sigaction.act", SYS_rt_sigaction, { 10, BAD, 0, 8 }, 1, READS | NULL_OK },
    { "rt_sigaction.oact", SYS_rt_sigaction, { 10, 0, BAD, 8 }, 2, WRITES | NULL_OK },
    { "rt_sigprocmask.set", SYS_rt_sigprocmask, { 0, BAD, 0, 8 }, 1, READS | NULL_OK },
    { "rt_sigprocmask.oset", SYS_rt_sigprocmask, { 0, 0, BAD, 8 }, 2, WRITES | NULL_OK },
    { "sigaltstack.ss", SYS_sigaltstack, { BAD, 0 }, 0, READS | NULL_OK },
    { "sigaltstack.oss", SYS_sigaltstack, { 0, BAD }, 1, WRITES | NULL_OK },
    { "getrandom", SYS_getrandom, { BAD, 16, 0 }, 0, WRITES },
    { "set_thread_area", SYS_set_thread_area, { BAD }, 0, READS },
    { "set_thread_area.writeback", SYS_set_thread_area, { (long)&ro_desc }, -1, WRITES },
    { "get_thread_area", SYS_get_thread_area, { BAD }, 0, READS },
    { "get_thread_area.writeback", SYS_get_thread_area, { (long)&ro_tls_index }, -1, WRITES },
    /* Paths: the kernel copies them byte by byte to the first NUL. */
    { "open", SYS_open, { BAD, 0, 0 }, 0, READS | FS },
    { "openat", SYS_openat, { AT_FDCWD, BAD, 0 }, 1, READS | FS },
    { "stat", SYS_stat, { BAD, (long)good_buf }, 0, READS | FS },
    { "lstat", SYS_lstat, { BAD, (long)good_buf }, 0, READS | FS },
    { "stat64", SYS_stat64, { BAD, (long)good_buf }, 0, READS | FS },
    { "lstat64", SYS_lstat64, { BAD, (long)good_buf }, 0, READS | FS },
    { "statx", SYS_statx, { AT_FDCWD, BAD, 0, 0x7ff, (long)good_buf }, 1, READS | FS },
    { "access", SYS_access, { BAD, 0 }, 0, READS | FS },
    { "faccessat", SYS_faccessat, { AT_FDCWD, BAD, 0 }, 1, READS | FS },
    { "faccessat2", SYS_faccessat2, { AT_FDCWD, BAD, 0, 0 }, 1, READS | FS },
    { "readlink", SYS_readlink, { BAD, (long)good_buf, 64 }, 0, READS | FS },
    { "readlinkat", SYS_readlinkat, { AT_FDCWD, BAD, (long)good_buf, 64 }, 1, READS | FS },
    { "getcwd", SYS_getcwd, { BAD, 100 }, 0, WRITES | FS },
};
#define NCALLS (sizeof calls / sizeof calls[0])

struct bad {
    const char *name;
    uint32_t addr;
    int when;   /* the uses it is bad for: READS, WRITES or both */
};

static int total, efaults, others, absent;

static void try_call(const struct call *c, const char *kind, uint32_t ptr)
{
    long a[5];
    for (int i = 0; i < 5; i++)
        a[i] = c->a[i];
    if (c->bad >= 0)
        a[c->bad] = (long)ptr;
    long r = syscall6(c->nr, a[0], a[1], a[2], a[3], a[4], 0);
    if (r == -ENOSYS && (c->use & FS)) {
        absent++;
        return;
    }
    total++;
    if (r == -EFAULT) {
        efaults++;
        return;
    }
    others++;
    printf("FAIL %s with %s %08x: returned %ld, not -14\n", c->name, kind,
           (unsigned long)ptr, r);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "int80") && strcmp(argv[1], "vsyscall"))) {
        puts_fd(2, "usage: bad_pointers int80|vsyscall\n");
        return 2;
    }
    mini_use_int80 = !strcmp(argv[1], "int80");

    /* Two fresh pages, the second unmapped again: the first page's last
     * bytes run off the end of the mapping. */
    long map = syscall6(SYS_mmap2, 0, 2 * PAGE, 3, 0x22, -1, 0);
    if ((unsigned long)map >= 0xfffff000u || syscall2(SYS_munmap, map + PAGE, PAGE) != 0) {
        printf("bad_pointers: cannot set up the mapping (%ld)\n", map);
        return 1;
    }
    /* No NUL before the end, for the path calls: the mapping's last byte,
     * and the stack's last below the user/kernel boundary (in the padding
     * above the argument strings). */
    *((char *)map + PAGE - 1) = 'a';
    *(char *)0xbfffffffu = 'a';
    const struct bad bads[] = {
        { "kernel text", 0xc0100000u, READS | WRITES },
        { "the boot record", 0xc0001000u, READS | WRITES },
        { "the last kernel page", 0xc3fff000u, READS | WRITES },
        { "the vsyscall page", 0xfffff000u, READS | WRITES },
        { "a wrapping pointer", 0xfffffff8u, READS | WRITES },
        { "the user/kernel boundary", 0xbfffffffu, READS | WRITES },
        { "an unmapped page", 0x10000000u, READS | WRITES },
        { "the end of a mapping", (uint32_t)map + PAGE - 1, READS | WRITES },
        { "NULL", 0, READS | WRITES },
        { "read-only text", (uint32_t)main, WRITES },
    };

    for (size_t i = 0; i < NCALLS; i++) {
        const struct call *c = &calls[i];
        if (c->bad < 0) {
            try_call(c, "a fixed pointer", 0);
            continue;
        }
        for (size_t k = 0; k < sizeof bads / sizeof bads[0]; k++) {
            const struct bad *b = &bads[k];
            if (!(b->when & c->use))
                continue;
            if (b->addr == 0 && (c->use & NULL_OK))
                continue;
            if ((c->use & HOST_FIRST) && b->addr < 0xc0000000u && b->addr != 0xbfffffffu)
                continue;
            try_call(c, b->name, b->addr);
        }
    }
    printf("bad_pointers: %d calls, %d returned -EFAULT, %d did not\n", total, efaults,
           others);
    if (absent)
        printf("bad_pointers: %d file calls are not implemented (-ENOSYS)\n", absent);
    return others ? 1 : 0;
}
