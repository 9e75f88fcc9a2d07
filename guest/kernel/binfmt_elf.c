/*
 * Static i386 ELF executables: every check first (a bad file is ENOEXEC
 * and changes nothing), then the new image: each PT_LOAD segment a
 * private mapping of the file (its bss past the file's bytes zero, more
 * bss anonymous memory), a stack VMA with the argument strings, argc,
 * argv, envp and the auxiliary vector, the heap after the highest segment.
 * A dynamic executable (PT_INTERP) is ENOENT if its interpreter is not in
 * the tree, else ELIBBAD: dynamic linking is not supported.
 */
#include "kernel.h"
#include "variant.h"
#include "binfmt.h"
#include "elf.h"
#include "file.h"
#include "mm.h"
#include "sched.h"
#include "vfs.h"

#define ET_DYN_BIAS 0x56555000u  /* where static-pie programs are loaded */
#define MAX_PHNUM   256
#define MAX_LOADS   16
#define STACK_SIZE  (128 * 1024) /* the stack VMA to begin with; it grows to 8 MiB */
#define LOAD_LIMIT  (USER_STACK_TOP - USER_STACK_MAX)
#define MAX_AUXV    20
#define PLATFORM    "i686"

struct segment {
    uint32_t start, end;     /* user addresses, bias applied */
    uint32_t offset, filesz;
    uint32_t flags;
};

struct image {
    struct elf_hdr eh;
    struct elf_phdr *ph;     /* the program headers, in a kernel page or two */
    uint32_t ph_pages;
    uint32_t bias, entry;
    struct segment seg[MAX_LOADS];  /* sorted by start */
    int nseg;
    uint32_t phdr_addr;      /* the headers in user memory; 0 if no segment has them */
};

/* Fail with err, and say why for the boot program. */
static long refuse(struct binprm *b, long err, const char *why)
{
    b->reason = why;
    return err;
}

static long check_header(struct binprm *b, struct image *im)
{
    struct elf_hdr *eh = &im->eh;

    if (b->size > PROGRAM_MAX)
        return refuse(b, -EFBIG, "program file too large");
    if (b->head_len < sizeof(*eh) || memcmp(b->head, "\177ELF", 4) != 0)
        return refuse(b, -ENOEXEC, "not an ELF file");
    memcpy(eh, b->head, sizeof(*eh));
    if (eh->ident[EI_CLASS] != ELFCLASS32)
        return refuse(b, -ENOEXEC, "not a 32-bit ELF file");
    if (eh->ident[EI_DATA] != ELFDATA2LSB)
        return refuse(b, -ENOEXEC, "not a little-endian ELF file");
    if (eh->ident[EI_VERSION] != EV_CURRENT || eh->version != EV_CURRENT)
        return refuse(b, -ENOEXEC, "unsupported ELF version");
    if (eh->machine != EM_386)
        return refuse(b, -ENOEXEC, "not an i386 executable");
    if (eh->type != ET_EXEC && eh->type != ET_DYN) {
        static char why[48];
        snprintf(why, sizeof(why), "not an executable (ELF type %u)", eh->type);
        return refuse(b, -ENOEXEC, why);
    }
    if (eh->phentsize != sizeof(struct elf_phdr))
        return refuse(b, -ENOEXEC, "bad program header size");
    if (eh->phnum == 0 || eh->phnum > MAX_PHNUM)
        return refuse(b, -ENOEXEC, "bad program header count");
    if (eh->phoff > b->size || eh->phnum * sizeof(struct elf_phdr) > b->size - eh->phoff)
        return refuse(b, -ENOEXEC, "program headers outside the file");
    im->bias = eh->type == ET_DYN ? ET_DYN_BIAS : 0;
    if (eh->entry > 0xffffffffu - im->bias)
        return refuse(b, -ENOEXEC, "entry point outside the program");
    im->entry = eh->entry + im->bias;
    return 0;
}

static long read_phdrs(struct binprm *b, struct image *im)
{
    uint32_t len = im->eh.phnum * sizeof(struct elf_phdr), done = 0;

    im->ph_pages = PAGE_ALIGN(len) / PAGE_SIZE;
    im->ph = alloc_pages(im->ph_pages);
    if (!im->ph)
        return -ENOMEM;
    while (done < len) {
        long n = vfs_pread(b->file, (uint8_t *)im->ph + done, len - done, im->eh.phoff + done);
        if (n <= 0)
            return refuse(b, -ENOEXEC, "program headers outside the file");
        done += (uint32_t)n;
    }
    return 0;
}

