/* Reading a 32-bit ELF file in memory (elf32.h). */
#include "image/elf32.h"
#include <string.h>

bool elf32_in_file(const struct elf32 *f, uint64_t off, uint64_t len)
{
    return off <= f->size && len <= f->size - off;
}

bool elf32_open(struct elf32 *f, const uint8_t *image, size_t size)
{
    memset(f, 0, sizeof *f);
    if (size < sizeof f->eh)
        return false;
    memcpy(&f->eh, image, sizeof f->eh);
    f->image = image;
    f->size = size;
    return !memcmp(f->eh.e_ident, ELFMAG, SELFMAG) && f->eh.e_ident[EI_CLASS] == ELFCLASS32;
}

/* Entry i of a table at off of n entries of size len each, copied to out. */
static bool table_entry(const struct elf32 *f, uint32_t off, uint32_t n, uint32_t i,
                        void *out, size_t len)
{
    uint64_t at = (uint64_t)off + (uint64_t)i * len;
    if (i >= n || !elf32_in_file(f, at, len))
        return false;
    memcpy(out, f->image + at, len);
    return true;
}

bool elf32_section(const struct elf32 *f, uint32_t i, Elf32_Shdr *sh)
{
    return table_entry(f, f->eh.e_shoff, f->eh.e_shnum, i, sh, sizeof *sh);
}

bool elf32_segment(const struct elf32 *f, uint32_t i, Elf32_Phdr *ph)
{
    return table_entry(f, f->eh.e_phoff, f->eh.e_phnum, i, ph, sizeof *ph);
}

const uint8_t *elf32_section_data(const struct elf32 *f, const Elf32_Shdr *sh)
{
    if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED) ||
        !elf32_in_file(f, sh->sh_offset, sh->sh_size))
        return NULL;
    return f->image + sh->sh_offset;
}

const char *elf32_string(const struct elf32 *f, const Elf32_Shdr *strs, uint32_t off)
{
    const uint8_t *p = elf32_section_data(f, strs);
    if (!p || off >= strs->sh_size || !memchr(p + off, 0, strs->sh_size - off))
        return NULL;
    return (const char *)p + off;
}

int elf32_section_named(const struct elf32 *f, const char *name, Elf32_Shdr *sh)
{
    Elf32_Shdr names;
    if (!elf32_section(f, f->eh.e_shstrndx, &names) || !elf32_section_data(f, &names))
        return -1;
    for (uint32_t i = 0; i < f->eh.e_shnum; i++) {
        const char *n;
        if (!elf32_section(f, i, sh) || !(n = elf32_string(f, &names, sh->sh_name)))
            return -1;
        if (!strcmp(n, name))
            return 1;
    }
    return 0;
}

bool elf32_symtab(const struct elf32 *f, Elf32_Shdr *syms, Elf32_Shdr *strs)
{
    for (uint32_t i = 0; i < f->eh.e_shnum; i++) {
        if (!elf32_section(f, i, syms))
            return false;
        if (syms->sh_type != SHT_SYMTAB)
            continue;
        return elf32_section(f, syms->sh_link, strs) && strs->sh_size &&
               elf32_section_data(f, syms) && elf32_section_data(f, strs);
    }
    return false;
}

bool elf32_symbol(const struct elf32 *f, const Elf32_Shdr *syms, uint32_t j, Elf32_Sym *sym)
{
    return table_entry(f, syms->sh_offset, syms->sh_size / sizeof *sym, j, sym, sizeof *sym);
}
