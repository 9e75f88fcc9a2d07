/* Instruction cost classes: one per instruction form the instruction
 * tables give a figure for, where the system-call paths use that form.
 * Each CPU model charges a cycle cost per class; docs/cost-model.md gives
 * the source and the interval of every number, and the forms each class
 * covers (the third column here, in short). */
#ifndef EMU_COST_CLASSES_H
#define EMU_COST_CLASSES_H

#include "cost/centi.h"

#include <stdint.h>

#define COST_CLASSES(X) \
    X(ALU,        "alu",        "mov/add/sub/and/or/xor/cmp/test r,r|r,i; inc/dec/neg/not r; lea; movzx r,r; nop; setcc") \
    X(ALU16IMM,   "alu16imm",   "an ALU op with a 66h prefix and a 16-bit immediate (testw $i,%cx)") \
    X(SHIFT,      "shift",      "shl/shr/sar/rol/ror r,i|r,cl") \
    X(ADC,        "adc",        "adc/sbb r,r|r,i") \
    X(LOAD,       "load",       "mov r,m; movzx/movsx r,m; any other instruction only reading memory") \
    X(ALULOAD,    "aluload",    "add/sub/cmp/and/or/xor/test r,m|m,i (memory read, no write)") \
    X(ADCLOAD,    "adcload",    "adc/sbb r,m") \
    X(STORE,      "store",      "mov m,r; any other instruction only writing memory") \
    X(STOREIMM,   "storeimm",   "mov m,i") \
    X(RMW,        "rmw",        "add/sub/and/or/xor m,r|m,i; inc/dec/neg/not m: read-modify-write") \
    X(PUSH,       "push",       "push r|i; pusha") \
    X(PUSHMEM,    "pushmem",    "push m") \
    X(POP,        "pop",        "pop r; popa; leave") \
    X(PUSHSEG,    "pushseg",    "push sr") \
    X(SEGPOP,     "segpop",     "pop sr") \
    X(SEGLOAD,    "segload",    "mov sr,r|m") \
    X(FAR,        "far",        "far jmp/call/ret; lds/les/lfs/lgs/lss") \
    X(BRANCH,     "branch",     "jcc; jecxz; loop") \
    X(JMP,        "jmp",        "jmp rel") \
    X(CALL,       "call",       "call rel") \
    X(RET,        "ret",        "ret; ret i") \
    X(CALLMEM,    "callmem",    "call m (near, indirect through memory)") \
    X(CALLREG,    "callreg",    "call r") \
    X(JMPIND,     "jmpind",     "jmp r|m (near)") \
    X(MUL,        "mul",        "mul/imul r|m (one operand)") \
    X(IMUL,       "imul",       "imul r,r|r,m|r,r,i") \
    X(DIV,        "div",        "div/idiv") \
    X(STRING,     "string",     "movs/stos/lods/cmps/scas without rep") \
    X(REP_MOVS,   "rep_movs",   "rep movs: per element") \
    X(REP_MOVS_START, "rep_movs_start", "rep movs: once per execution") \
    X(REP_STOS,   "rep_stos",   "rep stos: per element") \
    X(REP_STOS_START, "rep_stos_start", "rep stos: once per execution") \
    X(REP_OTHER,  "rep_other",  "rep lods/cmps/scas/ins/outs: per element") \
    X(REP_OTHER_START, "rep_other_start", "rep lods/cmps/scas/ins/outs: once per execution") \
    X(PUSHF,      "pushf",      "pushf") \
    X(POPF,       "popf",       "popf") \
    X(CLI,        "cli",        "cli") \
    X(STI,        "sti",        "sti") \
    X(CLD,        "cld",        "cld; std") \
    X(LOCKED,     "locked",     "lock-prefixed ops; xchg r,m") \
    X(INT,        "int",        "int n through a gate to an inner ring") \
    X(INT_SAME,   "int_same",   "int n through a gate, same ring") \
    X(EXCEPTION,  "exception",  "fault delivery to ring 0 (#GP, #PF, ...)") \
    X(IRET,       "iret",       "iret to an outer ring") \
    X(SYSENTER,   "sysenter",   "sysenter") \
    X(SYSEXIT,    "sysexit",    "sysexit") \
    X(RDTSC,      "rdtsc",      "rdtsc") \
    X(CPUID,      "cpuid",      "cpuid") \
    X(RDMSR,      "rdmsr",      "rdmsr") \
    X(WRMSR,      "wrmsr",      "wrmsr") \
    X(IO,         "io",         "in/out/ins/outs (hypercall ports)") \
    X(SYSTEM,     "system",     "mov cr|dr; lgdt/lidt/ltr/lldt/invlpg/hlt/clts/wbinvd") \
    X(FPU,        "fpu",        "x87/MMX/SSE") \
    X(OTHER,      "other",      "anything else (ud2)")

enum insn_class {
#define X(id, name, what) CLASS_##id,
    COST_CLASSES(X)
#undef X
    NCLASSES
};

#endif
