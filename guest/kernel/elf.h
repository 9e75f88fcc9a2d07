/* The 32-bit ELF layout the kernel reads (exec.c) and writes (vdso.c). */
#ifndef KERNEL_ELF_H
#define KERNEL_ELF_H

#include <stdint.h>

struct elf_hdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version, entry, phoff, shoff, flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf_phdr {
    uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

struct elf_dyn {
    uint32_t tag, val;
};

_Static_assert(sizeof(struct elf_hdr) == 52, "ELF header layout");
_Static_assert(sizeof(struct elf_phdr) == 32, "ELF program header layout");

#define EI_CLASS    4
#define EI_DATA     5
#define EI_VERSION  6
#define ELFCLASS32  1
#define ELFDATA2LSB 1
#define EV_CURRENT  1
#define ET_EXEC     2
#define ET_DYN      3
#define EM_386      3
#define PT_LOAD     1
#define PT_DYNAMIC  2
#define PT_INTERP   3
#define PF_X        1
#define PF_W        2
#define PF_R        4

#endif
