/*
 * Cycle cost per instruction class, in centicycles (CENTI(cycles)).
 * Every row is sourced in docs/cost-model.md under the same name; read
 * that file before changing a number. Included by cpu_models.c only.
 */
#define COST_TABLE(name, alu, load, store, rmw, push, pop, branch, call, ret, indirect, \
                   mul, div, string, segload, pushf, popf, cli, sti, locked, int_, \
                   int_same, exception, iret, sysenter, sysexit, rdtsc, cpuid, rdmsr, \
                   wrmsr, io, system, fpu, other) \
static const uint32_t name[NCLASSES] = { \
    [CLASS_ALU] = CENTI(alu), [CLASS_LOAD] = CENTI(load), [CLASS_STORE] = CENTI(store), \
    [CLASS_RMW] = CENTI(rmw), [CLASS_PUSH] = CENTI(push), [CLASS_POP] = CENTI(pop), \
    [CLASS_BRANCH] = CENTI(branch), [CLASS_CALL] = CENTI(call), [CLASS_RET] = CENTI(ret), \
    [CLASS_INDIRECT] = CENTI(indirect), [CLASS_MUL] = CENTI(mul), [CLASS_DIV] = CENTI(div), \
    [CLASS_STRING] = CENTI(string), [CLASS_SEGLOAD] = CENTI(segload), \
    [CLASS_PUSHF] = CENTI(pushf), [CLASS_POPF] = CENTI(popf), [CLASS_CLI] = CENTI(cli), \
    [CLASS_STI] = CENTI(sti), [CLASS_LOCKED] = CENTI(locked), [CLASS_INT] = CENTI(int_), \
    [CLASS_INT_SAME] = CENTI(int_same), [CLASS_EXCEPTION] = CENTI(exception), \
    [CLASS_IRET] = CENTI(iret), [CLASS_SYSENTER] = CENTI(sysenter), \
    [CLASS_SYSEXIT] = CENTI(sysexit), [CLASS_RDTSC] = CENTI(rdtsc), \
    [CLASS_CPUID] = CENTI(cpuid), [CLASS_RDMSR] = CENTI(rdmsr), [CLASS_WRMSR] = CENTI(wrmsr), \
    [CLASS_IO] = CENTI(io), [CLASS_SYSTEM] = CENTI(system), [CLASS_FPU] = CENTI(fpu), \
    [CLASS_OTHER] = CENTI(other), \
}

/*                 alu  load store rmw push pop  br  call ret  ind  mul div str  seg pushf popf cli sti lock  int  int_s  exc   iret sysent sysex rdtsc cpuid rdmsr wrmsr io   sys  fpu other */
COST_TABLE(cost_pentium4,
                   0.5, 2,   1,    4,  1,   1.5, 1,  2,   2,   3,   14, 56, 2,   14, 10,   40,  26, 26, 104,  600, 600,   600,  500, 80,    60,   80,   572,  100,  100,  300, 100, 2,  1);
COST_TABLE(cost_pentium3,
                   1,   3,   1,    4,  1,   1,   1,  2,   2,   2,   4,  39, 2,   5,  6,    6,   3,  6,  18,   100, 100,   100,  80,  30,    30,   32,   138,  30,   30,   300, 20,  1,  1);
COST_TABLE(cost_pentiumpro,
                   1,   3,   1,    4,  1,   1,   1,  2,   2,   2,   4,  39, 2,   5,  6,    6,   3,  6,  18,   100, 100,   100,  80,  30,    30,   32,   138,  30,   30,   300, 20,  1,  1);
