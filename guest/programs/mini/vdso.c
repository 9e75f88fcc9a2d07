/*
 * The vDSO the kernel describes at AT_SYSINFO_EHDR (guest/kernel/vdso.c):
 * a symbol by name, through its PT_DYNAMIC's DT_SYMTAB, DT_STRTAB and
 * DT_HASH (whose second word is the number of symbols). The image is linked
 * where it lies, so its addresses are used as they are.
 */
#include "mini.h"

#define PT_DYNAMIC 2
#define DT_NULL    0
#define DT_HASH    4
#define DT_STRTAB  5
#define DT_SYMTAB  6

#define AT_NULL         0
#define AT_SYSINFO_EHDR 33

/* The auxiliary vector follows the environment's NULL. */
static uint32_t sysinfo_ehdr(void)
{
    char **p = mini_environ;

    while (*p)
        p++;
    for (uint32_t *aux = (uint32_t *)(p + 1); aux[0] != AT_NULL; aux += 2)
        if (aux[0] == AT_SYSINFO_EHDR)
            return aux[1];
    return 0;
}

struct vdso_phdr { uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align; };
struct vdso_sym { uint32_t name, value, size; uint8_t info, other; uint16_t shndx; };

void *mini_vdso_sym(const char *name)
{
    const uint8_t *eh = (const uint8_t *)sysinfo_ehdr();
    const uint32_t *hash = 0, *dyn = 0;
    const struct vdso_sym *sym = 0;
    const char *str = 0;

    if (!eh || eh[0] != 0x7f || eh[1] != 'E' || eh[2] != 'L' || eh[3] != 'F')
        return 0;
    uint32_t phoff = *(const uint32_t *)(eh + 28);
    uint16_t phnum = *(const uint16_t *)(eh + 44);
    const struct vdso_phdr *ph = (const struct vdso_phdr *)(eh + phoff);
    for (uint16_t i = 0; i < phnum; i++)
        if (ph[i].type == PT_DYNAMIC)
            dyn = (const uint32_t *)ph[i].vaddr;
    for (; dyn && dyn[0] != DT_NULL; dyn += 2) {
        if (dyn[0] == DT_HASH)
            hash = (const uint32_t *)dyn[1];
        else if (dyn[0] == DT_SYMTAB)
            sym = (const struct vdso_sym *)dyn[1];
        else if (dyn[0] == DT_STRTAB)
            str = (const char *)dyn[1];
    }
    if (!hash || !sym || !str)
        return 0;
    for (uint32_t i = 1; i < hash[1]; i++)
        if (sym[i].shndx != 0 && !strcmp(str + sym[i].name, name))
            return (void *)sym[i].value;
    return 0;
}

/* __vdso_gettimeofday if the vDSO has it, else the system call. */
int gettimeofday(struct timeval *tv, void *tz)
{
    static int (*vgtod)(struct timeval *, void *);
    static int looked;

    if (!looked) {
        vgtod = (int (*)(struct timeval *, void *))mini_vdso_sym("__vdso_gettimeofday");
        looked = 1;
    }
    if (vgtod)
        return vgtod(tv, tz);
    return (int)syscall2(SYS_gettimeofday, tv, tz);
}
