/*
 * A tiny static i386 ELF executable built in memory, for the malformed-ELF
 * tests (tests/test_robustness.c) and the fuzz seeds (make_seeds.c):
 *
 *   0    ELF header, e_phoff = 52
 *   52   program header 0: PT_LOAD of the whole file at TINY_BASE, R+X
 *   84   program header 1: unused unless a test sets phnum = 2
 *   128  the code: exit(code) through int $0x80, a jump to itself, or
 *        what tiny_elf_set_code() puts there
 *
 * Tests change fields through tiny_eh() and tiny_ph() to make it bad.
 */
#ifndef TESTS_FUZZ_TINY_ELF_H
#define TESTS_FUZZ_TINY_ELF_H

#include <stdint.h>
#include <string.h>
#include "syscall_nr.h"
#include "../../guest/abi.h"

#define TINY_BASE     0x08048000u
#define TINY_PHOFF    52u
#define TINY_CODE     128u
#define TINY_MAX      4096u
#define TINY_PT_LOAD   1u
#define TINY_PT_INTERP 3u
#define TINY_PF_X      1u
#define TINY_PF_W      2u
#define TINY_PF_R      4u

struct tiny_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version, entry, phoff, shoff, flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct tiny_phdr {
    uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

struct tiny_elf {
    _Alignas(8) uint8_t bytes[TINY_MAX];
    uint32_t size;
};

_Static_assert(sizeof(struct tiny_ehdr) == 52, "ELF header layout");
_Static_assert(sizeof(struct tiny_phdr) == 32, "program header layout");

static inline struct tiny_ehdr *tiny_eh(struct tiny_elf *e)
{
    return (struct tiny_ehdr *)e->bytes;
}

static inline struct tiny_phdr *tiny_ph(struct tiny_elf *e, int i)
{
    return (struct tiny_phdr *)(e->bytes + TINY_PHOFF + 32u * (uint32_t)i);
}

/* exit(status) if loop is 0; a jump to itself (for the budget) if not. */
static inline void tiny_elf_init(struct tiny_elf *e, uint8_t status, int loop)
{
    static const uint8_t exit_code[12] = {
        0xb8, SYS_exit, 0, 0, 0,        /* mov $SYS_exit, %eax */
        0xbb, 0x00, 0x00, 0x00, 0x00,   /* mov $status, %ebx */
        0xcd, SYSCALL_VECTOR,           /* int $0x80 */
    };
    static const uint8_t loop_code[2] = { 0xeb, 0xfe };  /* jmp . */

    memset(e, 0, sizeof *e);
    if (loop) {
        memcpy(e->bytes + TINY_CODE, loop_code, sizeof loop_code);
        e->size = TINY_CODE + sizeof loop_code;
    } else {
        memcpy(e->bytes + TINY_CODE, exit_code, sizeof exit_code);
        e->bytes[TINY_CODE + 6] = status;
        e->size = TINY_CODE + sizeof exit_code;
    }

    struct tiny_ehdr *eh = tiny_eh(e);
    memcpy(eh->ident, "\177ELF\001\001\001", 7);   /* 32-bit, LSB, version 1 */
    eh->type = 2;                                   /* ET_EXEC */
    eh->machine = 3;                                /* EM_386 */
    eh->version = 1;
    eh->entry = TINY_BASE + TINY_CODE;
    eh->phoff = TINY_PHOFF;
    eh->ehsize = sizeof *eh;
    eh->phentsize = sizeof(struct tiny_phdr);
    eh->phnum = 1;

    struct tiny_phdr *ph = tiny_ph(e, 0);
    ph->type = TINY_PT_LOAD;
    ph->offset = 0;
    ph->vaddr = ph->paddr = TINY_BASE;
    ph->filesz = ph->memsz = e->size;
    ph->flags = TINY_PF_R | TINY_PF_X;
    ph->align = 0x1000;
}

/* Replace the code with len bytes of machine code. */
static inline void tiny_elf_set_code(struct tiny_elf *e, const uint8_t *code, uint32_t len)
{
    if (len > TINY_MAX - TINY_CODE)
        len = TINY_MAX - TINY_CODE;
    memcpy(e->bytes + TINY_CODE, code, len);
    e->size = TINY_CODE + len;
    tiny_ph(e, 0)->filesz = tiny_ph(e, 0)->memsz = e->size;
}

#endif
