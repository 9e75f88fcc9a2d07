/* Shared helpers for the tests: running emu, and a bare machine with a
 * hand-built GDT/IDT/TSS for testing the CPU model without the kernel. */
#ifndef TESTS_SUPPORT_H
#define TESTS_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <check.h>
#include "../emu/machine/machine.h"
#include "../emu/cpu/run.h"
#include "../emu/account/syscalls.h"

struct emu_result {
    int status;   /* exit status, or 128+signal if emu itself died */
    char *out;
    char *err;
};

/* Run one Check suite and return the process exit status. */
int run_suite(Suite *s);
/* Is the Unicorn emu runs with (the loaded library) at least major.minor?
 * Some quirks differ by version (docs/unicorn.md); tests assert each. */
bool unicorn_at_least(unsigned major, unsigned minor);

/* Run build/emu/emu with argv (NULL-terminated, without argv[0]). */
void run_emu(struct emu_result *r, const char *const *args);
/* Run emu with argv (argv[0] included) in a child, its stdout into the
 * file out: its status (128 + N if a signal N ended it), and in *ru what
 * wait4 says it used (host CPU time, peak resident memory). */
struct rusage;
int run_emu_rusage(const char *const *argv, const char *out, struct rusage *ru);
void emu_result_free(struct emu_result *r);
/* Run argv[0] natively (a host i386 program) in directory cwd, with stdin
 * /dev/null and the environment emu gives its guest by default
 * (PATH=/usr/bin:/bin HOME=/). Where the host kernel runs no i386
 * program, under Debian's qemu-i386 instead (native_runner() says which). */
void run_native(struct emu_result *r, const char *cwd, const char *const *argv);
const char *native_runner(void);
/* Does run_native run on the host itself? Under qemu-i386 three things
 * are not Linux's: an execve of an i386 image fails (the host kernel
 * cannot run it), qemu-user 7.2 does not give back the x87 control word a
 * signal handler changed, and it does not honour SA_NOCLDSTOP (every
 * SIGCHLD reaches the guest). Tests that meet them say so and hold the run to
 * Linux's documented rule there instead. */
bool native_is_host(void);
/* Run any program (argv[0] found on PATH), stdin from /dev/null. */
void run_command(struct emu_result *r, const char *const *argv);
/* run_emu with the arguments as a NULL-terminated list */
void emu(struct emu_result *r, ...);
int count_char(const char *s, char c);
/* A copy of the first line of text that contains needle, or NULL. */
char *line_with(const char *text, const char *needle);
/* The value after key in text, in hex; -1 if absent. */
long hex_after(const char *text, const char *key);
const char *program(const char *name);   /* path of a built guest program */
char *read_file(const char *path);
bool json_valid(const char *text);
/* The output of jq -r FILTER FILE (Debian's jq parses the JSON); fails
 * the test if jq does. */
char *jq(const char *filter, const char *path);
int count_lines_containing(const char *text, const char *needle);
/* A scratch file name under /tmp for this test process, by tag. */
const char *scratch(const char *tag);

/* The counts of --report's "system calls: N via sysenter, M via int $0x80"
 * line; false if there is none. */
struct report {
    long sysenter, int80, sysexit, iret, unknown;
};
bool parse_report(const char *err, struct report *rep);
/* The first four of them (the line without its ENOSYS count is enough). */
bool report_paths(const char *err, long *sysenter, long *int80, long *sysexits, long *irets);

/*
 * A copy of part of the tree for a check script to fail on (test_check_facts,
 * test_check_layers): copy_sources makes /tmp/sysemu-TAG-XXXXXX and copies
 * sources (a cp argument list) into it; copy_append adds a line to a file
 * of the copy (made, with its folder, if new); run_script runs sh SCRIPT ARG, its output in out, and
 * returns its exit status.
 */
const char *copy_sources(const char *tag, const char *sources);
void copy_remove(const char *dir);
void copy_append(const char *dir, const char *file, const char *line);
int run_script(const char *script, const char *arg, char *out, size_t cap);

/* A static i386 program of build/static, or "busybox" or "zsh" (Debian's
 * busybox-static and zsh-static). */
const char *fixture(const char *name);

/*
 * A scratch file tree for --root (tree_make / tree_remove, as an unchecked
 * fixture): tree_root() is the root, with
 *   hello.txt (two lines), sub/inner.txt, abs-out -> /etc/passwd,
 *   rel-out -> ../secret.txt, secret-abs -> the secret's host path,
 *   link-in -> sub/inner.txt, loop1 <-> loop2, fifo
 * and tree_dir()/secret.txt beside it, outside the root, holding SECRET.
 */
#define SECRET "sysemu-outside-secret-7d1c"
void tree_make(void);
void tree_remove(void);
const char *tree_dir(void);
const char *tree_root(void);
/* Neither the secret nor /etc/passwd shows up in r's output. */
void no_secret(const struct emu_result *r);

/*
 * A program of build/guest/programs under the guest kernel, in this
 * process: guest_new boots it (quiet, with the system-call accounting
 * attached) so that a test can observe the machine before guest_run.
 */
struct guest {
    struct machine m;
    struct syscall_tracker sys;
    struct run_options opts;
    char *argv[8];
    char *envp[1];
};
/* cpu, the program's name, then up to 6 arguments and NULL. */
struct guest *guest_new(const char *cpu, const char *prog, ...);
int guest_run(struct guest *g);
void guest_free(struct guest *g);

/*
 * A bare machine: the patch's GDT at BARE_GDT, an IDT at BARE_IDT whose
 * every vector points at BARE_HANDLER + 16*vector (each an "hlt"), a TSS
 * with esp0 = BARE_KSTACK, paging off. Code is placed by the test.
 */
#define BARE_GDT     0xc0010000u
#define BARE_IDT     0xc0011000u
#define BARE_TSS     0xc0012000u
#define BARE_HANDLER 0xc0020000u
#define BARE_KSTACK  0xc0040000u
#define BARE_UCODE   0x08048000u
#define BARE_USTACK  0x08100000u

struct bare {
    struct machine m;
    struct run_options opts;
    struct syscall_tracker sys;   /* attached: no kernel, so no phases */
};

void bare_init(struct bare *b, const char *cpu_spec);
void bare_destroy(struct bare *b);
void bare_set_gate(struct bare *b, int vector, int type, int dpl);
void bare_write(struct bare *b, uint32_t addr, const void *bytes, size_t n);
/* Start at ring 3 (user CS/SS) or ring 0 at eip; runs until hlt. */
void bare_run(struct bare *b, uint32_t eip, bool user);
uint32_t bare_reg(struct bare *b, int reg);
uint32_t bare_u32(struct bare *b, uint32_t addr);
/* The vector whose handler halted the machine, or -1. */
int bare_halted_vector(struct bare *b);

#endif
