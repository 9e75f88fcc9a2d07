#include "ksyms.h"
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "kconfig.h"
#include "memory.h"

static const Elf32_Ehdr *elf_header(const uint8_t *image, size_t size)
{
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)image;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS32 || eh->e_machine != EM_386)
        return NULL;
    return eh;
}

static bool range_ok(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* The image's symbol table and its string table, or false. */
static bool symbol_table(const uint8_t *image, size_t size, const Elf32_Sym **syms,
                         size_t *nsyms, const char **strs, size_t *strsize)
{
    const Elf32_Ehdr *eh = elf_header(image, size);
    if (!eh || !range_ok(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf32_Shdr)))
        return false;
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(image + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf32_Shdr *strtab = &sh[sh[i].sh_link];
        if (!range_ok(size, sh[i].sh_offset, sh[i].sh_size) ||
            !range_ok(size, strtab->sh_offset, strtab->sh_size))
            return false;
        *syms = (const Elf32_Sym *)(image + sh[i].sh_offset);
        *nsyms = sh[i].sh_size / sizeof **syms;
        *strs = (const char *)image + strtab->sh_offset;
        *strsize = strtab->sh_size;
        return true;
    }
    return false;
}

uint32_t ksym_find(const uint8_t *image, size_t size, const char *name)
{
    const Elf32_Sym *sym;
    const char *strs;
    size_t n, strsize, len = strlen(name);
    if (!symbol_table(image, size, &sym, &n, &strs, &strsize))
        return 0;
    for (size_t j = 0; j < n; j++) {
        int type = ELF32_ST_TYPE(sym[j].st_info);
        if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= strsize ||
            (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT))
            continue;
        if (strsize - sym[j].st_name > len &&
            !memcmp(strs + sym[j].st_name, name, len + 1))
            return sym[j].st_value;
    }
    return 0;
}

int ksyms_load(struct ksyms *ks, const uint8_t *image, size_t size, char *err, size_t errlen)
{
    static const char *const names[NKSYMS] = {
#define X(name) #name,
        KERNEL_SYMBOLS(X)
#undef X
    };
    const Elf32_Sym *sym;
    const char *strs;
    size_t n, strsize;

    memset(ks, 0, sizeof *ks);
    const Elf32_Ehdr *eh = elf_header(image, size);
    if (!eh) {
        snprintf(err, errlen, "built-in kernel image is not an i386 ELF file");
        return -1;
    }
    if (!symbol_table(image, size, &sym, &n, &strs, &strsize)) {
        snprintf(err, errlen, "built-in kernel image has no symbol table");
        return -1;
    }
    ks->entry = eh->e_entry;
    for (int i = 0; i < NKSYMS; i++) {
        ks->addr[i] = ksym_find(image, size, names[i]);
        if (!ks->addr[i]) {
            snprintf(err, errlen, "built-in kernel image lacks symbol %s", names[i]);
            return -1;
        }
    }
    return 0;
}

int kernel_load(const uint8_t *image, size_t size, struct guest_memory *mem,
                char *err, size_t errlen)
{
    const Elf32_Ehdr *eh = elf_header(image, size);
    if (!eh || !range_ok(size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf32_Phdr))) {
        snprintf(err, errlen, "built-in kernel image is not an i386 ELF file");
        return -1;
    }
    const Elf32_Phdr *ph = (const Elf32_Phdr *)(image + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        uint8_t *dst = guest_ptr(mem, ph[i].p_vaddr, ph[i].p_memsz);
        if (!dst || ph[i].p_filesz > ph[i].p_memsz ||
            !range_ok(size, ph[i].p_offset, ph[i].p_filesz)) {
            snprintf(err, errlen, "built-in kernel image has a bad segment");
            return -1;
        }
        memcpy(dst, image + ph[i].p_offset, ph[i].p_filesz);
        memset(dst + ph[i].p_filesz, 0, ph[i].p_memsz - ph[i].p_filesz);
    }
    return 0;
}

int kernel_code_range(const uint8_t *image, size_t size, uint32_t *lo, uint32_t *hi)
{
    const Elf32_Ehdr *eh = elf_header(image, size);
    uint64_t start = UINT64_MAX, end = 0;

    if (!eh || !range_ok(size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf32_Phdr)))
        return -1;
    const Elf32_Phdr *ph = (const Elf32_Phdr *)(image + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || ph[i].p_memsz == 0)
            continue;
        uint64_t a = ph[i].p_vaddr & ~(uint64_t)(PAGE_SIZE - 1);
        uint64_t b = ((uint64_t)ph[i].p_vaddr + ph[i].p_memsz + PAGE_SIZE - 1) &
                     ~(uint64_t)(PAGE_SIZE - 1);
        start = a < start ? a : start;
        end = b > end ? b : end;
    }
    if (end == 0 || end > UINT32_MAX)
        return -1;
    *lo = (uint32_t)start;
    *hi = (uint32_t)end;
    return 0;
}

extern const uint8_t kernel_pentium4_up_start[], kernel_pentium4_up_end[],
    kernel_pentium4_smp_start[], kernel_pentium4_smp_end[],
    kernel_pentium3_up_start[], kernel_pentium3_up_end[],
    kernel_pentium3_smp_start[], kernel_pentium3_smp_end[],
    kernel_i686_up_start[], kernel_i686_up_end[],
    kernel_i686_smp_start[], kernel_i686_smp_end[],
    kernel_smp_bkl_start[], kernel_smp_bkl_end[];

#define IMAGE(name, march, config, lock, sym) \
    { name, march, config, lock, sym##_start, sym##_end }
static const struct kernel_image images[] = {
    IMAGE("pentium4-up", MARCH_PENTIUM4, KCONFIG_UP, 0, kernel_pentium4_up),
    IMAGE("pentium4-smp", MARCH_PENTIUM4, KCONFIG_SMP, 0, kernel_pentium4_smp),
    IMAGE("pentium3-up", MARCH_PENTIUM3, KCONFIG_UP, 0, kernel_pentium3_up),
    IMAGE("pentium3-smp", MARCH_PENTIUM3, KCONFIG_SMP, 0, kernel_pentium3_smp),
    IMAGE("i686-up", MARCH_I686, KCONFIG_UP, 0, kernel_i686_up),
    IMAGE("i686-smp", MARCH_I686, KCONFIG_SMP, 0, kernel_i686_smp),
    IMAGE("smp-bkl", MARCH_I686, KCONFIG_SMP, 1, kernel_smp_bkl),
};
#undef IMAGE
const int kernel_image_count = sizeof images / sizeof images[0];

const struct kernel_image *kernel_builtin(int march, int config, int ncpus)
{
    for (int i = 0; i < kernel_image_count; i++)
        if (ncpus > 1 ? images[i].big_lock
                      : !images[i].big_lock && images[i].march == march &&
                        images[i].config == config)
            return &images[i];
    return &images[0];
}

void kernel_image_describe(const struct kernel_image *k, char *buf, size_t len)
{
    snprintf(buf, len, "2.5.53 %s%s, -march=%s (kernel-%s.elf)", kconfig_name(k->config),
             k->big_lock ? " with the big kernel lock on every entry" : "",
             kmarch_name(k->march), k->name);
}
