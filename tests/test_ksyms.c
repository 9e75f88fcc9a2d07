/*
 * The kernel symbols the emulator needs (ksyms.h, KERNEL_SYMBOLS): the
 * built-in image has each, and an image that lacks one is refused at
 * start-up with exit status 125 and the symbol's name, never run with 0.
 */
#include <check.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"
#include "../emu/cpu/boot.h"

/* The addresses, then the one offset (task_comm_offset, absolute). */
static const char *const needed[NKSYMS + 1] = {
#define X(name) #name,
    KERNEL_SYMBOLS(X)
#undef X
    "task_comm_offset",
};

static size_t image_size(void)
{
    return (size_t)(kernel_image_end - kernel_image_start);
}

/* A copy of the built-in image whose symbol table has `name` undefined:
 * the image no longer defines it. */
static uint8_t *image_without(const char *name)
{
    size_t size = image_size();
    uint8_t *copy = malloc(size);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, kernel_image_start, size);
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)copy;
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(copy + eh->e_shoff);
    int found = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        Elf32_Sym *sym = (Elf32_Sym *)(copy + sh[i].sh_offset);
        const char *strs = (const char *)copy + sh[sh[i].sh_link].sh_offset;
        for (size_t j = 0; j < sh[i].sh_size / sizeof *sym; j++) {
            if (!strcmp(strs + sym[j].st_name, name)) {
                sym[j].st_shndx = SHN_UNDEF;
                found++;
            }
        }
    }
    ck_assert_msg(found >= 1, "the image has no symbol %s", name);
    return copy;
}

/* The seed's vsyscall page (guest/abi.h). */
static uint32_t page_symbol(int i)
{
    switch (i) {
    case KSYM_vsyscall_page_entry:
    case KSYM_vsyscall_page_base:
        return VSYSCALL_BASE;
    case KSYM_vsyscall_page_sigreturn:
        return VSYSCALL_BASE + VSYSCALL_SIGRETURN_OFFSET;
    case KSYM_vsyscall_page_gtod:
        return VSYSCALL_BASE + VSYSCALL_GTOD_OFFSET;
    case KSYM_vsyscall_page_clock_gettime:
        return VSYSCALL_BASE + VSYSCALL_CLOCK_GETTIME_OFFSET;
    default:
        return VSYSCALL_BASE + VSYSCALL_VGTOD_RETRY_OFFSET;
    }
}

START_TEST(the_built_in_image_has_every_symbol_the_emulator_needs)
{
    struct ksyms ks;
    char err[256];
    ck_assert_int_eq(ksyms_load(&ks, kernel_image_start, image_size(), err, sizeof err), 0);
    ck_assert_uint_eq(ks.entry, ksym_find(kernel_image_start, image_size(), "startup_32"));
    for (int i = 0; i < NKSYMS; i++) {
        /* every symbol is kernel code but the page's, which are where
         * the seed puts them: the entry at the page's first byte */
        if (i >= KSYM_vsyscall_page_entry)
            ck_assert_uint_eq(ks.addr[i], page_symbol(i));
        else
            ck_assert_msg(ks.addr[i] >= KERNEL_LOAD_ADDR &&
                              ks.addr[i] < KERNEL_BASE + KERNEL_RAM_SIZE,
                          "%s at %08x", needed[i], ks.addr[i]);
        ck_assert_uint_eq(ks.addr[i], ksym_find(kernel_image_start, image_size(), needed[i]));
    }
}
END_TEST

/* Every built-in image loads; each (march, configuration) has its own,
 * distinct from the others, and several CPUs get the big-lock image. */
