/*
 * Load the boot program, a statically linked i386 ELF executable that the
 * emulator placed in kernel memory, and build its initial stack as the
 * i386 SysV ABI describes it: argc, argv[], NULL, envp[], NULL, auxv.
 */
#include "kernel.h"
#include "elf.h"
#include "mm.h"
#include "sched.h"

#define ET_DYN_BIAS 0x56555000u  /* where static-pie programs are loaded */
#define MAX_PHNUM   256
#define MAX_LOADS   16
#define STACK_SIZE  (128 * 1024)
#define LOAD_LIMIT  (USER_STACK_TOP - USER_STACK_MAX)
#define MAX_AUXV    20
#define PLATFORM    "i686"

struct segment {
    uint32_t start, end;     /* user addresses, bias applied */
    uint32_t offset, filesz;
    uint32_t flags;
};

struct image {
    const uint8_t *file;
    uint32_t size;
    struct elf_hdr eh;
    uint32_t bias;
    uint32_t entry;
    struct segment seg[MAX_LOADS];  /* sorted by start */
    int nseg;
    uint32_t phdr_addr;      /* the headers in user memory; 0 if not loaded */
};

struct args {
    const char *strings;     /* argv strings, then envp strings */
    uint32_t size;           /* bytes those strings use */
    uint32_t argc, envc;
};

static void read_phdr(const struct image *im, int i, struct elf_phdr *ph)
{
    memcpy(ph, im->file + im->eh.phoff + i * sizeof(*ph), sizeof(*ph));
}

static void check_header(struct image *im)
{
    struct elf_hdr *eh = &im->eh;

    im->file = (const uint8_t *)boot->image_addr;
    im->size = boot->image_size;
    if (im->size > FILE_AREA_MAX)
        exec_failed(EFBIG, "program file too large");
    if (im->size < sizeof(*eh) || memcmp(im->file, "\177ELF", 4) != 0)
        exec_failed(ENOEXEC, "not an ELF file");
    memcpy(eh, im->file, sizeof(*eh));

    if (eh->ident[EI_CLASS] != ELFCLASS32)
        exec_failed(ENOEXEC, "not a 32-bit ELF file");
    if (eh->ident[EI_DATA] != ELFDATA2LSB)
        exec_failed(ENOEXEC, "not a little-endian ELF file");
    if (eh->ident[EI_VERSION] != EV_CURRENT || eh->version != EV_CURRENT)
        exec_failed(ENOEXEC, "unsupported ELF version");
    if (eh->machine != EM_386)
        exec_failed(ENOEXEC, "not an i386 executable");
    if (eh->type != ET_EXEC && eh->type != ET_DYN)
        exec_failed(ENOEXEC, "not an executable (ELF type %u)", eh->type);
    if (eh->phentsize != sizeof(struct elf_phdr))
        exec_failed(ENOEXEC, "bad program header size");
    if (eh->phnum == 0 || eh->phnum > MAX_PHNUM)
        exec_failed(ENOEXEC, "bad program header count");
    if (eh->phoff > im->size ||
        eh->phnum * sizeof(struct elf_phdr) > im->size - eh->phoff)
        exec_failed(ENOEXEC, "program headers outside the file");

    im->bias = eh->type == ET_DYN ? ET_DYN_BIAS : 0;
    if (eh->entry > 0xffffffffu - im->bias)
        exec_failed(ENOEXEC, "entry point outside the program");
    im->entry = eh->entry + im->bias;
}

static void add_segment(struct image *im, const struct elf_phdr *ph)
{
    struct segment s;
    int i;

    if (ph->filesz > ph->memsz)
        exec_failed(ENOEXEC, "segment file size exceeds its memory size");
    if (ph->offset > im->size || ph->filesz > im->size - ph->offset)
        exec_failed(ENOEXEC, "segment outside the file");
    if (ph->vaddr > 0xffffffffu - im->bias)
        exec_failed(ENOEXEC, "segment outside user space");
    s.start = ph->vaddr + im->bias;
    if (s.start < USER_SPACE_BASE || s.start > LOAD_LIMIT ||
        ph->memsz > LOAD_LIMIT - s.start)
        exec_failed(ENOEXEC, "segment outside user space");
    if (ph->memsz == 0)
        return;
    if (im->nseg == MAX_LOADS)
        exec_failed(ENOEXEC, "too many loadable segments");

    s.end = s.start + ph->memsz;
    s.offset = ph->offset;
    s.filesz = ph->filesz;
    s.flags = ph->flags;
    for (i = im->nseg; i > 0 && im->seg[i - 1].start > s.start; i--)
        im->seg[i] = im->seg[i - 1];
    im->seg[i] = s;
    im->nseg++;
}

