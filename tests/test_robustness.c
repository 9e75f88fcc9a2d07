/*
 * Hostile guests and malformed inputs (docs/robustness.md): every run ends
 * with a clear report and its documented exit status, never a crash, a
 * hang, a guest kernel panic or a machine failure.
 *   - malformed ELF files, built here from a tiny valid one (fuzz/tiny_elf.h)
 *   - oversized program files and argument lists
 *   - guest programs doing what user mode must not (faults.c cases), and
 *     tiny programs made of instructions the engine mishandled
 *   - bad user pointers for every pointer-taking system call (bad_pointers)
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz/tiny_elf.h"
#include "support.h"

static const char *const models[] = {
    "pentium4", "pentium3", "pentiumpro", "pentium4,-sep", "pentium3,-sep",
};
#define NMODELS (int)(sizeof models / sizeof models[0])

/* A scratch directory for the files a test writes; removed at teardown. */
static char tmpdir[64];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sysemu_robust_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *write_file(const char *name, const void *data, size_t size)
{
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(data, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* exit status, one "emu: " line on stderr containing want, nothing on stdout */
static void assert_refused(const struct emu_result *r, int status, const char *want,
                           const char *what)
{
    ck_assert_msg(r->status == status, "%s: exit %d, want %d; stderr: %s", what, r->status,
                  status, r->err);
    ck_assert_msg(!strncmp(r->err, "emu: ", 5) && count_char(r->err, '\n') == 1,
                  "%s: stderr is not one emu: line: %s", what, r->err);
    ck_assert_msg(strstr(r->err, want), "%s: want \"%s\" in: %s", what, want, r->err);
    ck_assert_msg(r->out[0] == 0, "%s: stdout: %s", what, r->out);
}

/* ------------------------------------------------------ malformed ELF */

static void truncate_header(struct tiny_elf *e) { e->size = 40; }
static void empty_file(struct tiny_elf *e) { e->size = 0; }
static void truncate_phdrs(struct tiny_elf *e) { e->size = 60; }
static void phoff_huge(struct tiny_elf *e) { tiny_eh(e)->phoff = 0xfffffff0u; }
static void phoff_past_end(struct tiny_elf *e) { tiny_eh(e)->phoff = e->size - 16; }
static void phnum_huge(struct tiny_elf *e) { tiny_eh(e)->phnum = 0xffff; }
static void phnum_zero(struct tiny_elf *e) { tiny_eh(e)->phnum = 0; }
static void phentsize_wrong(struct tiny_elf *e) { tiny_eh(e)->phentsize = 56; }
static void class64(struct tiny_elf *e) { tiny_eh(e)->ident[4] = 2; }
static void big_endian(struct tiny_elf *e) { tiny_eh(e)->ident[5] = 2; }
static void machine_x86_64(struct tiny_elf *e) { tiny_eh(e)->machine = 62; }
static void type_rel(struct tiny_elf *e) { tiny_eh(e)->type = 1; }
static void filesz_past_file(struct tiny_elf *e)
{
    tiny_ph(e, 0)->filesz = e->size + 1;
    tiny_ph(e, 0)->memsz = 0x1000;
}
static void offset_huge(struct tiny_elf *e) { tiny_ph(e, 0)->offset = 0xffffff00u; }
static void filesz_over_memsz(struct tiny_elf *e) { tiny_ph(e, 0)->memsz = e->size - 1; }
static void memsz_huge(struct tiny_elf *e) { tiny_ph(e, 0)->memsz = 0xfffff000u; }

static void overlap(struct tiny_elf *e)
{
    tiny_eh(e)->phnum = 2;
    *tiny_ph(e, 1) = *tiny_ph(e, 0);
    tiny_ph(e, 1)->vaddr += e->size - 1;   /* shares the last byte */
}

static void in_kernel(struct tiny_elf *e)
{
    tiny_ph(e, 0)->vaddr = 0xc0100000u;
    tiny_eh(e)->entry = 0xc0100000u + TINY_CODE;
}

static void below_user(struct tiny_elf *e)
{
    tiny_ph(e, 0)->vaddr = 0x1000;
    tiny_eh(e)->entry = 0x1000 + TINY_CODE;
}

static void in_fixmap(struct tiny_elf *e)
{
    tiny_ph(e, 0)->vaddr = 0xfffff000u;
    tiny_ph(e, 0)->memsz = 0x2000;         /* and past 4 GiB */
    tiny_eh(e)->entry = 0xfffff000u + TINY_CODE;
}

static void in_stack(struct tiny_elf *e)
{
    tiny_ph(e, 0)->vaddr = 0xbf800000u - 0x1000;
    tiny_ph(e, 0)->memsz = 0x2000;         /* into the stack's 8 MiB */
    tiny_eh(e)->entry = 0xbf800000u - 0x1000 + TINY_CODE;
}

static void entry_kernel(struct tiny_elf *e) { tiny_eh(e)->entry = 0xc0100000u; }
static void entry_past_segment(struct tiny_elf *e) { tiny_eh(e)->entry = TINY_BASE + 0x10000; }
static void entry_not_exec(struct tiny_elf *e) { tiny_ph(e, 0)->flags = TINY_PF_R | TINY_PF_W; }
static void no_load(struct tiny_elf *e) { tiny_ph(e, 0)->type = 4; /* PT_NOTE */ }

static void interp(struct tiny_elf *e)
{
    tiny_eh(e)->phnum = 2;
    *tiny_ph(e, 1) = (struct tiny_phdr){ TINY_PT_INTERP, 100, 0, 0, 10, 10, TINY_PF_R, 1 };
}

/* 17 small PT_LOADs, one more than the loader takes; headers at 1024. */
static void too_many_loads(struct tiny_elf *e)
{
    tiny_eh(e)->phoff = 1024;
    tiny_eh(e)->phnum = 17;
    for (uint32_t i = 0; i < 17; i++) {
        struct tiny_phdr ph = { TINY_PT_LOAD, 0, TINY_BASE + i * 0x1000, 0, TINY_CODE + 12,
                                TINY_CODE + 12, TINY_PF_R | TINY_PF_X, 0x1000 };
        memcpy(e->bytes + 1024 + 32 * i, &ph, sizeof ph);
    }
    e->size = 1024 + 17 * 32;
}

static const struct bad_elf {
    const char *name;
    void (*mutate)(struct tiny_elf *);
    const char *reason;
} bad_elves[] = {
    { "empty file", empty_file, "not an ELF file" },
    { "header cut at 40 bytes", truncate_header, "not an ELF file" },
    { "program headers cut short", truncate_phdrs, "program headers outside the file" },
    { "e_phoff near 4 GiB", phoff_huge, "program headers outside the file" },
    { "e_phoff past the end", phoff_past_end, "program headers outside the file" },
    { "e_phnum 65535", phnum_huge, "bad program header count" },
    { "e_phnum 0", phnum_zero, "bad program header count" },
    { "e_phentsize 56", phentsize_wrong, "bad program header size" },
    { "ELFCLASS64", class64, "not a 32-bit ELF file" },
    { "big-endian", big_endian, "not a little-endian ELF file" },
    { "EM_X86_64", machine_x86_64, "not an i386 executable" },
    { "ET_REL", type_rel, "not an executable (ELF type 1)" },
    { "p_filesz past the end of the file", filesz_past_file, "segment outside the file" },
    { "p_offset near 4 GiB", offset_huge, "segment outside the file" },
    { "p_filesz > p_memsz", filesz_over_memsz, "segment file size exceeds its memory size" },
    { "p_memsz near 4 GiB", memsz_huge, "segment outside user space" },
    { "overlapping segments", overlap, "segments overlap" },
    { "segment in kernel space", in_kernel, "segment outside user space" },
    { "segment below user space", below_user, "segment outside user space" },
    { "segment on the vsyscall page, past 4 GiB", in_fixmap, "segment outside user space" },
    { "segment into the stack area", in_stack, "segment outside user space" },
    { "entry point in kernel space", entry_kernel, "entry point outside the program" },
    { "entry point past its segment", entry_past_segment, "entry point outside the program" },
    { "entry point in a non-executable segment", entry_not_exec,
      "entry point outside the program" },
    { "no PT_LOAD", no_load, "no loadable segments" },
    { "PT_INTERP", interp, "dynamically linked (PT_INTERP) programs are not supported" },
    { "17 PT_LOADs", too_many_loads, "too many loadable segments" },
};
#define NBAD_ELVES (int)(sizeof bad_elves / sizeof bad_elves[0])

START_TEST(tiny_elf_runs)
{
    /* The control: unchanged, the generated program runs and exits 42. */
    struct tiny_elf e;
    struct emu_result r;
    tiny_elf_init(&e, 42, 0);
    emu(&r, "run", write_file("tiny", e.bytes, e.size), NULL);
    ck_assert_msg(r.status == 42, "tiny ELF: exit %d; stderr: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    emu_result_free(&r);
}
END_TEST

START_TEST(malformed_elf_is_refused_with_its_reason)
{
    const struct bad_elf *b = &bad_elves[_i];
    struct tiny_elf e;
    struct emu_result r;
    char want[160];
    tiny_elf_init(&e, 0, 0);
    b->mutate(&e);
    const char *path = write_file("bad.elf", e.bytes, e.size);
    emu(&r, "run", path, NULL);
    snprintf(want, sizeof want, "emu: %s: cannot run program: %s\n", path, b->reason);
    assert_refused(&r, 126, want, b->name);
    emu_result_free(&r);
}
END_TEST

START_TEST(oversized_program_file_is_refused)
{
    /* One byte more than the largest program emu loads; sparse, so it costs nothing. */
    char path[160];
    snprintf(path, sizeof path, "%s/huge.elf", tmpdir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    struct tiny_elf e;
    tiny_elf_init(&e, 0, 0);
    ck_assert_int_eq(write(fd, e.bytes, e.size), e.size);
    ck_assert_int_eq(ftruncate(fd, (off_t)PROGRAM_MAX + 1), 0);
    close(fd);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    assert_refused(&r, 126, "too large", "a file of PROGRAM_MAX + 1 bytes");
    emu_result_free(&r);
}
END_TEST

START_TEST(directory_as_program_is_refused)
{
    struct emu_result r;
    emu(&r, "run", tmpdir, NULL);
    assert_refused(&r, 126, "not a regular file", "a directory");
    emu_result_free(&r);
}
END_TEST

/* A FIFO opens without blocking and is refused like a directory; with
 * no writer, an open that blocked would hang here. */
START_TEST(fifo_as_program_is_refused_without_blocking)
{
    char path[160];
    snprintf(path, sizeof path, "%s/fifo", tmpdir);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    struct emu_result r;
    emu(&r, "run", path, NULL);
    assert_refused(&r, 126, "not a regular file", "a FIFO");
    emu_result_free(&r);
}
END_TEST

/* --------------------------------------------------------- huge argv */

#define BIG_ARG 100000   /* under Linux's 128 KiB limit for one argument */

static char *big_arg(char fill)
{
    char *s = malloc(BIG_ARG + 1);
    ck_assert_ptr_nonnull(s);
    memset(s, fill, BIG_ARG);
    s[BIG_ARG] = 0;
    return s;
}

START_TEST(argument_list_over_256k_is_refused)
{
    char *a = big_arg('a'), *b = big_arg('b'), *c = big_arg('c');
    struct emu_result r;
    emu(&r, "run", program("hello"), "0", a, b, c, NULL);
    assert_refused(&r, 126, "argument list too long", "300 kB of arguments");
    emu_result_free(&r);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(argument_list_just_under_the_limit_runs)
{
    /* 200 kB of arguments fit the boot area (256 KiB) and the stack. */
    char *a = big_arg('a'), *b = big_arg('b');
    struct emu_result r;
    emu(&r, "run", program("hello"), "5", a, b, NULL);
    ck_assert_msg(r.status == 5, "200 kB of arguments: exit %d; stderr: %s", r.status, r.err);
    ck_assert_str_eq(r.out, "hello\n");
    emu_result_free(&r);
    free(a);
    free(b);
}
END_TEST

START_TEST(elf_that_loops_forever_meets_the_budget)
{
    struct tiny_elf e;
    struct emu_result r;
    tiny_elf_init(&e, 0, 1);
    emu(&r, "run", "--max-insns", "3000000", write_file("loop", e.bytes, e.size), NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.err, "instruction budget of 3000000 exhausted") &&
                  count_char(r.err, '\n') == 1, "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------------------- hostile guest code */

/* "killed by SIGSEGV: #PF page fault at eip E, cr2 C, error X" */
static void assert_page_fault(const struct emu_result *r, long eip, long cr2, int error,
                              const char *what)
{
    char want[160];
    ck_assert_msg(r->status == 139, "%s: exit %d; stdout %s stderr %s", what, r->status,
                  r->out, r->err);
    snprintf(want, sizeof want,
             "killed by SIGSEGV: #PF page fault at eip %08lx, cr2 %08lx, error %#x\n", eip,
             cr2, error);
    ck_assert_msg(strstr(r->err, want), "%s: want \"%s\" in: %s", what, want, r->err);
}

START_TEST(writing_the_gdt_or_idt_from_user_mode_is_a_page_fault)
{
    /* sgdt/sidt hand out the addresses; the tables are supervisor pages. */
    static const char *const cases[] = { "sgdt-write", "sidt-write" };
    struct emu_result r;
    emu(&r, "run", program("faults"), cases[_i], NULL);
    long eip = hex_after(r.out, "eip="), cr2 = hex_after(r.out, "cr2=");
    ck_assert_msg(eip > 0 && cr2 >= 0xc0000000L, "%s printed: %s", cases[_i], r.out);
    assert_page_fault(&r, eip, cr2, X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, cases[_i]);
    ck_assert_int_eq(count_char(r.err, '\n'), 1);
    emu_result_free(&r);
}
END_TEST

/*
 * sysenter from user mode with EBP at garbage: the kernel reads the sixth
 * argument through EBP under an exception-table fixup (or refuses a kernel
 * address first), returns -EFAULT, and its return to SYSENTER_RETURN runs
 * the stub's pops on ESP = EBP: a user #PF there, nothing worse.
 */
static const struct {
    const char *name, *cpu, *call;
    int error;
} bad_ebp[] = {
    { "sysenter-bad-ebp", "pentium4", "getpid(", X86_PF_USER },
    { "sysenter-bad-ebp", "pentium3", "getpid(", X86_PF_USER },
    { "args6-kernel-ebp", "pentium4", "sysemu_args6(", X86_PF_USER | X86_PF_PROT },
    { "args6-kernel-ebp", "pentium3", "sysemu_args6(", X86_PF_USER | X86_PF_PROT },
};

START_TEST(sysenter_with_a_bad_ebp_returns_efault_then_faults_in_user_mode)
{
    struct emu_result r;
    emu(&r, "run", "--strace", "--cpu", bad_ebp[_i].cpu, program("faults"), bad_ebp[_i].name,
        NULL);
    long ebp = hex_after(r.out, "cr2=");
    ck_assert_msg(ebp >= 0, "%s printed: %s", bad_ebp[_i].name, r.out);
    char want[96];
    snprintf(want, sizeof want, "[sysenter/iret]    %s", bad_ebp[_i].call);
    const char *line = strstr(r.err, want);
    ck_assert_msg(line, "%s on %s: no \"%s\" in: %s", bad_ebp[_i].name, bad_ebp[_i].cpu, want,
                  r.err);
    const char *eol = strchr(line, '\n');
    const char *result = strstr(line, "= -1 EFAULT (Bad address) ");
    ck_assert_msg(result && eol && result < eol, "%s: the call did not return -EFAULT: %s",
                  bad_ebp[_i].name, r.err);
    assert_page_fault(&r, 0xfffff007L, ebp, bad_ebp[_i].error, bad_ebp[_i].name);
    ck_assert_msg(!strstr(r.err, "panic") && !strstr(r.err, "double"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* Offsets into the vsyscall page: the stubs' every byte, far in, the end. */
static const int jump_offsets[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16,
                                    100, 2048, 4094, 4095 };
#define NJUMPS (int)(sizeof jump_offsets / sizeof jump_offsets[0])

START_TEST(jumps_into_the_vsyscall_page_end_cleanly)
{
    const char *cpu = models[_i / NJUMPS];
    char offset[16];
    snprintf(offset, sizeof offset, "%d", jump_offsets[_i % NJUMPS]);
    struct emu_result r;
    emu(&r, "run", "--max-insns", "50000000", "--cpu", cpu, program("faults"),
        "vsyscall-jump", offset, NULL);
    if (r.status == 0) {
        ck_assert_msg(strstr(r.out, "came back") && r.err[0] == 0,
                      "offset %s on %s: exit 0 but: %s %s", offset, cpu, r.out, r.err);
    } else {
        bool killed = r.status == 128 + 4 || r.status == 128 + 5 || r.status == 128 + 7 ||
                      r.status == 128 + 8 || r.status == 128 + 11;
        ck_assert_msg(killed, "offset %s on %s: exit %d (not an exit or a kill): %s", offset,
                      cpu, r.status, r.err);
        ck_assert_msg(strstr(r.err, ": killed by ") && count_char(r.err, '\n') == 1,
                      "offset %s on %s: %s", offset, cpu, r.err);
    }
    emu_result_free(&r);
}
END_TEST

START_TEST(running_off_the_end_of_the_address_space_is_a_page_fault)
{
    /* Past 0xffffffff a 32-bit CPU wraps to page 0, the unmapped NULL
     * guard: a #PF with CR2 = 0, not a machine failure (exit 125). */
    struct emu_result r;
    emu(&r, "run", program("faults"), "wrap-read", NULL);
    assert_page_fault(&r, hex_after(r.out, "eip="), 0, X86_PF_USER, "wrap-read");
    emu_result_free(&r);

    /* A write's first half is on the read-only vsyscall page: that faults. */
    emu(&r, "run", program("faults"), "wrap-write", NULL);
    assert_page_fault(&r, hex_after(r.out, "eip="), 0xfffffffeL,
                      X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, "wrap-write");
    emu_result_free(&r);

    /* Code on the last bytes of the page runs on into page 0. */
    for (int i = 0; i < NMODELS; i++) {
        emu(&r, "run", "--cpu", models[i], program("faults"), "vsyscall-jump", "4095", NULL);
        assert_page_fault(&r, 0xffffffffL, 0, X86_PF_USER, models[i]);
        emu_result_free(&r);
    }
}
END_TEST

/*
 * Encodings that made Unicorn's translator abort the whole emulator
 * ("tcg fatal error", SIGABRT). A CPU raises #UD for each; so does the
 * machine now (engine.h, quirk 10), and the engine's own complaint is kept
 * off stderr: the report is the only line.
 */
static const struct {
    const char *name;
    uint8_t code[8];
    uint32_t len, ud_offset;
} untranslatable[] = {
    { "lock cmp %al,(%eax)", { 0xf0, 0x38, 0x00 }, 3, 0 },
    { "lock cmp %eax,(%eax)", { 0xf0, 0x39, 0x00 }, 3, 0 },
    { "lock cmpsb", { 0xf0, 0xa6 }, 2, 0 },
    { "lock cmpl $1,(%eax)", { 0xf0, 0x83, 0x38, 0x01 }, 4, 0 },
    { "lcall *%eax", { 0xff, 0xd8 }, 2, 0 },
    { "ljmp *%eax", { 0xff, 0xe8 }, 2, 0 },
    { "nop; nop; lock cmp", { 0x90, 0x90, 0xf0, 0x39, 0x00 }, 5, 2 },
};

START_TEST(untranslatable_instruction_is_an_invalid_opcode)
{
    struct tiny_elf e;
    struct emu_result r;
    char want[128];
    tiny_elf_init(&e, 0, 0);
    tiny_elf_set_code(&e, untranslatable[_i].code, untranslatable[_i].len);
    emu(&r, "run", write_file("ud.elf", e.bytes, e.size), NULL);
    ck_assert_msg(r.status == 132, "%s: exit %d; stderr: %s", untranslatable[_i].name, r.status,
                  r.err);
    snprintf(want, sizeof want, ": killed by SIGILL: #UD invalid opcode at eip %08x, error 0\n",
             TINY_BASE + TINY_CODE + untranslatable[_i].ud_offset);
    assert_refused(&r, 132, want, untranslatable[_i].name);
    ck_assert_msg(!strstr(r.err, "tcg"), "%s", r.err);
    emu_result_free(&r);
}
END_TEST

START_TEST(loop_of_code_capstone_cannot_decode_meets_the_budget)
{
    /* "lock jmp .": the engine runs it (ignoring the lock), the cycle
     * model cannot decode it; it still counts, or this would never end. */
    static const uint8_t lock_jmp[] = { 0xf0, 0xeb, 0xfd };
    struct tiny_elf e;
    struct emu_result r;
    tiny_elf_init(&e, 0, 0);
    tiny_elf_set_code(&e, lock_jmp, sizeof lock_jmp);
    emu(&r, "run", "--max-insns", "200000", write_file("lockjmp.elf", e.bytes, e.size), NULL);
    ck_assert_int_eq(r.status, 124);
    ck_assert_msg(strstr(r.err, "instruction budget of 200000 exhausted") &&
                  count_char(r.err, '\n') == 1, "%s", r.err);
    emu_result_free(&r);
}
END_TEST

/* ------------------------------------- the kernel's own uaccess paths */

START_TEST(bad_user_pointers_give_efault_never_a_panic)
{
    const char *cpu = models[_i / 2], *mode = _i % 2 ? "vsyscall" : "int80";
    struct emu_result r;
    emu(&r, "run", "--cpu", cpu, program("bad_pointers"), mode, NULL);
    ck_assert_msg(r.status == 0, "bad_pointers %s on %s: exit %d\n%s%s", mode, cpu, r.status,
                  r.out, r.err);
    ck_assert_str_eq(r.err, "");
    int calls = -1, efaults = -2, others = -1;
    const char *s = strstr(r.out, "bad_pointers: ");
    ck_assert_msg(s && sscanf(s, "bad_pointers: %d calls, %d returned -EFAULT, %d did not",
                              &calls, &efaults, &others) == 3, "%s", r.out);
    ck_assert_msg(calls >= 200 && efaults == calls && others == 0, "%s", r.out);
    emu_result_free(&r);
}
END_TEST

Suite *robustness_suite(void)
{
    Suite *s = suite_create("robustness");
    TCase *tc;

    tc = tcase_create("malformed input");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
    tcase_add_test(tc, tiny_elf_runs);
    tcase_add_loop_test(tc, malformed_elf_is_refused_with_its_reason, 0, NBAD_ELVES);
    tcase_add_test(tc, oversized_program_file_is_refused);
    tcase_add_test(tc, directory_as_program_is_refused);
    tcase_add_test(tc, fifo_as_program_is_refused_without_blocking);
    tcase_add_test(tc, argument_list_over_256k_is_refused);
    tcase_add_test(tc, argument_list_just_under_the_limit_runs);
    tcase_add_test(tc, elf_that_loops_forever_meets_the_budget);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile guests");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
    tcase_add_loop_test(tc, writing_the_gdt_or_idt_from_user_mode_is_a_page_fault, 0, 2);
    tcase_add_loop_test(tc, sysenter_with_a_bad_ebp_returns_efault_then_faults_in_user_mode, 0,
                        sizeof bad_ebp / sizeof bad_ebp[0]);
    tcase_add_loop_test(tc, jumps_into_the_vsyscall_page_end_cleanly, 0, NMODELS * NJUMPS);
    tcase_add_test(tc, running_off_the_end_of_the_address_space_is_a_page_fault);
    tcase_add_loop_test(tc, untranslatable_instruction_is_an_invalid_opcode, 0,
                        sizeof untranslatable / sizeof untranslatable[0]);
    tcase_add_test(tc, loop_of_code_capstone_cannot_decode_meets_the_budget);
    tcase_add_loop_test(tc, bad_user_pointers_give_efault_never_a_panic, 0, 2 * NMODELS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(robustness_suite());
}
