/*
 * A minimal "vDSO": an ELF image in the second half of the vsyscall page,
 * which AT_SYSINFO_EHDR points at. Linux 2.5.53 had no such image (it came
 * with 2.5.74), but a static glibc uses AT_SYSINFO only when it also finds
 * AT_SYSINFO_EHDR; without it every glibc system call stays on int $0x80.
 *
 * Without --vgettimeofday the image describes itself and nothing more: one
 * PT_LOAD covering it, one PT_DYNAMIC with no entries but DT_NULL, so no
 * symbols; libcs that look for __vdso_clock_gettime and friends find none
 * and make the system call. With it, PT_DYNAMIC gives a symbol table with a
 * SysV hash table (DT_HASH: what glibc and musl both read), naming the
 * page's entry points; no symbol versions (a libc that asks for LINUX_2.6
 * accepts an unversioned symbol). e_entry is the system-call stub at the
 * start of the page. It is linked where it lies ("prelinked"): every
 * address in it is absolute, and the symbols, which lie below the image's
 * PT_LOAD, are SHN_ABS.
 */
#include "kernel.h"
#include "elf.h"
#include "variant.h"

/* 2.6.0's page is the image, from its first byte (KV_EHDR); before that it
 * is the page's second half. */
#define VDSO_SIZE  (PAGE_SIZE - (KV_EHDR - KV_VSYSCALL_BASE))

#define DT_NULL    0
#define DT_HASH    4
#define DT_STRTAB  5
#define DT_SYMTAB  6
#define DT_STRSZ   10
#define DT_SYMENT  11
#define DT_SONAME  14
#define SHN_ABS    0xfff1
#define STB_GLOBAL 1
#define STT_FUNC   2

struct elf_sym {
    uint32_t name, value, size;
    uint8_t info, other;
    uint16_t shndx;
};

static const struct { const char *name; uint32_t offset; } vdso_syms[] = {
    { "__kernel_vsyscall", KV_ENTRY_OFFSET },
    { "__kernel_sigreturn", KV_SIGRETURN_OFFSET },
    { "__kernel_rt_sigreturn", KV_RT_SIGRETURN_OFFSET },
    { "__vdso_gettimeofday", KV_GTOD_OFFSET },
    { "__vdso_clock_gettime", KV_CLOCK_GETTIME_OFFSET },
};
#define NSYMS   (1 + sizeof(vdso_syms) / sizeof(vdso_syms[0]))
#define NBUCKET 3
#define SONAME  "linux-gate.so.1"

struct vdso_image {
    struct elf_hdr eh;
    struct elf_phdr ph[2];
    struct elf_dyn dyn[7];
    uint32_t hash[2 + NBUCKET + NSYMS];
    struct elf_sym sym[NSYMS];
    char str[160];
};

_Static_assert(sizeof(struct elf_sym) == 16, "ELF symbol layout");
_Static_assert(sizeof(struct vdso_image) <= VDSO_SIZE, "vDSO image too large");
#if KHIST >= KHIST_260
_Static_assert(sizeof(struct vdso_image) <= KV_ENTRY_OFFSET, "vDSO image over its code");
/* 2.6.0's image always names its entry and sigreturn stubs (LINUX_2.5) */
#define ALWAYS_SYMS 3
#else
#define ALWAYS_SYMS 0
#endif

/* The SysV ELF hash of a symbol name (the gABI's DT_HASH function). */
static uint32_t elf_hash(const char *s)
{
    uint32_t h = 0, g;

    while (*s) {
        h = (h << 4) + (uint8_t)*s++;
        g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

#define AT(field) (KV_EHDR + __builtin_offsetof(struct vdso_image, field))

/* The symbols (the first nsyms - 1 of vdso_syms), their names and the
 * hash chains. */
static void vdso_symbols(struct vdso_image *im, uint32_t nsyms)
{
    uint32_t *bucket = im->hash + 2, *chain = im->hash + 2 + NBUCKET;
    uint32_t strsz = 1;

    im->hash[0] = NBUCKET;
    im->hash[1] = nsyms;
    memcpy(im->str + strsz, SONAME, sizeof(SONAME));
    strsz += sizeof(SONAME);
    for (uint32_t i = 1; i < nsyms; i++) {
        const char *name = vdso_syms[i - 1].name;
        uint32_t len = strlen(name) + 1;
        if (strsz + len > sizeof(im->str))
            panic("vDSO string table too small");
        im->sym[i] = (struct elf_sym){ strsz, KV_VSYSCALL_BASE + vdso_syms[i - 1].offset, 0,
                                       (STB_GLOBAL << 4) | STT_FUNC, 0, SHN_ABS };
        memcpy(im->str + strsz, name, len);
        strsz += len;
        uint32_t b = elf_hash(name) % NBUCKET;
        chain[i] = bucket[b];      /* pushed on the bucket's chain; 0 ends it */
        bucket[b] = i;
    }
    im->dyn[0] = (struct elf_dyn){ DT_HASH, AT(hash) };
    im->dyn[1] = (struct elf_dyn){ DT_STRTAB, AT(str) };
    im->dyn[2] = (struct elf_dyn){ DT_SYMTAB, AT(sym) };
    im->dyn[3] = (struct elf_dyn){ DT_STRSZ, strsz };
    im->dyn[4] = (struct elf_dyn){ DT_SYMENT, sizeof(struct elf_sym) };
    im->dyn[5] = (struct elf_dyn){ DT_SONAME, 1 };
    /* im->dyn[6] is DT_NULL */
}

void vdso_fill(void *where, int with_symbols)
{
    int full = with_symbols || ALWAYS_SYMS;
    static const uint8_t ident[16] = { 0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB,
                                       EV_CURRENT };
    static struct vdso_image im;   /* too big for the boot stack's comfort */
    uint32_t dyn_off = __builtin_offsetof(struct vdso_image, dyn);
    uint32_t dyn_size = full ? sizeof(im.dyn) : sizeof(im.dyn[0]);
    uint32_t size = full ? sizeof(im) : dyn_off + sizeof(im.dyn[0]);

    memset(&im, 0, size);
    memcpy(im.eh.ident, ident, sizeof(ident));
    im.eh.type = ET_DYN;
    im.eh.machine = EM_386;
    im.eh.version = EV_CURRENT;
    im.eh.entry = KV_VSYSCALL_ENTRY;
    im.eh.phoff = sizeof(im.eh);
    im.eh.ehsize = sizeof(im.eh);
    im.eh.phentsize = sizeof(im.ph[0]);
    im.eh.phnum = 2;

    im.ph[0] = (struct elf_phdr){ PT_LOAD, 0, KV_EHDR, KV_EHDR,
                                    VDSO_SIZE, VDSO_SIZE, PF_R | PF_X, VDSO_SIZE };
    im.ph[1] = (struct elf_phdr){ PT_DYNAMIC, dyn_off, KV_EHDR + dyn_off,
                                    KV_EHDR + dyn_off, dyn_size, dyn_size, PF_R, 4 };
    if (with_symbols)
        vdso_symbols(&im, NSYMS);
    else if (ALWAYS_SYMS)
        vdso_symbols(&im, 1 + ALWAYS_SYMS);
    memcpy(where, &im, size);
}
