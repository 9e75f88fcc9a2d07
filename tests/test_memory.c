/*
 * Guest RAM in the engine (emu/engine/memory.c): code mapped apart from the rest
 * of its region is the same host memory, seen the same by the engine and
 * the host on both sides of each cut, in a shared engine too; and a booted
 * machine maps the kernel's code that way on every CPU's engine.
 */
#include <check.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

#define BASE 0x00100000u
#define SIZE 0x00400000u
#define LO   (BASE + 0x3000u)
#define HI   (BASE + 0x5000u)

/* Does the engine map [lo, hi) as one mapping of its own? */
static bool has_mapping(uc_engine *uc, uint64_t lo, uint64_t hi)
{
    uc_mem_region *r;
    uint32_t n;
    bool found = false;

    ck_assert_int_eq(uc_mem_regions(uc, &r, &n), UC_ERR_OK);
    for (uint32_t i = 0; i < n; i++)
        found |= r[i].begin == lo && r[i].end == hi - 1;
    uc_free(r);
    return found;
}

static uint32_t mapping_count(uc_engine *uc)
{
    uc_mem_region *r;
    uint32_t n;
    ck_assert_int_eq(uc_mem_regions(uc, &r, &n), UC_ERR_OK);
    uc_free(r);
    return n;
}

/* The engine and the host see the same bytes everywhere in the region, and
 * code run from the piece stores across both cuts and into itself. */
static void check_same_memory(uc_engine *uc, uint8_t *host)
{
    for (uint32_t i = 0; i < SIZE; i += 4093)
        host[i] = (uint8_t)(i * 7 + 1);
    for (uint32_t i = 0; i < SIZE; i += 4093) {
        uint8_t b;
        ck_assert_int_eq(uc_mem_read(uc, BASE + i, &b, 1), UC_ERR_OK);
        ck_assert_uint_eq(b, host[i]);
    }
    /* mov $v,%eax; mov %eax,ADDR; ... mov HI,%ebx; hlt */
    static const uint32_t at[] = { LO - 4, LO - 2, LO + 0x100, HI - 2, HI, HI + 4 };
    uint8_t code[128], *p = code;
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        uint32_t v = 0x11111111u * (uint32_t)(i + 1);
        *p++ = 0xb8;
        memcpy(p, &v, 4), p += 4;
        *p++ = 0xa3;
        memcpy(p, &at[i], 4), p += 4;
    }
    *p++ = 0x8b, *p++ = 0x1d;
    uint32_t hi_addr = HI;
    memcpy(p, &hi_addr, 4), p += 4;
    *p++ = 0xf4;
    memcpy(host + (LO + 0x800 - BASE), code, (size_t)(p - code));
    ck_assert_int_eq(uc_emu_start(uc, LO + 0x800, LO + 0x800 + (uint64_t)(p - code) - 1, 0, 0),
                     UC_ERR_OK);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        uint32_t v = 0x11111111u * (uint32_t)(i + 1), got;
        if (i + 1 < sizeof at / sizeof at[0] && at[i + 1] < at[i] + 4)
            continue;   /* overlapped by the next store */
        memcpy(&got, host + (at[i] - BASE), 4);
        ck_assert_uint_eq(got, v);
    }
    uint32_t ebx;
    ck_assert_int_eq(uc_reg_read(uc, UC_X86_REG_EBX, &ebx), UC_ERR_OK);
    ck_assert_uint_eq(ebx, 0x55555555u);
    /* what the host writes, the engine reads, in every piece */
    static const uint32_t spots[] = { BASE, LO - 1, LO, HI - 1, HI, BASE + SIZE - 1 };
    for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
        uint8_t b;
        host[spots[i] - BASE] = (uint8_t)(0xa0 + i);
        ck_assert_int_eq(uc_mem_read(uc, spots[i], &b, 1), UC_ERR_OK);
        ck_assert_uint_eq(b, 0xa0 + i);
    }
}

static void check_pieces(uc_engine *uc)
{
    ck_assert(has_mapping(uc, LO, HI));
    ck_assert(has_mapping(uc, BASE, LO));
    ck_assert(has_mapping(uc, HI, BASE + SIZE));
}

START_TEST(code_mapped_apart_is_the_same_host_memory_to_engine_and_host)
{
    uc_engine *uc, *other;
    struct guest_memory mem = { .count = 0, .code_lo = LO, .code_hi = HI };
    ck_assert_int_eq(uc_open(UC_ARCH_X86, UC_MODE_32, &uc), UC_ERR_OK);
    ck_assert_int_eq(memory_map(uc, &mem, BASE, SIZE, "ram"), 0);
    check_pieces(uc);
    check_same_memory(uc, guest_ptr(&mem, BASE, SIZE));
    /* another engine over the same memory (--smp) maps it the same way */
    ck_assert_int_eq(uc_open(UC_ARCH_X86, UC_MODE_32, &other), UC_ERR_OK);
    ck_assert_int_eq(memory_share(other, &mem), 0);
    check_pieces(other);
    check_same_memory(other, guest_ptr(&mem, BASE, SIZE));
    uc_close(other);
    uc_close(uc);
    memory_unmap_all(&mem);
}
END_TEST

