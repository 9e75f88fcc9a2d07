/*
 * The documents: README.md and the docs/ pages.
 *
 * Each sample, marked
 *   <!-- sample: KIND [lines=RANGES] COMMAND -->
 * (scripts/doc-samples.py says what each KIND runs; `make samples` writes
 * them), is what its command prints now: this test runs the command itself
 * (emu, a shell line, or emu --gdb with Debian's gdb attached), keeps the
 * lines RANGES names, puts "(… N lines cut)" where lines were left out,
 * and compares with the block, line for line.
 *
 * Each link to a file of the repository resolves (and a #fragment names a
 * heading of that page), none leaves the repository, and `make install`
 * installs every file README.md, docs/ files and the man page link to, at
 * the same place under share/doc/sysemu, so the links work there too.
 */
#include <check.h>
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu_gdb.h"
#include "support.h"

#define MARK "<!-- sample: "
#define GDB_PROMPT "(gdb) "
#define MAX_DOCS 64

/* README.md and the docs/ pages */
static int doc_files(char **names)
{
    int n = 0;
    names[n++] = strdup("README.md");
    DIR *d = opendir("docs");
    ck_assert_msg(d != NULL, "run the tests from the source tree");
    for (struct dirent *e; (e = readdir(d)) && n < MAX_DOCS;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && !strcmp(e->d_name + len - 3, ".md")) {
            char *p = malloc(len + 6);
            snprintf(p, len + 6, "docs/%s", e->d_name);
            names[n++] = p;
        }
    }
    closedir(d);
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
}

/* Split s in place at each occurrence of sep; the pieces into out. */
static int split(char *s, const char *sep, char **out, int max)
{
    int n = 0;
    size_t len = strlen(sep);
    while (n < max - 1) {
        out[n++] = s;
        char *at = strstr(s, sep);
        if (!at)
            break;
        *at = 0;
        s = at + len;
    }
    out[n] = NULL;
    return n;
}

/* ---- running a sample's command ---- */

static char *run_emu_sample(const char *stream, char *command)
{
    char *words[64];
    split(command, " ", words, 64);
    ck_assert_msg(!strcmp(words[0], "emu"), "a %s sample runs emu, not %s", stream, words[0]);
    struct emu_result r;
    run_emu(&r, (const char *const *)words + 1);
    char *got = strdup(!strcmp(stream, "stdout") ? r.out : r.err);
    emu_result_free(&r);
    return got;
}

static char *run_sh_sample(const char *command)
{
    char line[8192];
    snprintf(line, sizeof line, "exec 2>&1; %s", command);
    const char *argv[] = { "/bin/sh", "-c", line, NULL };
    struct emu_result r;
    run_command(&r, argv);
    char *got = strdup(r.out);
    emu_result_free(&r);
    return got;
}

/* emu run -S --gdb on a free port with the arguments before the first
 * " ; ", gdb attached, each command after it echoed as "(gdb) CMD" and
 * run: the transcript from the first command on. */
static char *run_gdb_sample(char *spec)
{
    char *parts[40], *words[48];
    int nparts = split(spec, " ; ", parts, 40);
    ck_assert_int_ge(nparts, 2);
    const char *args[56] = { "-S", "--gdb", "127.0.0.1:0" };
    int nargs = 3;
    split(parts[0], " ", words, 48);
    const char *prog = NULL, *dir = BUILD_DIR "/guest/programs/";
    for (int i = 0; words[i] && nargs < 55; i++) {
        args[nargs++] = words[i];
        if (!prog && !strncmp(words[i], dir, strlen(dir)))
            prog = words[i] + strlen(dir);
    }
    args[nargs] = NULL;
    static char echo[40][600];
    const char *cmds[80];
    int ncmds = 0;
    for (int i = 1; i < nparts; i++) {
        snprintf(echo[i], sizeof echo[i], "echo " GDB_PROMPT "%s\\n", parts[i]);
        cmds[ncmds++] = echo[i];
        cmds[ncmds++] = parts[i];
    }
    cmds[ncmds] = NULL;
    struct emu_gdb e;
    emu_gdb_start_list(&e, args);
    char *text = gdb_batch_list(&e, prog, cmds);
    emu_gdb_finish(&e, NULL, NULL);
    char first[640];
    snprintf(first, sizeof first, GDB_PROMPT "%s\n", parts[1]);
    char *from = strstr(text, first);
    ck_assert_msg(from != NULL, "gdb printed no transcript:\n%s", text);
    char *got = strdup(from);
    free(text);
    return got;
}

