/*
 * The cost rows of each CPU table: the cycles charged per instruction of a
 * class, with the interval its source allows. docs/cost-model.md states the
 * rules first (which column of an instruction table is charged, how a
 * printed range becomes an interval, how a figure is derived from µops,
 * how estimates are made) and then gives every row's source cell; the row
 * names there are "P4 <class>", "P6 <class>", "K7 <class>" and "PM <class>".
 * Included by cost_model.c.
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
    const char *src;         /* the cell or rule, in short (the K7 and PM
                                tables; docs/cost-model.md has all of them) */
};

#define TABLE(c)             { (c), (c), (c), ROW_TABLE, 0, NULL }
#define TABLE_RANGE(lo, hi)  { (lo), (lo), (hi), ROW_TABLE, 0, NULL }
#define MEASURED(c)          { (c), (c), (c), ROW_MEASURED, 0, NULL }
#define UOPS(lo, hi)         { (lo), (lo), (hi), ROW_UOPS, 0, NULL }
#define ESTIMATE(c, lo, hi)  { (c), (lo), (hi), ROW_ESTIMATE, 0, NULL }
#define CALIBRATED           { 0, 0, 0, ROW_CALIBRATED, 0, NULL }
#define TIED(cls)            { 0, 0, 0, ROW_TIED, (cls), NULL }
/* The same with the source, as emu --list-costs prints it. */
#define TABLE_S(c, s)            { (c), (c), (c), ROW_TABLE, 0, (s) }
#define TABLE_RANGE_S(lo, hi, s) { (lo), (lo), (hi), ROW_TABLE, 0, (s) }
#define MEASURED_S(c, s)         { (c), (c), (c), ROW_MEASURED, 0, (s) }
#define UOPS_S(lo, hi, s)        { (lo), (lo), (hi), ROW_UOPS, 0, (s) }
#define ESTIMATE_S(c, lo, hi, s) { (c), (lo), (hi), ROW_ESTIMATE, 0, (s) }
#define TIED_S(cls, s)           { 0, 0, 0, ROW_TIED, (cls), (s) }

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

/*
 * AMD K7 (Athlon XP, Palomino): Agner Fog's "AMD K7" sheet (AF-K7), measured
 * on a family 6 model 6 stepping 2 part, the part this model is. No row
 * is calibrated: the crossings the sheet prints only in real mode, or not
 * at all, come from rule N (docs/cost-model.md), written before them.
 */