START_TEST(each_march_and_configuration_has_its_own_image)
{
    const struct kernel_image *seen[NMARCHES * NKCONFIGS * NKHIST];
    int n = 0;
    for (int a = 0; a < NMARCHES; a++)
        for (int c = 0; c < NKCONFIGS; c++) {
            const struct kernel_image *k = kernel_builtin(a, c, 1);
            struct ksyms ks;
            char err[256];
            ck_assert_int_eq(k->march, a);
            ck_assert_int_eq(k->config, c);
            ck_assert(!k->big_lock);
            ck_assert_msg(ksyms_load(&ks, k->start, (size_t)(k->end - k->start), err,
                                     sizeof err) == 0, "%s: %s", k->name, err);
            for (int j = 0; j < n; j++)
                ck_assert_msg(seen[j]->end - seen[j]->start != k->end - k->start ||
                              memcmp(seen[j]->start, k->start, (size_t)(k->end - k->start)),
                              "%s and %s are the same image", seen[j]->name, k->name);
            seen[n++] = k;
        }
    const struct kernel_image *bkl = kernel_builtin(MARCH_PENTIUM4, KCONFIG_SMP, 2);
    ck_assert(bkl->big_lock);
    ck_assert_ptr_eq(bkl->start, kernel_smp_image_start);
    ck_assert_ptr_eq(kernel_builtin(MARCH_PENTIUM4, KCONFIG_UP, 1)->start, kernel_image_start);
    /* the later steps of the patch's history (--kernel): up on the P4 and
     * PIII families, each its own image with every symbol; none else (not
     * the i686 or the K7 image) */
    int later = 0;
    for (int h = KHIST_2_5_53; h < NKHIST; h++)
        for (int a = 0; a < NMARCHES; a++)
            for (int c = 0; c < NKCONFIGS; c++) {
                const struct kernel_image *k = kernel_builtin_history(a, c, 1, h);
                bool built = c == KCONFIG_UP && (a == MARCH_PENTIUM4 || a == MARCH_PENTIUM3);
                ck_assert_msg((k != NULL) == built, "history %d march %d config %d", h, a, c);
                if (!k)
                    continue;
                struct ksyms ks;
                char err[256];
                ck_assert_int_eq(k->history, h);
                ck_assert_msg(ksyms_load(&ks, k->start, (size_t)(k->end - k->start), err,
                                         sizeof err) == 0, "%s: %s", k->name, err);
                for (int j = 0; j < n; j++)
                    ck_assert_msg(seen[j]->end - seen[j]->start != k->end - k->start ||
                                  memcmp(seen[j]->start, k->start, (size_t)(k->end - k->start)),
                                  "%s and %s are the same image", seen[j]->name, k->name);
                seen[n++] = k;
                later++;
            }
    ck_assert_ptr_null(kernel_builtin_history(MARCH_PENTIUM4, KCONFIG_SMP, 2, KHIST_2_6_0));
    ck_assert_int_eq(kernel_image_count, n + 1);
    ck_assert_int_eq(later, 6);
}
END_TEST

START_TEST(an_image_without_a_symbol_is_refused_with_its_name)
{
    struct ksyms ks;
    char err[256], want[128];
    uint8_t *image = image_without(needed[_i]);
    ck_assert_int_eq(ksyms_load(&ks, image, image_size(), err, sizeof err), -1);
    snprintf(want, sizeof want, "built-in kernel image lacks symbol %s", needed[_i]);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(ksym_find(image, image_size(), needed[_i]), 0);
    free(image);
}
END_TEST

START_TEST(a_machine_booting_such_an_image_fails_with_125)
{
    struct machine *m = calloc(1, sizeof *m);
    static char *argv[] = { NULL, NULL };
    struct run_options opts = { .cpu_spec = "pentium4", .max_insns = 1000000, .argc = 1,
                                .argv = argv };
    argv[0] = (char *)program("hello");
    opts.program = argv[0];
    uint8_t *image = image_without("sysenter_exit");
    ck_assert_int_eq(machine_init_bare(m, &opts), 0);
    ck_assert_int_eq(machine_boot_image(m, image, image_size()), 125);
    ck_assert_str_eq(m->message, "built-in kernel image lacks symbol sysenter_exit");
    machine_destroy(m);
    free(m);
    free(image);
}
END_TEST

START_TEST(an_image_without_a_symbol_table_is_refused)
{
    struct ksyms ks;
    char err[256];
    uint8_t *image = malloc(image_size());
    ck_assert_ptr_nonnull(image);
    memcpy(image, kernel_image_start, image_size());
    memset(image + 32, 0, 4);   /* e_shoff = 0: no section headers */
    memset(image + 48, 0, 2);   /* e_shnum = 0 */
    ck_assert_int_eq(ksyms_load(&ks, image, image_size(), err, sizeof err), -1);
    ck_assert_str_eq(err, "built-in kernel image has no symbol table");
    free(image);
}
END_TEST

Suite *ksyms_suite(void)
{
    Suite *s = suite_create("ksyms");
    TCase *tc = tcase_create("symbols");
    tcase_add_test(tc, the_built_in_image_has_every_symbol_the_emulator_needs);
    tcase_add_test(tc, each_march_and_configuration_has_its_own_image);
    tcase_add_loop_test(tc, an_image_without_a_symbol_is_refused_with_its_name, 0, NKSYMS + 1);
    tcase_add_test(tc, a_machine_booting_such_an_image_fails_with_125);
    tcase_add_test(tc, an_image_without_a_symbol_table_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(ksyms_suite());
}