/* ---- cutting ---- */

static void append(char **buf, size_t *len, const char *s, size_t n)
{
    *buf = realloc(*buf, *len + n + 2);
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[(*len)++] = '\n';
    (*buf)[*len] = 0;
}

static void append_cut(char **buf, size_t *len, int lines)
{
    char note[64];
    int n = snprintf(note, sizeof note, "(… %d lines cut)", lines);
    append(buf, len, note, (size_t)n);
}

/* The lines of text that ranges ("1-5,20-,7") names, a note for each gap;
 * all of them when ranges is NULL. */
static char *cut(const char *text, const char *ranges)
{
    char *copy = strdup(text), *lines[8192];
    size_t tl = strlen(copy);
    while (tl && copy[tl - 1] == '\n')
        copy[--tl] = 0;
    int total = split(copy, "\n", lines, 8192);
    char *out = calloc(1, 1);
    size_t len = 0;
    int at = 1;
    char spec[256];
    snprintf(spec, sizeof spec, "%s", ranges ? ranges : "1-");
    char *save = NULL;
    for (char *r = strtok_r(spec, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(r, '-');
        int a = atoi(r), b = dash ? (dash[1] ? atoi(dash + 1) : total) : a;
        ck_assert_msg(a >= at && b >= a && b <= total, "lines=%s: %d-%d of %d lines", ranges, a,
                      b, total);
        if (a > at)
            append_cut(&out, &len, a - at);
        for (int i = a; i <= b; i++)
            append(&out, &len, lines[i - 1], strlen(lines[i - 1]));
        at = b + 1;
    }
    if (at <= total)
        append_cut(&out, &len, total - at + 1);
    free(copy);
    return out;
}

/* What the sample marked by spec ("KIND [lines=R] COMMAND") is now. */
static char *sample_now(char *spec)
{
    char *kind = spec, *rest = strchr(spec, ' ');
    ck_assert_ptr_nonnull(rest);
    *rest++ = 0;
    char *ranges = NULL;
    if (!strncmp(rest, "lines=", 6)) {
        ranges = rest + 6;
        rest = strchr(ranges, ' ');
        ck_assert_ptr_nonnull(rest);
        *rest++ = 0;
    }
    char *text;
    if (!strcmp(kind, "stdout") || !strcmp(kind, "stderr"))
        text = run_emu_sample(kind, rest);
    else if (!strcmp(kind, "sh"))
        text = run_sh_sample(rest);
    else if (!strcmp(kind, "gdb"))
        text = run_gdb_sample(rest);
    else
        ck_abort_msg("unknown sample kind %s", kind);
    char *kept = cut(text, ranges);
    free(text);
    return kept;
}

/* Check every sample of one document; how many there were. */
static int check_samples(const char *path)
{
    char *doc = read_file(path);
    ck_assert_ptr_nonnull(doc);
    int samples = 0;
    for (char *p = strstr(doc, MARK); p; p = strstr(p + 1, MARK)) {
        char *end = strstr(p, " -->\n");
        ck_assert_ptr_nonnull(end);
        char *spec = strndup(p + strlen(MARK), (size_t)(end - p - strlen(MARK)));
        char *shown = strdup(spec);
        char *fence = end + 5;
        ck_assert_msg(!strncmp(fence, "```\n", 4), "%s: no block after %s", path, shown);
        char *close = strstr(fence + 3, "\n```\n");
        ck_assert_ptr_nonnull(close);
        char *want = strndup(fence + 4, (size_t)(close - fence - 3));
        char *got = sample_now(spec);
        ck_assert_msg(!strcmp(got, want),
                      "%s: the sample of\n  %s\nis not what it prints now (make samples):\n"
                      "%s:\n%s\nnow:\n%s",
                      path, shown, path, want, got);
        free(got);
        free(want);
        free(shown);
        free(spec);
        samples++;
    }
    free(doc);
    return samples;
}

START_TEST(every_sample_is_what_its_command_prints)
{
    char *names[MAX_DOCS];
    int n = doc_files(names), samples = 0, readme = 0;
    for (int i = 0; i < n; i++) {
        int k = check_samples(names[i]);
        if (!strcmp(names[i], "README.md"))
            readme = k;
        samples += k;
    }
    /* the quick start's runs, make run's tables, the GDB sessions ... */
    ck_assert_int_ge(readme, 5);
    ck_assert_int_ge(samples, 15);
    free_names(names, n);
}
END_TEST

/* The cut itself, on a text of known lines. */
START_TEST(a_cut_says_how_many_lines_it_left_out)
{
    const char *text = "1\n2\n3\n4\n5\n6\n7\n";
    char *a = cut(text, "2-3,6-");
    ck_assert_str_eq(a, "(… 1 lines cut)\n2\n3\n(… 2 lines cut)\n6\n7\n");
    char *b = cut(text, "1-2");
    ck_assert_str_eq(b, "1\n2\n(… 5 lines cut)\n");
    char *c = cut(text, NULL);
    ck_assert_str_eq(c, text);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* ---- links ---- */

/* GitHub's anchor for a heading: lower case, spaces to '-', and only
 * letters, digits, '-' and '_' kept. */
static void slug(const char *heading, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = heading; *c && *c != '\n' && n + 1 < size; c++) {
        if (*c == ' ')
            out[n++] = '-';
        else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_')
            out[n++] = *c;
        else if (*c >= 'A' && *c <= 'Z')
            out[n++] = (char)(*c - 'A' + 'a');
    }
    out[n] = 0;
}

static bool has_heading(const char *doc, const char *anchor)
{
    for (const char *p = doc; p; p = strchr(p, '\n')) {
        if (*p == '\n')
            p++;
        if (*p != '#')
            continue;
        while (*p == '#')
            p++;
        char s[256];
        slug(p + 1, s, sizeof s);
        if (!strcmp(s, anchor))
            return true;
    }
    return false;
}

/* Resolve target against dir inside the repository: the path from the
 * repository's top, or NULL if it leaves it. */
static char *resolve(const char *dir, const char *target)
{
    char joined[PATH_MAX], *parts[128], *kept[128];
    snprintf(joined, sizeof joined, "%s/%s", dir, target);
    int n = split(joined, "/", parts, 128), k = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(parts[i], "..")) {
            if (k == 0)
                return NULL;
            k--;
        } else if (strcmp(parts[i], ".") && *parts[i]) {
            kept[k++] = parts[i];
        }
    }
    char *out = calloc(1, PATH_MAX);
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), PATH_MAX - strlen(out), "%s%s", i ? "/" : "", kept[i]);
    return out;
}

