/*
 * Reading a 32-bit ELF file held in memory: the kernel images built into
 * emu, a program read from disk, a fuzz input. Every header, symbol and
 * section is copied out (nothing aligns a file read into a buffer) and
 * every range is checked against the file's size, so a malformed file
 * gives false or NULL, never a read outside it.
 */
#ifndef EMU_ELF32_H
#define EMU_ELF32_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf32 {
    const uint8_t *image;
    size_t size;
    Elf32_Ehdr eh;
};

/* The ELF magic and a 32-bit class; false otherwise. The machine is the
 * caller's to check (eh.e_machine). */
bool elf32_open(struct elf32 *f, const uint8_t *image, size_t size);
bool elf32_in_file(const struct elf32 *f, uint64_t off, uint64_t len);
/* Header i of the section or program header table; false if out of it. */
bool elf32_section(const struct elf32 *f, uint32_t i, Elf32_Shdr *sh);
bool elf32_segment(const struct elf32 *f, uint32_t i, Elf32_Phdr *ph);
/* A section's bytes: NULL for SHT_NOBITS, a compressed section, or one
 * that is not all inside the file. */
const uint8_t *elf32_section_data(const struct elf32 *f, const Elf32_Shdr *sh);
/* The section called name: 1 found, 0 none, -1 the names are unreadable. */
int elf32_section_named(const struct elf32 *f, const char *name, Elf32_Shdr *sh);
/* The first symbol table and its string table, both inside the file. */
bool elf32_symtab(const struct elf32 *f, Elf32_Shdr *syms, Elf32_Shdr *strs);
bool elf32_symbol(const struct elf32 *f, const Elf32_Shdr *syms, uint32_t j, Elf32_Sym *sym);
/* The NUL-ended string at off in a string table, or NULL. */
const char *elf32_string(const struct elf32 *f, const Elf32_Shdr *strs, uint32_t off);

#endif
