/*
 * The cost rows of each CPU table: the cycles charged per instruction of a
 * class, with the interval its source allows. docs/cost-model.md states the
 * rules first (which column of an instruction table is charged, how a
 * printed range becomes an interval, how a figure is derived from µops,
 * how estimates are made) and then gives every row's source cell; the row
 * names there are "P4 <class>" and "P6 <class>". Included by cost_model.c.
 *
 * Rule R (the best case): a row's cost is the low end of its interval
 * (the machine is a best case throughout: every access hits, every branch
 * is predicted), except where a published measurement or an estimate's
 * rule gives a central value of its own.
 */

struct cost_row {
    double cost, low, high;  /* cycles */
    uint8_t kind;
    uint8_t tie;             /* ROW_TIED: the class whose value this takes */
};

#define TABLE(c)             { (c), (c), (c), ROW_TABLE, 0 }
#define TABLE_RANGE(lo, hi)  { (lo), (lo), (hi), ROW_TABLE, 0 }
#define MEASURED(c)          { (c), (c), (c), ROW_MEASURED, 0 }
#define UOPS(lo, hi)         { (lo), (lo), (hi), ROW_UOPS, 0 }
#define ESTIMATE(c, lo, hi)  { (c), (lo), (hi), ROW_ESTIMATE, 0 }
#define CALIBRATED           { 0, 0, 0, ROW_CALIBRATED, 0 }
#define TIED(cls)            { 0, 0, 0, ROW_TIED, (cls) }

/* Pentium 4 (Northwood): Agner Fog's "Intel Pentium 4" sheet. */
static const struct cost_row rows_pentium4[NCLASSES] = {
    [CLASS_ALU]       = TABLE(0.5),
    [CLASS_ALU16IMM]  = TABLE(0.5),
    [CLASS_SHIFT]     = TABLE(4),
    [CLASS_ADC]       = TABLE(6),
    [CLASS_LOAD]      = TABLE(2),
    [CLASS_ALULOAD]   = TABLE_RANGE(1, 2),
    [CLASS_ADCLOAD]   = TABLE(8),
    [CLASS_STORE]     = TABLE(1),
    [CLASS_STOREIMM]  = TABLE(2),
    [CLASS_RMW]       = TABLE_RANGE(8, 16),
    [CLASS_PUSH]      = TABLE(1),
    [CLASS_PUSHMEM]   = TABLE(2),
    [CLASS_POP]       = TABLE(1),
    [CLASS_PUSHSEG]   = TABLE(7),
    [CLASS_SEGPOP]    = TABLE(13),
    [CLASS_SEGLOAD]   = TABLE(24),
    [CLASS_FAR]       = TABLE(118),
    [CLASS_BRANCH]    = TABLE_RANGE(2, 4),
    [CLASS_JMP]       = TABLE(1),
    [CLASS_CALL]      = TABLE(2),
    [CLASS_RET]       = TABLE(2),
    [CLASS_CALLMEM]   = TABLE(9),
    [CLASS_CALLREG]   = TABLE(8),
    [CLASS_JMPIND]    = TABLE(4),
    [CLASS_MUL]       = TABLE(16),
    [CLASS_IMUL]      = TABLE(14),
    [CLASS_DIV]       = TABLE(50),
    [CLASS_STRING]    = TABLE(6),
    [CLASS_REP_MOVS]  = UOPS(1.1 / 3, 1.1),
    [CLASS_REP_MOVS_START] = UOPS(167.0 / 3, 167),
    [CLASS_REP_STOS]  = TABLE(3),
    [CLASS_REP_STOS_START] = TABLE(10),
    [CLASS_REP_OTHER] = TABLE(4),
    [CLASS_REP_OTHER_START] = TABLE(36),
    [CLASS_PUSHF]     = TABLE(10),
    [CLASS_POPF]      = TABLE(52),
    [CLASS_CLI]       = TABLE(35),
    [CLASS_STI]       = TABLE(43),
    [CLASS_CLD]       = TABLE(52),
    [CLASS_LOCKED]    = TABLE_RANGE(100, 200),
    [CLASS_INT]       = TABLE(644),
    [CLASS_INT_SAME]  = TABLE(644),
    [CLASS_EXCEPTION] = TIED(CLASS_INT),
    [CLASS_IRET]      = CALIBRATED,
    [CLASS_SYSENTER]  = CALIBRATED,
    [CLASS_SYSEXIT]   = CALIBRATED,
    [CLASS_RDTSC]     = TABLE(80),
    [CLASS_CPUID]     = TABLE_RANGE(200, 500),
    [CLASS_RDMSR]     = ESTIMATE(200, 100, 400),
    [CLASS_WRMSR]     = ESTIMATE(200, 100, 400),
    [CLASS_IO]        = TABLE_RANGE(1000, 2000),
    [CLASS_SYSTEM]    = ESTIMATE(118, 59, 236),
    [CLASS_FPU]       = TABLE(5),
    [CLASS_OTHER]     = ESTIMATE(1, 0.5, 2),
};