/* Each repository file path doc (at path) links to, into files. */
static int doc_links(const char *path, char **files, int nfiles)
{
    char *doc = read_file(path), *copy = strdup(path);
    const char *dir = dirname(copy);
    for (char *p = strstr(doc, "]("); p; p = strstr(p + 1, "](")) {
        char *end = strchr(p, ')');
        ck_assert_ptr_nonnull(end);
        char *target = strndup(p + 2, (size_t)(end - p - 2));
        if (strstr(target, "://") || !strncmp(target, "mailto:", 7)) {
            free(target);
            continue;
        }
        char *hash = strchr(target, '#');
        if (hash)
            *hash++ = 0;
        char *file = *target ? resolve(dir, target) : strdup(path);
        ck_assert_msg(file != NULL, "%s: the link %s leaves the repository", path, target);
        struct stat st;
        ck_assert_msg(stat(file, &st) == 0, "%s: the link %s names no file (%s)", path, target,
                      file);
        if (hash && *hash) {
            char *linked = read_file(file);
            ck_assert_msg(has_heading(linked, hash), "%s: %s has no heading #%s", path, file,
                          hash);
            free(linked);
        }
        if (*target && nfiles < 256)
            files[nfiles++] = file;
        else
            free(file);
        free(target);
    }
    free(copy);
    free(doc);
    return nfiles;
}

