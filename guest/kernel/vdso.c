/*
 * A minimal "vDSO": an ELF image in the second half of the vsyscall page,
 * which AT_SYSINFO_EHDR points at. Linux 2.5.53 had no such image (it came
 * with 2.5.74), but a static glibc uses AT_SYSINFO only when it also finds
 * AT_SYSINFO_EHDR; without it every glibc system call stays on int $0x80.
 *
 * The image describes itself and nothing more: one PT_LOAD covering it, one
 * PT_DYNAMIC with no entries but DT_NULL, so no symbols. libcs that look for
 * __vdso_clock_gettime and friends find none and make the system call.
 * e_entry is the system-call stub at the start of the page. It is linked
 * where it lies ("prelinked"), so every address in it is absolute.
 */
#include "kernel.h"
#include "elf.h"

struct vdso_image {
    struct elf_hdr eh;
    struct elf_phdr ph[2];
    struct elf_dyn dyn[1];
};

#define VDSO_SIZE  (PAGE_SIZE - VSYSCALL_EHDR_OFFSET)

_Static_assert(sizeof(struct vdso_image) <= VDSO_SIZE, "vDSO image too large");

void vdso_fill(void *where)
{
    static const uint8_t ident[16] = { 0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB,
                                       EV_CURRENT };
    struct vdso_image im;
    uint32_t dyn_off = __builtin_offsetof(struct vdso_image, dyn);

    memset(&im, 0, sizeof(im));
    memcpy(im.eh.ident, ident, sizeof(ident));
    im.eh.type = ET_DYN;
    im.eh.machine = EM_386;
    im.eh.version = EV_CURRENT;
    im.eh.entry = VSYSCALL_BASE;
    im.eh.phoff = sizeof(im.eh);
    im.eh.ehsize = sizeof(im.eh);
    im.eh.phentsize = sizeof(im.ph[0]);
    im.eh.phnum = 2;

    im.ph[0] = (struct elf_phdr){ PT_LOAD, 0, VSYSCALL_EHDR, VSYSCALL_EHDR,
                                    VDSO_SIZE, VDSO_SIZE, PF_R | PF_X, VDSO_SIZE };
    im.ph[1] = (struct elf_phdr){ PT_DYNAMIC, dyn_off, VSYSCALL_EHDR + dyn_off,
                                    VSYSCALL_EHDR + dyn_off, sizeof(im.dyn),
                                    sizeof(im.dyn), PF_R, 4 };
    /* im.dyn[0] is DT_NULL: zeroed above. */
    memcpy(where, &im, sizeof(im));
}