static const struct cost_row rows_k7[NCLASSES] = {
    [CLASS_ALU]       = TABLE_S(1, "AF-K7 MOV r,r; ADD, AND, CMP, TEST r,r: latency 1"),
    [CLASS_ALU16IMM]  = TABLE_S(1, "AF-K7 ADD r,i latency 1; the sheet prints no 66h penalty"),
    [CLASS_SHIFT]     = TABLE_S(1, "AF-K7 SHL, SHR, SAR r,i/CL: latency 1"),
    [CLASS_ADC]       = TABLE_S(1, "AF-K7 ADC, SBB r,r/i: latency 1"),
    [CLASS_LOAD]      = TABLE_S(3, "AF-K7 MOV r32,m32: latency 3"),
    [CLASS_ALULOAD]   = TABLE_S(1, "AF-K7 ADD, AND, TEST r,m: latency 1"),
    [CLASS_ADCLOAD]   = TABLE_S(1, "AF-K7 ADC, SBB r,m: latency 1"),
    [CLASS_STORE]     = TABLE_S(2, "AF-K7 MOV m16/32,r: latency 2"),
    [CLASS_STOREIMM]  = TABLE_S(2, "AF-K7 MOV m,i: latency 2"),
    [CLASS_RMW]       = TABLE_S(7, "AF-K7 ADD, SUB, AND m,r: latency 7"),
    [CLASS_PUSH]      = TABLE_S(1, "AF-K7 PUSH r, PUSH i: reciprocal throughput 1"),
    [CLASS_PUSHMEM]   = TABLE_S(1, "AF-K7 PUSH m: reciprocal throughput 1"),
    [CLASS_POP]       = TABLE_S(1, "AF-K7 POP r: reciprocal throughput 1"),
    [CLASS_PUSHSEG]   = TABLE_S(1, "AF-K7 PUSH sr: reciprocal throughput 1"),
    [CLASS_SEGPOP]    = TABLE_S(10, "AF-K7 POP DS/ES/FS/GS: reciprocal throughput 10"),
    [CLASS_SEGLOAD]   = TABLE_RANGE_S(9, 13, "AF-K7 MOV sr,r/m: latency 9-13 (rule B)"),
    [CLASS_FAR]       = TABLE_S(32, "AF-K7 JMP far: 23-32, the low value real mode"),
    [CLASS_BRANCH]    = TABLE_RANGE_S(1.0 / 3, 2, "AF-K7 Jcc: reciprocal throughput 1/3 - 2"),
    [CLASS_JMP]       = TABLE_S(2, "AF-K7 JMP short/near: reciprocal throughput 2"),
    [CLASS_CALL]      = TABLE_S(2, "AF-K7 CALL near: reciprocal throughput 2"),
    [CLASS_RET]       = TABLE_S(3, "AF-K7 RETN: reciprocal throughput 3"),
    [CLASS_CALLMEM]   = TABLE_S(3, "AF-K7 CALL m(near): reciprocal throughput 3"),
    [CLASS_CALLREG]   = TABLE_S(3, "AF-K7 CALL r: reciprocal throughput 3"),
    [CLASS_JMPIND]    = TABLE_S(2, "AF-K7 JMP r, JMP m(near): reciprocal throughput 2"),
    [CLASS_MUL]       = TABLE_S(4, "AF-K7 MUL, IMUL r32/m32: latency 4"),
    [CLASS_IMUL]      = TABLE_RANGE_S(4, 5, "AF-K7 IMUL r32,r32 latency 4; r32,(r32),i 5"),
    [CLASS_DIV]       = TABLE_RANGE_S(40, 41, "AF-K7 DIV r32 latency 40; IDIV r32 41"),
    [CLASS_STRING]    = TABLE_RANGE_S(2, 6, "AF-K7 LODS, STOS, SCAS 2; MOVS 3; CMPS 6"),
    [CLASS_REP_MOVS]  = TABLE_RANGE_S(1, 4, "AF-K7 REP MOVS: 1-4 per count"),
    [CLASS_REP_MOVS_START] = ESTIMATE_S(0, 0, 4, "rule E6: no start-up printed; REP MOVS 4 ops"),
    [CLASS_REP_STOS]  = TABLE_S(1, "AF-K7 REP STOS: 1 per count"),
    [CLASS_REP_STOS_START] = ESTIMATE_S(0, 0, 3, "rule E6: no start-up printed; REP STOS 3 ops"),
    [CLASS_REP_OTHER] = TABLE_RANGE_S(2, 4, "AF-K7 REP LODS, SCAS 2; REP CMPS 3-4 per count"),
    [CLASS_REP_OTHER_START] = ESTIMATE_S(0, 0, 6, "rule E6: no start-up printed; 5-6 ops"),
    [CLASS_PUSHF]     = TABLE_S(1, "AF-K7 PUSHF(D): reciprocal throughput 1"),
    [CLASS_POPF]      = TABLE_S(1, "AF-K7 POPF(D): reciprocal throughput 1"),
    [CLASS_CLI]       = TABLE_S(5, "AF-K7 CLI: reciprocal throughput 5"),
    [CLASS_STI]       = TABLE_S(27, "AF-K7 STI: reciprocal throughput 27"),
    [CLASS_CLD]       = TABLE_S(1, "AF-K7 CLD: reciprocal throughput 1"),
    [CLASS_LOCKED]    = TABLE_S(16, "AF-K7 XCHG r,m: latency 16"),
    [CLASS_INT]       = ESTIMATE_S(58, 58, 124, "rule N1: INT i's steps as AF-K7 cells"),
    [CLASS_INT_SAME]  = TIED_S(CLASS_INT, "rule T: = K7 int"),
    [CLASS_EXCEPTION] = TIED_S(CLASS_INT, "rule T: = K7 int"),
    [CLASS_IRET]      = ESTIMATE_S(81, 81, 162, "rule N1: AF-K7 IRET (real mode) 81"),
    [CLASS_SYSENTER]  = ESTIMATE_S(32, 16, 64, "rule N2: AF-K7 JMP far 32, x2 either way"),
    [CLASS_SYSEXIT]   = ESTIMATE_S(32, 16, 64, "rule N2: AF-K7 JMP far 32, x2 either way"),
    [CLASS_RDTSC]     = TABLE_S(11, "AF-K7 RDTSC: reciprocal throughput 11"),
    [CLASS_CPUID]     = TABLE_RANGE_S(44, 74, "AF-K7 CPUID: latency 44-74"),
    [CLASS_RDMSR]     = ESTIMATE_S(44, 22, 88, "rule E2: = K7 cpuid, x2 either way"),
    [CLASS_WRMSR]     = ESTIMATE_S(44, 22, 88, "rule E2: = K7 cpuid, x2 either way"),
    [CLASS_IO]        = ESTIMATE_S(44, 22, 88, "rule E7: no IN/OUT row; as rule E2"),
    [CLASS_SYSTEM]    = ESTIMATE_S(32, 16, 64, "rule E3: = K7 JMP far, x2 either way"),
    [CLASS_FPU]       = TABLE_S(4, "AF-K7 FADD r/m: latency 4"),
    [CLASS_OTHER]     = ESTIMATE_S(1, 0.5, 2, "rule E4"),
};