/* The P6 core: Pentium Pro, Pentium II and Pentium III share one table
 * (Agner Fog's "Intel Pentium II and Pentium III" sheet, Intel's P6
 * optimization manual for the execution units' latencies). */
static const struct cost_row rows_p6[NCLASSES] = {
    [CLASS_ALU]       = TABLE(1),
    [CLASS_ALU16IMM]  = ESTIMATE(3, 3, 5),
    [CLASS_SHIFT]     = TABLE(1),
    [CLASS_ADC]       = UOPS(1, 2),
    [CLASS_LOAD]      = TABLE(3),
    [CLASS_ALULOAD]   = UOPS(1, 2),
    [CLASS_ADCLOAD]   = UOPS(1, 3),
    [CLASS_STORE]     = UOPS(1, 2),
    [CLASS_STOREIMM]  = UOPS(1, 2),
    [CLASS_RMW]       = UOPS(1, 4),
    [CLASS_PUSH]      = UOPS(1, 3),
    [CLASS_PUSHMEM]   = UOPS(1, 4),
    [CLASS_POP]       = UOPS(1, 2),
    [CLASS_PUSHSEG]   = UOPS(1, 4),
    [CLASS_SEGPOP]    = UOPS(4, 9),
    [CLASS_SEGLOAD]   = TABLE(5),
    [CLASS_FAR]       = UOPS(21, 22),
    [CLASS_BRANCH]    = TABLE(2),
    [CLASS_JMP]       = TABLE(2),
    [CLASS_CALL]      = TABLE(2),
    [CLASS_RET]       = TABLE(2),
    [CLASS_CALLMEM]   = TABLE(2),
    [CLASS_CALLREG]   = TABLE(2),
    [CLASS_JMPIND]    = TABLE(2),
    [CLASS_MUL]       = ESTIMATE(4, 4, 5),
    [CLASS_IMUL]      = TABLE(4),
    [CLASS_DIV]       = TABLE(39),
    [CLASS_STRING]    = UOPS(3, 6),
    [CLASS_REP_MOVS]  = UOPS(2, 6),
    [CLASS_REP_MOVS_START] = ESTIMATE(0, 0, 12),
    [CLASS_REP_STOS]  = UOPS(5.0 / 3, 5),
    [CLASS_REP_STOS_START] = ESTIMATE(0, 0, 12),
    [CLASS_REP_OTHER] = UOPS(2, 6),
    [CLASS_REP_OTHER_START] = UOPS(10.0 / 3, 10),
    [CLASS_PUSHF]     = UOPS(7, 16),
    [CLASS_POPF]      = UOPS(10, 17),
    [CLASS_CLI]       = UOPS(9, 9),
    [CLASS_STI]       = UOPS(17, 17),
    [CLASS_CLD]       = UOPS(2, 4),
    [CLASS_LOCKED]    = MEASURED(18),
    [CLASS_INT]       = CALIBRATED,
    [CLASS_INT_SAME]  = TIED(CLASS_INT),
    [CLASS_EXCEPTION] = TIED(CLASS_INT),
    [CLASS_IRET]      = CALIBRATED,
    [CLASS_SYSENTER]  = CALIBRATED,
    [CLASS_SYSEXIT]   = CALIBRATED,
    [CLASS_RDTSC]     = MEASURED(32),
    [CLASS_CPUID]     = MEASURED(138),
    [CLASS_RDMSR]     = ESTIMATE(138, 69, 276),
    [CLASS_WRMSR]     = ESTIMATE(138, 69, 276),
    [CLASS_IO]        = TABLE_RANGE(300, 600),
    [CLASS_SYSTEM]    = ESTIMATE(21, 10.5, 42),
    [CLASS_FPU]       = TABLE(3),
    [CLASS_OTHER]     = ESTIMATE(1, 0.5, 2),
};
