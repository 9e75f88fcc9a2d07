/* Instruction cost classes. Each CPU model charges a cycle cost per class;
 * docs/cost-model.md gives the source of every number. */
#ifndef EMU_COST_CLASSES_H
#define EMU_COST_CLASSES_H

#include <stdint.h>

#define COST_CLASSES(X) \
    X(ALU,        "alu",        "register ALU, mov, lea, test/cmp, setcc, nop") \
    X(LOAD,       "load",       "instruction reading memory") \
    X(STORE,      "store",      "instruction writing memory") \
    X(RMW,        "rmw",        "read-modify-write of memory") \
    X(PUSH,       "push",       "push") \
    X(POP,        "pop",        "pop") \
    X(BRANCH,     "branch",     "jmp/jcc (direct)") \
    X(CALL,       "call",       "near call") \
    X(RET,        "ret",        "near ret") \
    X(INDIRECT,   "indirect",   "indirect jmp/call") \
    X(MUL,        "mul",        "integer multiply") \
    X(DIV,        "div",        "integer divide") \
    X(STRING,     "string",     "string op, per element (rep: per iteration)") \
    X(REP_START,  "rep_start",  "start-up of a rep string op, once per rep") \
    X(SEGLOAD,    "segload",    "mov to a segment register, far jmp/call/ret, lds...") \
    X(SEGPOP,     "segpop",     "pop to a segment register") \
    X(PUSHF,      "pushf",      "pushf") \
    X(POPF,       "popf",       "popf") \
    X(CLI,        "cli",        "cli") \
    X(STI,        "sti",        "sti") \
    X(LOCKED,     "locked",     "lock-prefixed or xchg with memory") \
    X(INT,        "int",        "int n through a gate with a privilege change") \
    X(INT_SAME,   "int_same",   "int n / exception through a gate, same ring") \
    X(EXCEPTION,  "exception",  "fault delivery to ring 0 (#GP, #PF, ...)") \
    X(IRET,       "iret",       "iret to an outer ring") \
    X(SYSENTER,   "sysenter",   "sysenter") \
    X(SYSEXIT,    "sysexit",    "sysexit") \
    X(RDTSC,      "rdtsc",      "rdtsc") \
    X(CPUID,      "cpuid",      "cpuid") \
    X(RDMSR,      "rdmsr",      "rdmsr") \
    X(WRMSR,      "wrmsr",      "wrmsr") \
    X(IO,         "io",         "in/out (hypercall ports)") \
    X(SYSTEM,     "system",     "mov cr/lgdt/lidt/ltr/invlpg/hlt ...") \
    X(FPU,        "fpu",        "x87/MMX/SSE") \
    X(OTHER,      "other",      "anything else")

enum insn_class {
#define X(id, name, what) CLASS_##id,
    COST_CLASSES(X)
#undef X
    NCLASSES
};

/* Costs are kept in hundredths of a cycle so half-cycle ALU ops add up. */
#define CENTI(cycles) ((uint32_t)((cycles) * 100.0 + 0.5))

/* Hundredths of a cycle back to cycles. */
static inline double centi_to_cycles(uint64_t centi)
{
    return (double)centi / 100.0;
}

#endif