/*
 * Pentium M (Banias): Agner Fog's "Pentium M" sheet (AF-PM, measured on a
 * Dothan, the Banias's shrink). No row is calibrated; the crossings come
 * from rule N (docs/cost-model.md), written before them.
 */
static const struct cost_row rows_pm[NCLASSES] = {
    [CLASS_ALU]       = TABLE_S(1, "AF-PM ADD, SUB, AND, CMP, TEST r,r/i: latency 1"),
    [CLASS_ALU16IMM]  = ESTIMATE_S(3, 3, 5, "rule E1 as on the P6: ALU 1 + a few clocks"),
    [CLASS_SHIFT]     = TABLE_S(1, "AF-PM SHR, SHL, SAR r,i/CL: latency 1"),
    [CLASS_ADC]       = TABLE_S(2, "AF-PM ADC, SBB r,r/i: latency 2"),
    [CLASS_LOAD]      = TABLE_S(1, "AF-PM MOV r,m: reciprocal throughput 1 (no latency)"),
    [CLASS_ALULOAD]   = TABLE_RANGE_S(1, 2, "AF-PM CMP, TEST m,r latency 1; ADD, AND r,m 2"),
    [CLASS_ADCLOAD]   = UOPS_S(1, 3, "rule U: AF-PM ADC r,m p1, p01, p2"),
    [CLASS_STORE]     = TABLE_S(1, "AF-PM MOV m,r: reciprocal throughput 1"),
    [CLASS_STOREIMM]  = TABLE_S(1, "AF-PM MOV m,i: reciprocal throughput 1"),
    [CLASS_RMW]       = TABLE_S(1, "AF-PM ADD, SUB, AND m,r/i: reciprocal throughput 1"),
    [CLASS_PUSH]      = TABLE_S(1, "AF-PM PUSH r, PUSH i: latency 1"),
    [CLASS_PUSHMEM]   = TABLE_S(2, "AF-PM PUSH m: latency 2"),
    [CLASS_POP]       = UOPS_S(1, 1, "rule U: AF-PM POP r 1 uop p2, as MOV r,m"),
    [CLASS_PUSHSEG]   = UOPS_S(1, 3, "rule U: AF-PM PUSH sr p01, p3, p4"),
    [CLASS_SEGPOP]    = UOPS_S(4.5, 10, "rule U: AF-PM POP sr p01 9, p2 1"),
    [CLASS_SEGLOAD]   = TABLE_S(5, "AF-PM MOV sr,r: latency 5"),
    [CLASS_FAR]       = TABLE_S(28, "AF-PM JMP far: reciprocal throughput 28"),
    [CLASS_BRANCH]    = TABLE_S(1, "AF-PM conditional jump: reciprocal throughput 1"),
    [CLASS_JMP]       = TABLE_S(1, "AF-PM JMP short/near: reciprocal throughput 1"),
    [CLASS_CALL]      = TABLE_S(2, "AF-PM CALL near: reciprocal throughput 2"),
    [CLASS_RET]       = TABLE_S(2, "AF-PM RETN: reciprocal throughput 2"),
    [CLASS_CALLMEM]   = TABLE_S(2, "AF-PM CALL m(near): reciprocal throughput 2"),
    [CLASS_CALLREG]   = TABLE_S(9, "AF-PM CALL r: reciprocal throughput 9"),
    [CLASS_JMPIND]    = TABLE_RANGE_S(1, 2, "AF-PM JMP r 1, JMP m(near) 2"),
    [CLASS_MUL]       = TABLE_S(5, "AF-PM MUL, IMUL r16/r32: latency 5"),
    [CLASS_IMUL]      = TABLE_S(4, "AF-PM IMUL r,r and r,r,i: latency 4"),
    [CLASS_DIV]       = TABLE_RANGE_S(15, 39, "AF-PM DIV, IDIV r32: latency 15-39"),
    [CLASS_STRING]    = TABLE_RANGE_S(0.7, 4, "AF-PM MOVS, CMPS 0.7 ... LODS 4"),
    [CLASS_REP_MOVS]  = UOPS_S(2, 6, "rule U: AF-PM REP MOVS ca. 6n uops"),
    [CLASS_REP_MOVS_START] = ESTIMATE_S(0, 0, 12, "rule E6 as on the P6"),
    [CLASS_REP_STOS]  = UOPS_S(5.0 / 3, 5, "rule U: AF-PM REP STOS ca. 5n uops"),
    [CLASS_REP_STOS_START] = ESTIMATE_S(0, 0, 12, "rule E6 as on the P6"),
    [CLASS_REP_OTHER] = UOPS_S(2, 6, "rule U: AF-PM REP LODS 10+6n uops"),
    [CLASS_REP_OTHER_START] = UOPS_S(10.0 / 3, 10, "rule U: the same cell's 10"),
    [CLASS_PUSHF]     = TABLE_S(6, "AF-PM PUSHF(D): reciprocal throughput 6"),
    [CLASS_POPF]      = TABLE_S(16, "AF-PM POPF(D): reciprocal throughput 16"),
    [CLASS_CLI]       = UOPS_S(9, 9, "rule U: AF-PM CLI 9 uops p0"),
    [CLASS_STI]       = UOPS_S(17, 17, "rule U: AF-PM STI 17 uops p0"),
    [CLASS_CLD]       = TABLE_S(7, "AF-PM CLD, STD: reciprocal throughput 7"),
    [CLASS_LOCKED]    = ESTIMATE_S(18, 9, 36, "rule E8: AF-PM XCHG r,m 'high'; P6 18, x2"),
    [CLASS_INT]       = ESTIMATE_S(52, 52, 104, "rule N1: INT n's steps as AF-PM cells"),
    [CLASS_INT_SAME]  = TIED_S(CLASS_INT, "rule T: = PM int"),
    [CLASS_EXCEPTION] = TIED_S(CLASS_INT, "rule T: = PM int"),
    [CLASS_IRET]      = ESTIMATE_S(51.5, 51.5, 114, "rule N1: IRET's steps as AF-PM cells"),
    [CLASS_SYSENTER]  = ESTIMATE_S(28, 14, 56, "rule N2: AF-PM JMP far 28, x2 either way"),
    [CLASS_SYSEXIT]   = ESTIMATE_S(28, 14, 56, "rule N2: AF-PM JMP far 28, x2 either way"),
    [CLASS_RDTSC]     = TABLE_S(42, "AF-PM RDTSC: reciprocal throughput 42"),
    [CLASS_CPUID]     = TABLE_S(130, "AF-PM CPUID: reciprocal throughput ca. 130"),
    [CLASS_RDMSR]     = ESTIMATE_S(130, 65, 260, "rule E2: = PM cpuid, x2 either way"),
    [CLASS_WRMSR]     = ESTIMATE_S(130, 65, 260, "rule E2: = PM cpuid, x2 either way"),
    [CLASS_IO]        = TABLE_RANGE_S(300, 600, "AF-PM IN, OUT: reciprocal throughput >300"),
    [CLASS_SYSTEM]    = ESTIMATE_S(28, 14, 56, "rule E3: = PM JMP far, x2 either way"),
    [CLASS_FPU]       = TABLE_S(3, "AF-PM FADD r: latency 3"),
    [CLASS_OTHER]     = ESTIMATE_S(1, 0.5, 2, "rule E4"),
};