/* Find the loaded copy of the program headers, for AT_PHDR. */
static uint32_t find_phdrs(const struct image *im)
{
    uint32_t off = im->eh.phoff;
    uint32_t len = im->eh.phnum * sizeof(struct elf_phdr);

    for (int i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if (off >= s->offset && off - s->offset <= s->filesz &&
            len <= s->filesz - (off - s->offset))
            return s->start + (off - s->offset);
    }
    return 0;
}

static void check_segments(struct image *im)
{
    struct elf_phdr ph;
    int i;

    /* First, so that a dynamic program always gets this message. */
    for (i = 0; i < im->eh.phnum; i++) {
        read_phdr(im, i, &ph);
        if (ph.type == PT_INTERP)
            exec_failed(ENOEXEC,
                        "dynamically linked (PT_INTERP) programs are not supported");
    }

    im->nseg = 0;
    for (i = 0; i < im->eh.phnum; i++) {
        read_phdr(im, i, &ph);
        if (ph.type == PT_LOAD)
            add_segment(im, &ph);
    }
    if (im->nseg == 0)
        exec_failed(ENOEXEC, "no loadable segments");

    /* Sorted by start, so checking neighbours covers every pair. Sharing a
     * page is fine; sharing bytes is not. */
    for (i = 1; i < im->nseg; i++)
        if (im->seg[i].start < im->seg[i - 1].end)
            exec_failed(ENOEXEC, "segments overlap");

    for (i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if ((s->flags & PF_X) && im->entry >= s->start && im->entry < s->end)
            break;
    }
    if (i == im->nseg)
        exec_failed(ENOEXEC, "entry point outside the program");

    im->phdr_addr = find_phdrs(im);
}

static int page_writable(const struct image *im, uint32_t page)
{
    for (int i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if ((s->flags & PF_W) && PAGE_DOWN(s->start) <= page &&
            page < PAGE_ALIGN(s->end))
            return 1;
    }
    return 0;
}

static uint32_t seg_prot(uint32_t pf)
{
    return ((pf & PF_R) ? 1 : 0) | ((pf & PF_W) ? 2 : 0) | ((pf & PF_X) ? 4 : 0);
}

static void load_segments(const struct image *im)
{
    struct mm_struct *mm = current->mm;
    uint32_t mapped = 0;  /* end of what earlier segments mapped */
    int i;

    /* Map every page once, even a page two segments share, writable while
     * the bytes are copied in; the pages come zeroed on first touch. */
    for (i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        uint32_t start = PAGE_DOWN(s->start), end = PAGE_ALIGN(s->end);

        if (start < mapped)
            start = mapped;
        if (end > start && map_region(mm, start, end - start,
                                      VM_READ | VM_WRITE | VM_EXEC | VM_MAYWRITE,
                                      NO_FILE, 0, 0))
            exec_failed(ENOMEM, "out of memory loading the program");
        if (end > mapped)
            mapped = end;
    }
    for (i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if (copy_to_user(s->start, im->file + s->offset, s->filesz) != 0)
            exec_failed(ENOMEM, "out of memory loading the program");
    }

    /* A page shared with a writable segment stays writable. Since segments
     * do not overlap in bytes, only a segment's first and last page can be
     * shared. */
    for (i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        uint32_t start = PAGE_DOWN(s->start), end = PAGE_ALIGN(s->end);

        if (s->flags & PF_W)
            continue;
        if (page_writable(im, start))
            start += PAGE_SIZE;
        if (end > start && page_writable(im, end - PAGE_SIZE))
            end -= PAGE_SIZE;
        if (end > start && sys_mprotect(start, end - start, seg_prot(s->flags), 0, 0, 0))
            panic("exec: cannot write-protect %08x-%08x", start, end);
    }
}

static void check_args(struct args *a)
{
    uint32_t size = boot->args_size, off = 0;

    a->strings = (const char *)boot->args_addr;
    a->argc = boot->argc;
    a->envc = boot->envc;
    if (size > BOOT_ARGS_MAX)
        exec_failed(E2BIG, "argument strings too large");
    /* Every string takes at least its NUL. */
    if (a->argc > size || a->envc > size - a->argc)
        exec_failed(E2BIG, "more arguments than argument strings");
    for (uint32_t i = 0; i < a->argc + a->envc; i++) {
        uint32_t left = size - off;
        uint32_t len = strnlen(a->strings + off, left);
        if (len == left)
            exec_failed(E2BIG, "argument strings not NUL-terminated");
        off += len + 1;
    }
    a->size = off;
}

