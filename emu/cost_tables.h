/*
 * Cycle cost per instruction class for each CPU model, in centicycles.
 * The tag after each number names its row in docs/cost-model.md, which
 * gives the source (a published measurement for that CPU), or says that
 * nothing was published and how the number was estimated or calibrated.
 * Included by cpu_models.c only.
 */

/* Calibrated by scripts/calibrate.sh (docs/cost-model.md, "Calibration"):
 * the published getppid round trips of each CPU minus the modeled cost of
 * everything else on the same path. Never fitted to gettimeofday. */
#define P4_IRET_CALIBRATED      CENTI(960.00)
#define P4_SYSENTER_CALIBRATED  CENTI(177.75)
#define P4_SYSEXIT_CALIBRATED   CENTI(177.75)
#define P6_INT_CALIBRATED       CENTI(96.21)
#define P6_IRET_CALIBRATED      CENTI(143.43)
#define P6_SYSENTER_CALIBRATED  CENTI(48.81)
#define P6_SYSEXIT_CALIBRATED   CENTI(48.81)

static const uint32_t cost_pentium4[NCLASSES] = {
    [CLASS_ALU]       = CENTI(0.5),   /* P4-1 */
    [CLASS_LOAD]      = CENTI(2),     /* P4-2 */
    [CLASS_STORE]     = CENTI(1),     /* P4-3 */
    [CLASS_RMW]       = CENTI(3.5),   /* P4-4 */
    [CLASS_PUSH]      = CENTI(1),     /* P4-5 */
    [CLASS_POP]       = CENTI(1),     /* P4-5 */
    [CLASS_BRANCH]    = CENTI(2),     /* P4-6 */
    [CLASS_CALL]      = CENTI(2),     /* P4-7 */
    [CLASS_RET]       = CENTI(2),     /* P4-7 */
    [CLASS_INDIRECT]  = CENTI(8),     /* P4-8 */
    [CLASS_MUL]       = CENTI(14),    /* P4-9 */
    [CLASS_DIV]       = CENTI(50),    /* P4-9 */
    [CLASS_STRING]    = CENTI(1.1),   /* P4-10 */
    [CLASS_REP_START] = CENTI(163),   /* P4-10 */
    [CLASS_SEGLOAD]   = CENTI(24),    /* P4-11 */
    [CLASS_SEGPOP]    = CENTI(13),    /* P4-11 */
    [CLASS_PUSHF]     = CENTI(10),    /* P4-12 */
    [CLASS_POPF]      = CENTI(52),    /* P4-12 */
    [CLASS_CLI]       = CENTI(35),    /* P4-13 */
    [CLASS_STI]       = CENTI(43),    /* P4-13 */
    [CLASS_LOCKED]    = CENTI(104),   /* P4-14 */
    [CLASS_INT]       = CENTI(644),   /* P4-15 */
    [CLASS_INT_SAME]  = CENTI(644),   /* P4-15 */
    [CLASS_EXCEPTION] = CENTI(644),   /* P4-16 */
    [CLASS_IRET]      = P4_IRET_CALIBRATED,     /* P4-17 */
    [CLASS_SYSENTER]  = P4_SYSENTER_CALIBRATED, /* P4-17 */
    [CLASS_SYSEXIT]   = P4_SYSEXIT_CALIBRATED,  /* P4-17 */
    [CLASS_RDTSC]     = CENTI(80),    /* P4-18 */
    [CLASS_CPUID]     = CENTI(350),   /* P4-19 */
    [CLASS_RDMSR]     = CENTI(350),   /* P4-20 */
    [CLASS_WRMSR]     = CENTI(350),   /* P4-20 */
    [CLASS_IO]        = CENTI(1000),  /* P4-21 */
    [CLASS_SYSTEM]    = CENTI(118),   /* P4-22 */
    [CLASS_FPU]       = CENTI(5),     /* P4-23 */
    [CLASS_OTHER]     = CENTI(1),     /* P4-23 */
};

/* The P6 core: Pentium Pro, Pentium II and Pentium III share one table
 * (Agner Fog measures them as one family). */
static const uint32_t cost_p6[NCLASSES] = {
    [CLASS_ALU]       = CENTI(1),     /* P6-1 */
    [CLASS_LOAD]      = CENTI(3),     /* P6-2 */
    [CLASS_STORE]     = CENTI(1),     /* P6-3 */
    [CLASS_RMW]       = CENTI(5),     /* P6-4 */
    [CLASS_PUSH]      = CENTI(1),     /* P6-5 */
    [CLASS_POP]       = CENTI(0.67),  /* P6-5 */
    [CLASS_BRANCH]    = CENTI(2),     /* P6-6 */
    [CLASS_CALL]      = CENTI(2),     /* P6-6 */
    [CLASS_RET]       = CENTI(2),     /* P6-6 */
    [CLASS_INDIRECT]  = CENTI(2),     /* P6-6 */
    [CLASS_MUL]       = CENTI(4),     /* P6-7 */
    [CLASS_DIV]       = CENTI(39),    /* P6-7 */
    [CLASS_STRING]    = CENTI(2),     /* P6-8 */
    [CLASS_REP_START] = CENTI(3.33),  /* P6-8 */
    [CLASS_SEGLOAD]   = CENTI(5),     /* P6-9 */
    [CLASS_SEGPOP]    = CENTI(3),     /* P6-9 */
    [CLASS_PUSHF]     = CENTI(5.33),  /* P6-10 */
    [CLASS_POPF]      = CENTI(5.67),  /* P6-10 */
    [CLASS_CLI]       = CENTI(3),     /* P6-10 */
    [CLASS_STI]       = CENTI(5.67),  /* P6-10 */
    [CLASS_LOCKED]    = CENTI(18),    /* P6-11 */
    [CLASS_INT]       = P6_INT_CALIBRATED,      /* P6-12 */
    [CLASS_INT_SAME]  = P6_INT_CALIBRATED,      /* P6-12 */
    [CLASS_EXCEPTION] = P6_INT_CALIBRATED,      /* P6-13 */
    [CLASS_IRET]      = P6_IRET_CALIBRATED,     /* P6-12 */
    [CLASS_SYSENTER]  = P6_SYSENTER_CALIBRATED, /* P6-14 */
    [CLASS_SYSEXIT]   = P6_SYSEXIT_CALIBRATED,  /* P6-14 */
    [CLASS_RDTSC]     = CENTI(32),    /* P6-15 */
    [CLASS_CPUID]     = CENTI(138),   /* P6-15 */
    [CLASS_RDMSR]     = CENTI(138),   /* P6-16 */
    [CLASS_WRMSR]     = CENTI(138),   /* P6-16 */
    [CLASS_IO]        = CENTI(300),   /* P6-17 */
    [CLASS_SYSTEM]    = CENTI(7),     /* P6-18 */
    [CLASS_FPU]       = CENTI(3),     /* P6-19 */
    [CLASS_OTHER]     = CENTI(1),     /* P6-19 */
};
