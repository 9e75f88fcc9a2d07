/*
 * kinsns IMAGE OUT: the distinct instructions of a guest kernel image, as
 * the emulator's decoder describes them (emu/cost/decode.c), written to OUT
 * as its memo's entries for emu to seed its memo with at start-up
 * (docs/performance.md, item 52). A linear sweep of the executable
 * segments from each code symbol (a function or a label) to the next
 * symbol: the memo is keyed by bytes, so any sweep gives true
 * descriptions, a better one only more of the ones a run uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cost/decode.h"
#include "image/elf32.h"

struct mark {
    uint32_t addr;
    int code;            /* a function or a label, not an object */
};

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            uint8_t *more = realloc(buf, cap = cap ? 2 * cap : 1 << 20);
            if (!more)
                break;
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *size = n;
    return buf;
}

static int by_addr(const void *a, const void *b)
{
    const struct mark *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every symbol that places something, sorted: *n of them. */
static struct mark *marks_of(const struct elf32 *f, uint32_t *n)
{
    Elf32_Shdr syms, strs;
    Elf32_Sym sym;
    *n = 0;
    if (!elf32_symtab(f, &syms, &strs))
        return NULL;
    struct mark *m = calloc(syms.sh_size / sizeof sym + 1, sizeof *m);
    for (uint32_t j = 0; m && elf32_symbol(f, &syms, j, &sym); j++) {
        int type = ELF32_ST_TYPE(sym.st_info);
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
            (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT))
            continue;
        m[(*n)++] = (struct mark){ sym.st_value, type != STT_OBJECT };
    }
    if (m)
        qsort(m, *n, sizeof *m, by_addr);
    return m;
}

/* From each code symbol in the segment to the next symbol or its end. */
static void sweep_segment(struct block_cache *bc, const uint8_t *file, const Elf32_Phdr *ph,
                          const struct mark *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = m[i].addr, end = ph->p_vaddr + ph->p_filesz;
        if (!m[i].code || a < ph->p_vaddr || a >= end)
            continue;
        for (uint32_t k = i + 1; k < n; k++)
            if (m[k].addr > a) {
                end = m[k].addr < end ? m[k].addr : end;
                break;
            }
        block_cache_learn(bc, a, file + ph->p_offset + (a - ph->p_vaddr), end - a);
    }
}

static int sweep(struct block_cache *bc, const uint8_t *file, size_t size)
{
    struct elf32 f;
    Elf32_Phdr ph;
    uint32_t n;
    if (!elf32_open(&f, file, size) || f.eh.e_machine != EM_386)
        return -1;
    struct mark *m = marks_of(&f, &n);
    if (!m)
        return -1;
    for (uint32_t i = 0; elf32_segment(&f, i, &ph); i++)
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
            elf32_in_file(&f, ph.p_offset, ph.p_filesz))
            sweep_segment(bc, file, &ph, m, n);
    free(m);
    return 0;
}

static int write_memo(const struct block_cache *bc, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    for (uint32_t i = 0; i < bc->nmemo; i++) {
        struct insn_seen e = bc->memo[i];
        e.next = 0;
        fwrite(&e, sizeof e, 1, f);
    }
    return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    static struct block_cache bc;
    static const uint32_t no_costs[NCLASSES];
    size_t size;
    if (argc != 3) {
        fprintf(stderr, "usage: kinsns IMAGE OUT\n");
        return 2;
    }
    uint8_t *file = read_all(argv[1], &size);
    if (!file || block_cache_init(&bc, no_costs) || sweep(&bc, file, size)) {
        fprintf(stderr, "kinsns: %s: not an i386 ELF image with symbols\n", argv[1]);
        return 1;
    }
    int rc = write_memo(&bc, argv[2]);
    if (rc)
        fprintf(stderr, "kinsns: cannot write %s\n", argv[2]);
    block_cache_free(&bc);
    free(file);
    return rc ? 1 : 0;
}