/* Copy n bytes just below *sp and return their user address. */
static uint32_t push_bytes(uint32_t *sp, const void *src, uint32_t n)
{
    *sp -= n;
    if (copy_to_user(*sp, src, n) != 0)
        exec_failed(ENOMEM, "out of memory for the stack");
    return *sp;
}

static uint32_t *push_strings(uint32_t *v, uint32_t base, const char *strings,
                              uint32_t *off, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        *v++ = base + *off;
        *off += strlen(strings + *off) + 1;
    }
    *v++ = 0;
    return v;
}

static void setup_stack(struct image *im, const struct args *a, struct exec_result *res)
{
    uint32_t phsize = im->eh.phnum * sizeof(struct elf_phdr);
    uint32_t nptr = a->argc + a->envc;
    uint32_t aux[2 * MAX_AUXV], naux = 0;
    uint32_t need, size, sp, strings, platform, random, off, *v, *vec, vec_pages;

    need = 16 + a->size + sizeof(PLATFORM) + 16 + 16 + phsize + 4 +
           (3 + nptr + 2 * MAX_AUXV) * 4 + 16;
    size = STACK_SIZE + PAGE_ALIGN(need);
    if (size > USER_STACK_MAX)
        exec_failed(E2BIG, "argument list too long");
    if (map_region(current->mm, USER_STACK_TOP - size, size,
                   VM_READ | VM_WRITE | VM_EXEC | VM_MAYWRITE | VM_GROWSDOWN,
                   NO_FILE, 0, 0))
        exec_failed(ENOMEM, "out of memory for the stack");
    current->mm->start_stack = USER_STACK_TOP;

    /* Strings and blobs at the top, a few zero bytes above them. */
    sp = USER_STACK_TOP - 16;
    strings = push_bytes(&sp, a->strings, a->size);
    platform = push_bytes(&sp, PLATFORM, sizeof(PLATFORM));
    sp &= ~15u;
    random = push_bytes(&sp, boot->random, sizeof(boot->random));
    if (im->phdr_addr == 0) {
        /* No segment loads the headers: give the program a copy. */
        sp &= ~3u;
        im->phdr_addr = push_bytes(&sp, im->file + im->eh.phoff, phsize);
    }

#define AUX(type, val) (aux[naux++] = (type), aux[naux++] = (val))
    if (vsyscall_entry) {
        AUX(AT_SYSINFO, vsyscall_entry);
        AUX(AT_SYSINFO_EHDR, VSYSCALL_EHDR);
    }
    AUX(AT_HWCAP, boot_cpu.features);
    AUX(AT_PAGESZ, PAGE_SIZE);
    AUX(AT_CLKTCK, 100);
    AUX(AT_PHDR, im->phdr_addr);
    AUX(AT_PHENT, sizeof(struct elf_phdr));
    AUX(AT_PHNUM, im->eh.phnum);
    AUX(AT_BASE, 0);
    AUX(AT_ENTRY, im->entry);
    AUX(AT_UID, 0);
    AUX(AT_EUID, 0);
    AUX(AT_GID, 0);
    AUX(AT_EGID, 0);
    AUX(AT_SECURE, 0);
    AUX(AT_RANDOM, random);
    if (a->argc > 0)
        AUX(AT_EXECFN, strings);
    AUX(AT_PLATFORM, platform);
    AUX(AT_NULL, 0);
#undef AUX

    /* argc must end up 16-byte aligned; the vectors are built in kernel
     * memory (the argument area is free again) and copied out at once. */
    sp = (sp - (3 + nptr) * 4 - naux * 4) & ~15u;
    vec_pages = PAGE_ALIGN((3 + nptr) * 4 + naux * 4) / PAGE_SIZE;
    vec = alloc_pages(vec_pages);
    if (!vec)
        exec_failed(ENOMEM, "out of kernel memory for the argument vectors");
    v = vec;
    *v++ = a->argc;
    off = 0;
    v = push_strings(v, strings, a->strings, &off, a->argc);
    v = push_strings(v, strings, a->strings, &off, a->envc);
    memcpy(v, aux, naux * 4);
    if (copy_to_user(sp, vec, (3 + nptr) * 4 + naux * 4) != 0)
        exec_failed(ENOMEM, "out of memory for the stack");
    free_pages(vec, vec_pages);
    res->stack = sp;
}

void exec_boot_program(struct exec_result *res)
{
    struct image im;
    struct args a;

    check_header(&im);
    check_segments(&im);
    check_args(&a);
    load_segments(&im);
    setup_stack(&im, &a, res);

    res->entry = im.entry;
    res->brk = PAGE_ALIGN(im.seg[im.nseg - 1].end);
}