START_TEST(a_code_range_not_inside_the_region_leaves_it_one_mapping)
{
    static const uint32_t bad[][2] = {
        { BASE + SIZE - 0x1000, BASE + SIZE + 0x1000 },   /* past the region */
        { BASE - 0x1000, BASE + 0x1000 },                  /* before it */
        { LO + 1, HI },                                    /* not page-aligned */
        { LO, HI - 1 },
        { HI, LO },                                        /* empty */
        { 0, 0 },                                          /* none */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uc_engine *uc;
        struct guest_memory mem = { .count = 0, .code_lo = bad[i][0], .code_hi = bad[i][1] };
        ck_assert_int_eq(uc_open(UC_ARCH_X86, UC_MODE_32, &uc), UC_ERR_OK);
        ck_assert_int_eq(memory_map(uc, &mem, BASE, SIZE, "ram"), 0);
        ck_assert_uint_eq(mapping_count(uc), 1);
        ck_assert(has_mapping(uc, BASE, BASE + SIZE));
        uint8_t *host = guest_ptr(&mem, BASE, SIZE), b;
        host[SIZE - 1] = 0x5a;
        ck_assert_int_eq(uc_mem_read(uc, BASE + SIZE - 1, &b, 1), UC_ERR_OK);
        ck_assert_uint_eq(b, 0x5a);
        uc_close(uc);
        memory_unmap_all(&mem);
    }
}
END_TEST

static void boot_check(int ncpus, const uint8_t *image, size_t size)
{
    static char *argv[] = { NULL, NULL };
    static char *envp[] = { NULL };
    struct run_options opts = { 0 };
    struct machine *m = calloc(1, sizeof *m);
    uint32_t lo, hi;

    argv[0] = (char *)program("hello");
    opts.cpu_spec = "pentium4";
    opts.max_insns = 50000000;
    opts.program = argv[0];
    opts.argc = 1;
    opts.argv = argv;
    opts.envp = envp;
    opts.quiet = true;
    opts.smp = ncpus > 1 ? ncpus : 0;
    ck_assert_int_eq(kernel_code_range(image, size, &lo, &hi), 0);
    ck_assert_uint_eq(lo, KERNEL_LOAD_ADDR);
    ck_assert_uint_gt(hi, lo);
    ck_assert_uint_eq(hi % PAGE_SIZE, 0);
    ck_assert_int_eq(machine_init(m, &opts), 0);
    for (int c = 0; c < ncpus; c++) {
        uc_engine *uc = ncpus > 1 ? m->engines[c] : m->uc;
        ck_assert_msg(has_mapping(uc, lo, hi), "CPU %d: the code is not mapped apart", c);
        ck_assert(has_mapping(uc, KERNEL_BASE, lo));
        ck_assert(has_mapping(uc, hi, KERNEL_BASE + KERNEL_RAM_SIZE));
    }
    /* and the kernel runs from it, and the program to its end */
    ck_assert_int_eq(machine_run(m), 0);
    ck_assert_int_eq(m->exit_status, 0);
    machine_destroy(m);
    free(m);
}

START_TEST(a_booted_kernels_code_is_mapped_apart_on_every_cpu)
{
    boot_check(1, kernel_image_start, (size_t)(kernel_image_end - kernel_image_start));
    boot_check(2, kernel_smp_image_start,
               (size_t)(kernel_smp_image_end - kernel_smp_image_start));
}
END_TEST

START_TEST(an_image_without_executable_segments_has_no_code_range)
{
    size_t size = (size_t)(kernel_image_end - kernel_image_start);
    uint8_t *image = malloc(size);
    uint32_t lo = 1, hi = 2;
    memcpy(image, kernel_image_start, size);
    Elf32_Ehdr *eh = (Elf32_Ehdr *)image;
    Elf32_Phdr *ph = (Elf32_Phdr *)(image + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        ph[i].p_flags &= ~(uint32_t)PF_X;
    ck_assert_int_eq(kernel_code_range(image, size, &lo, &hi), -1);
    ck_assert_uint_eq(lo, 1);
    ck_assert_uint_eq(hi, 2);
    ck_assert_int_eq(kernel_code_range(image, 10, &lo, &hi), -1);
    free(image);
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, code_mapped_apart_is_the_same_host_memory_to_engine_and_host);
    tcase_add_test(tc, a_code_range_not_inside_the_region_leaves_it_one_mapping);
    tcase_add_test(tc, a_booted_kernels_code_is_mapped_apart_on_every_cpu);
    tcase_add_test(tc, an_image_without_executable_segments_has_no_code_range);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(memory_suite());
}