static long add_segment(struct binprm *b, struct image *im, const struct elf_phdr *ph)
{
    struct segment s;
    int i;

    if (ph->filesz > ph->memsz)
        return refuse(b, -ENOEXEC, "segment file size exceeds its memory size");
    if (ph->offset > b->size || ph->filesz > b->size - ph->offset)
        return refuse(b, -ENOEXEC, "segment outside the file");
    if (ph->vaddr > 0xffffffffu - im->bias)
        return refuse(b, -ENOEXEC, "segment outside user space");
    s.start = ph->vaddr + im->bias;
    if (s.start < USER_SPACE_BASE || s.start > LOAD_LIMIT || ph->memsz > LOAD_LIMIT - s.start)
        return refuse(b, -ENOEXEC, "segment outside user space");
    if (ph->memsz == 0)
        return 0;
    if (im->nseg == MAX_LOADS)
        return refuse(b, -ENOEXEC, "too many loadable segments");
    s.end = s.start + ph->memsz;
    s.offset = ph->offset;
    s.filesz = ph->filesz;
    s.flags = ph->flags;
    for (i = im->nseg; i > 0 && im->seg[i - 1].start > s.start; i--)
        im->seg[i] = im->seg[i - 1];
    im->seg[i] = s;
    im->nseg++;
    return 0;
}

/* The loaded copy of the program headers, for AT_PHDR. */
static uint32_t find_phdrs(const struct image *im)
{
    uint32_t off = im->eh.phoff, len = im->eh.phnum * sizeof(struct elf_phdr);

    for (int i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if (off >= s->offset && off - s->offset <= s->filesz &&
            len <= s->filesz - (off - s->offset))
            return s->start + (off - s->offset);
    }
    return 0;
}

/* A dynamic executable: ENOENT without its interpreter, ELIBBAD with it. */
static long dynamic(struct binprm *b, const struct elf_phdr *ph)
{
    static char interp[HC_VFS_PATH_MAX];
    struct hc_stat st;
    long n;

    b->reason = "dynamically linked (PT_INTERP) programs are not supported";
    if (b->boot)
        return -ENOEXEC;
    if (ph->filesz < 2 || ph->filesz > sizeof(interp) || ph->offset > b->size ||
        ph->filesz > b->size - ph->offset)
        return -ENOEXEC;
    n = vfs_pread(b->file, interp, ph->filesz, ph->offset);
    if (n != (long)ph->filesz || interp[n - 1] != 0)
        return -ENOEXEC;
    if (vfs_stat(HC_VFS_ROOT, interp, (uint32_t)n - 1, 0, &st) < 0)
        return -ENOENT;
    printk("pid %u: %s: dynamic linking not supported (interpreter %s)", current->pid,
           b->filename, interp);
    return -ELIBBAD;
}

static long check_segments(struct binprm *b, struct image *im)
{
    long err;
    int i;

    for (i = 0; i < im->eh.phnum; i++)
        if (im->ph[i].type == PT_INTERP)
            return dynamic(b, &im->ph[i]);
    for (i = 0; i < im->eh.phnum; i++)
        if (im->ph[i].type == PT_LOAD && (err = add_segment(b, im, &im->ph[i])) != 0)
            return err;
    if (im->nseg == 0)
        return refuse(b, -ENOEXEC, "no loadable segments");
    /* Sorted by start, so checking neighbours covers every pair. Sharing a
     * page is fine; sharing bytes is not. */
    for (i = 1; i < im->nseg; i++)
        if (im->seg[i].start < im->seg[i - 1].end)
            return refuse(b, -ENOEXEC, "segments overlap");
    /* A file page is mapped at a page: its bytes keep their offset in it. */
    for (i = 0; i < im->nseg; i++)
        if (im->seg[i].filesz && (im->seg[i].start - im->seg[i].offset) % PAGE_SIZE)
            return refuse(b, -ENOEXEC, "segment not at its file offset modulo the page size");
    for (i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        if ((s->flags & PF_X) && im->entry >= s->start && im->entry < s->end)
            break;
    }
    if (i == im->nseg)
        return refuse(b, -ENOEXEC, "entry point outside the program");
    im->phdr_addr = find_phdrs(im);
    return 0;
}

static uint32_t vm_flags_of(uint32_t pf)
{
    return ((pf & (PF_R | PF_X)) ? VM_READ : 0) | ((pf & PF_W) ? VM_WRITE : 0) |
           ((pf & PF_X) ? VM_EXEC : 0) | VM_MAYWRITE;
}

/* Each segment a private mapping of the file; a later one takes over a
 * page it shares with an earlier one (the same file page, as the linker
 * lays them out), as MAP_FIXED does on Linux. */
static long map_segments(const struct image *im, uint32_t *brk)
{
    struct mm_struct *mm = current->mm;
    long err;

    *brk = 0;
    for (int i = 0; i < im->nseg; i++) {
        const struct segment *s = &im->seg[i];
        uint32_t start = PAGE_DOWN(s->start), file_top = PAGE_ALIGN(s->start + s->filesz);
        uint32_t top = PAGE_ALIGN(s->end), flags = vm_flags_of(s->flags);

        if (s->filesz && (err = map_region(mm, start, file_top - start, flags, mm->exe_file,
                                           PAGE_DOWN(s->offset), s->start + s->filesz)))
            return err;
        if (!s->filesz)
            file_top = start;
        if (top > file_top && (err = map_region(mm, file_top, top - file_top, flags, NO_FILE,
                                                0, 0)))
            return err;
        if (top > *brk)
            *brk = top;
    }
    return 0;
}

