#include "ksyms.h"
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int cmp_sym(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_load(struct ksyms *ks, const uint8_t *image, size_t size, char *err, size_t errlen)
{
    memset(ks, 0, sizeof *ks);
    const Elf32_Ehdr *eh = elf_header(image, size);
    if (!eh || !range_ok(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf32_Shdr))) {
        snprintf(err, errlen, "built-in kernel image is not an i386 ELF file");
        return -1;
    }
    ks->entry = eh->e_entry;
    const Elf32_Shdr *sh = (const Elf32_Shdr *)(image + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf32_Shdr *strtab = &sh[sh[i].sh_link];
        if (!range_ok(size, sh[i].sh_offset, sh[i].sh_size) ||
            !range_ok(size, strtab->sh_offset, strtab->sh_size))
            break;
        const Elf32_Sym *sym = (const Elf32_Sym *)(image + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *sym;
        ks->syms = calloc(n ? n : 1, sizeof *ks->syms);
        if (!ks->syms)
            break;
        for (size_t j = 0; j < n; j++) {
            int type = ELF32_ST_TYPE(sym[j].st_info);
            if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= strtab->sh_size ||
                (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT))
                continue;
            const char *name = (const char *)image + strtab->sh_offset + sym[j].st_name;
            if (!*name || name[0] == '.')
                continue;
            ks->syms[ks->count].addr = sym[j].st_value;
            ks->syms[ks->count].name = strndup(name, strtab->sh_size - sym[j].st_name);
            ks->count++;
        }
        qsort(ks->syms, ks->count, sizeof *ks->syms, cmp_sym);
    }
    ks->text_start = ksym_addr(ks, "_text");
    ks->text_end = ksym_addr(ks, "_etext");
    if (!ks->count || !ks->text_start) {
        snprintf(err, errlen, "built-in kernel image has no symbol table");
        return -1;
    }
    return 0;
}

void ksyms_free(struct ksyms *ks)
{
    for (size_t i = 0; i < ks->count; i++)
        free(ks->syms[i].name);
    free(ks->syms);
    memset(ks, 0, sizeof *ks);
}

uint32_t ksym_addr(const struct ksyms *ks, const char *name)
{
    for (size_t i = 0; i < ks->count; i++)
        if (!strcmp(ks->syms[i].name, name))
            return ks->syms[i].addr;
    return 0;
}

const char *ksym_lookup(const struct ksyms *ks, uint32_t addr, uint32_t *offset)
{
    if (addr < ks->text_start || addr >= ks->text_end)
        return NULL;
    const struct ksym *best = NULL;
    for (size_t i = 0; i < ks->count && ks->syms[i].addr <= addr; i++)
        best = &ks->syms[i];
    if (!best)
        return NULL;
    if (offset)
        *offset = addr - best->addr;
    return best->name;
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