/* The documents the man page names: README.md and docs/... */
static int man_links(char **files, int nfiles)
{
    char *man = read_file("docs/emu.1");
    ck_assert_ptr_nonnull(man);
    /* roff's \- is a '-' */
    char *w = man;
    for (const char *r = man; *r; r++)
        if (!(r[0] == '\\' && r[1] == '-'))
            *w++ = *r;
    *w = 0;
    int found = 0;
    for (char *p = man; (p = strpbrk(p, "dR")); p++) {
        size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./-_");
        if (p > man && (p[-1] == '/' || p[-1] == '_'))
            continue;
        if ((!strncmp(p, "docs/", 5) || !strncmp(p, "README.md", 9)) && len > 5) {
            while (p[len - 1] == '.')   /* a sentence's full stop */
                len--;
            char *file = strndup(p, len);
            struct stat st;
            ck_assert_msg(stat(file, &st) == 0, "docs/emu.1 names %s, which does not exist",
                          file);
            files[nfiles++] = file;
            found++;
            p += len - 1;
        }
    }
    ck_assert_int_ge(found, 2);
    free(man);
    return nfiles;
}

START_TEST(every_link_resolves_inside_the_repository)
{
    char *names[MAX_DOCS], *files[256];
    int n = doc_files(names), nfiles = 0;
    for (int i = 0; i < n; i++)
        nfiles = doc_links(names[i], files, nfiles);
    ck_assert_int_ge(nfiles, 20);
    free_names(names, n);
    free_names(files, nfiles);
    /* the article and the release are cited where anyone can read them */
    char *readme = read_file("README.md");
    ck_assert_ptr_nonnull(strstr(readme, "https://lwn.net/Articles/18411/"));
    ck_assert_ptr_nonnull(strstr(readme, "ChangeLog-2.5.53"));
    free(readme);
}
END_TEST

START_TEST(make_install_installs_every_linked_document)
{
    char *names[MAX_DOCS], *files[512];
    int n = doc_files(names), nfiles = 0;
    for (int i = 0; i < n; i++)
        nfiles = doc_links(names[i], files, nfiles);
    nfiles = man_links(files, nfiles);
    const char *dest = scratch("install");
    char cmd[1024];
    /* -o: install the emu that is built, whatever make thinks of it */
    snprintf(cmd, sizeof cmd,
             "rm -rf %s && make -s --no-print-directory -o %s install BUILD=%s DESTDIR=%s "
             "PREFIX=/usr >/dev/null",
             dest, EMU_PATH, BUILD_DIR, dest);
    ck_assert_int_eq(system(cmd), 0);
    char at[PATH_MAX];
    struct stat st;
    for (int i = 0; i < nfiles; i++) {
        snprintf(at, sizeof at, "%s/usr/share/doc/sysemu/%s", dest, files[i]);
        ck_assert_msg(stat(at, &st) == 0 && S_ISREG(st.st_mode),
                      "%s is linked to but make install does not install it (%s)", files[i], at);
    }
    snprintf(at, sizeof at, "%s/usr/share/man/man1/emu.1", dest);
    ck_assert_int_eq(stat(at, &st), 0);
    snprintf(at, sizeof at, "%s/usr/bin/emu", dest);
    ck_assert_int_eq(stat(at, &st), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dest);
    ck_assert_int_eq(system(cmd), 0);
    free_names(names, n);
    free_names(files, nfiles);
}
END_TEST

Suite *docs_suite(void)
{
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("samples");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, every_sample_is_what_its_command_prints);
    tcase_add_test(tc, a_cut_says_how_many_lines_it_left_out);
    suite_add_tcase(s, tc);
    TCase *links = tcase_create("links");
    tcase_set_timeout(links, 300);
    tcase_add_test(links, every_link_resolves_inside_the_repository);
    tcase_add_test(links, make_install_installs_every_linked_document);
    suite_add_tcase(s, links);
    return s;
}

int main(void)
{
    /* sh samples run emu by name */
    char path[PATH_MAX * 2], emu_dir[PATH_MAX];
    if (!realpath(EMU_PATH, emu_dir)) {
        fprintf(stderr, "test_docs: no %s: run make first\n", EMU_PATH);
        return EXIT_FAILURE;
    }
    snprintf(path, sizeof path, "%s:%s", dirname(emu_dir), getenv("PATH"));
    setenv("PATH", path, 1);
    return run_suite(docs_suite());
}
