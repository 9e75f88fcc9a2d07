/* Shared helpers for the tests: running emu, and a bare machine with a
 * hand-built GDT/IDT/TSS for testing the CPU model without the kernel. */
#ifndef TESTS_SUPPORT_H
#define TESTS_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <check.h>
#include "../emu/machine.h"
#include "../emu/run.h"
#include "../emu/syscalls.h"

struct emu_result {
    int status;   /* exit status, or 128+signal if emu itself died */
    char *out;
    char *err;
};

/* Run one Check suite and return the process exit status. */
int run_suite(Suite *s);

/* Run build/emu/emu with argv (NULL-terminated, without argv[0]). */
void run_emu(struct emu_result *r, const char *const *args);
void emu_result_free(struct emu_result *r);
/* run_emu with the arguments as a NULL-terminated list */
void emu(struct emu_result *r, ...);
int count_char(const char *s, char c);
/* A copy of the first line of text that contains needle, or NULL. */
char *line_with(const char *text, const char *needle);
/* The value after key in text, in hex; -1 if absent. */
long hex_after(const char *text, const char *key);
const char *program(const char *name);   /* path of a built guest program */
char *read_file(const char *path);
bool json_valid(const char *text);
int count_lines_containing(const char *text, const char *needle);

/*
 * A bare machine: the patch's GDT at BARE_GDT, an IDT at BARE_IDT whose
 * every vector points at BARE_HANDLER + 16*vector (each an "hlt"), a TSS
 * with esp0 = BARE_KSTACK, paging off. Code is placed by the test.
 */
#define BARE_GDT     0xc0010000u
#define BARE_IDT     0xc0011000u
#define BARE_TSS     0xc0012000u
#define BARE_HANDLER 0xc0020000u
#define BARE_KSTACK  0xc0040000u
#define BARE_UCODE   0x08048000u
#define BARE_USTACK  0x08100000u

struct bare {
    struct machine m;
    struct run_options opts;
    struct syscall_tracker sys;   /* attached: no kernel, so no phases */
};

void bare_init(struct bare *b, const char *cpu_spec);
void bare_destroy(struct bare *b);
void bare_set_gate(struct bare *b, int vector, int type, int dpl);
void bare_write(struct bare *b, uint32_t addr, const void *bytes, size_t n);
/* Start at ring 3 (user CS/SS) or ring 0 at eip; runs until hlt. */
void bare_run(struct bare *b, uint32_t eip, bool user);
uint32_t bare_reg(struct bare *b, int reg);
uint32_t bare_u32(struct bare *b, uint32_t addr);
/* The vector whose handler halted the machine, or -1. */
int bare_halted_vector(struct bare *b);

#endif