/* Copy n bytes just below *sp and return their user address. */
static long push_bytes(uint32_t *sp, const void *src, uint32_t n, uint32_t *at)
{
    *sp -= n;
    *at = *sp;
    return copy_to_user(*sp, src, n);
}

static uint32_t *push_strings(uint32_t *v, uint32_t base, const char *strings, uint32_t *off,
                              uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        *v++ = base + *off;
        *off += strlen(strings + *off) + 1;
    }
    *v++ = 0;
    return v;
}

static long setup_stack(struct binprm *b, struct image *im, uint32_t *stack)
{
    struct mm_struct *mm = current->mm;
    uint32_t phsize = im->eh.phnum * sizeof(struct elf_phdr), nptr = b->argc + b->envc;
    uint32_t bytes = b->cap - b->start, aux[2 * MAX_AUXV], naux = 0;
    uint32_t sp, strings, execfn, platform, random, off, *v, *vec, vec_pages, vec_len;
    long err;

    if (map_region(mm, USER_STACK_TOP - STACK_SIZE, STACK_SIZE,
                   VM_READ | VM_WRITE | VM_EXEC | VM_MAYWRITE | VM_GROWSDOWN, NO_FILE, 0, 0))
        return -ENOMEM;
    mm->start_stack = USER_STACK_TOP;
    /* Strings and blobs at the top, a few zero bytes above them. */
    sp = USER_STACK_TOP - 16;
    if (push_bytes(&sp, b->filename, b->filename_len + 1, &execfn) ||
        push_bytes(&sp, b->args + b->start, bytes, &strings) ||
        push_bytes(&sp, PLATFORM, sizeof(PLATFORM), &platform))
        return -EFAULT;
    sp &= ~15u;
    if (push_bytes(&sp, boot->random, sizeof(boot->random), &random))
        return -EFAULT;
    if (im->phdr_addr == 0) {
        /* No segment loads the headers: give the program a copy. */
        sp &= ~3u;
        if (push_bytes(&sp, im->ph, phsize, &im->phdr_addr))
            return -EFAULT;
    }

#define AUX(type, val) (aux[naux++] = (type), aux[naux++] = (val))
    if (vsyscall_entry) {
        AUX(AT_SYSINFO, vsyscall_entry);
        AUX(AT_SYSINFO_EHDR, KV_EHDR);
    }
    AUX(AT_HWCAP, boot_cpu.features);
    AUX(AT_PAGESZ, PAGE_SIZE);
    AUX(AT_CLKTCK, 100);
    AUX(AT_PHDR, im->phdr_addr);
    AUX(AT_PHENT, sizeof(struct elf_phdr));
    AUX(AT_PHNUM, im->eh.phnum);
    AUX(AT_BASE, 0);
    AUX(AT_ENTRY, im->entry);
    AUX(AT_UID, current->cred.uid);
    AUX(AT_EUID, current->cred.euid);
    AUX(AT_GID, current->cred.gid);
    AUX(AT_EGID, current->cred.egid);
    AUX(AT_SECURE, current->cred.uid != current->cred.euid ||
                   current->cred.gid != current->cred.egid);
    AUX(AT_RANDOM, random);
    AUX(AT_EXECFN, execfn);
    AUX(AT_PLATFORM, platform);
    AUX(AT_NULL, 0);
#undef AUX

    /* argc must end up 16-byte aligned; the vectors are built in kernel
     * pages and copied out at once. */
    vec_len = (3 + nptr) * 4 + naux * 4;
    sp = (sp - vec_len) & ~15u;
    vec_pages = PAGE_ALIGN(vec_len) / PAGE_SIZE;
    vec = alloc_pages(vec_pages);
    if (!vec)
        return -ENOMEM;
    v = vec;
    *v++ = b->argc;
    off = 0;
    v = push_strings(v, strings, b->args + b->start, &off, b->argc);
    v = push_strings(v, strings, b->args + b->start, &off, b->envc);
    memcpy(v, aux, naux * 4);
    err = copy_to_user(sp, vec, vec_len);
    free_pages(vec, vec_pages);
    *stack = sp;
    return err;
}

long load_elf(struct binprm *b)
{
    static struct image im;
    uint32_t brk, sp;
    long err;

    memset(&im, 0, sizeof(im));
    if ((err = check_header(b, &im)) != 0 || (err = read_phdrs(b, &im)) != 0 ||
        (err = check_segments(b, &im)) != 0)
        goto out;
    if ((err = flush_old_exec(b)) != 0)
        goto out;
    b->past_return = 1;
    if ((err = map_segments(&im, &brk)) != 0) {
        b->reason = "out of memory loading the program";
        goto out;
    }
    current->mm->brk_start = current->mm->brk = brk;
    if ((err = setup_stack(b, &im, &sp)) != 0) {
        b->reason = "out of memory for the stack";
        goto out;
    }
    start_thread(im.entry, sp);
out:
    if (im.ph)
        free_pages(im.ph, im.ph_pages);
    return err;
}
