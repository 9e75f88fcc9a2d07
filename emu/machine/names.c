#include "machine/names.h"
#include <stdio.h>
#include <string.h>
#include "../guest/x86.h"

/* syscalls.def names the kinds bare; in this file they are the ARG_ ones. */
enum {
#define X(kind, what) kind = ARG_##kind,
    ARG_KINDS(X)
#undef X
};

#define SYSCALL(nr, name, nargs, handler, ...) [nr] = { #name, #handler, nargs, { __VA_ARGS__ } },
static const struct syscall_info syscalls[] = {
#include "../guest/syscalls.def"
};
#undef SYSCALL

/* Each row gives as many kinds as it says the call has arguments. */
#define SYSCALL(nr, name, nargs, handler, ...) \
    _Static_assert(sizeof((const uint8_t[]){ 0, __VA_ARGS__ }) == (nargs) + 1, \
                   #name ": the argument count and the kinds differ");
#include "../guest/syscalls.def"
#undef SYSCALL

const struct syscall_info *syscall_info(uint32_t nr)
{
    if (nr >= sizeof syscalls / sizeof syscalls[0] || !syscalls[nr].name)
        return NULL;
    return &syscalls[nr];
}

int syscall_by_name(const char *name)
{
    for (uint32_t nr = 0; nr < sizeof syscalls / sizeof syscalls[0]; nr++)
        if (syscalls[nr].name && !strcmp(syscalls[nr].name, name))
            return (int)nr;
    return -1;
}

const char *syscall_name(uint32_t nr)
{
    static char buf[32];
    const struct syscall_info *s = syscall_info(nr);
    if (s)
        return s->name;
    snprintf(buf, sizeof buf, "syscall_%u", nr);
    return buf;
}

const char *signal_name(uint32_t sig)
{
    static const char *const names[] = {
#define SIGNAL(nr, name, action) [nr] = #name,
#include "../guest/signals.def"
#undef SIGNAL
    };
    return sig < sizeof names / sizeof names[0] && names[sig] ? names[sig] : "signal";
}

const char *vector_name(uint32_t vector)
{
    static const char *const names[X86_NR_EXCEPTIONS] = {
        [X86_VEC_DE] = "#DE divide error",
        [X86_VEC_DB] = "#DB debug",
        [X86_VEC_NMI] = "NMI",
        [X86_VEC_BP] = "#BP breakpoint",
        [X86_VEC_OF] = "#OF overflow",
        [X86_VEC_BR] = "#BR bound range",
        [X86_VEC_UD] = "#UD invalid opcode",
        [X86_VEC_NM] = "#NM device not available",
        [X86_VEC_DF] = "#DF double fault",
        [X86_VEC_CSO] = "coprocessor overrun",
        [X86_VEC_TS] = "#TS invalid TSS",
        [X86_VEC_NP] = "#NP segment not present",
        [X86_VEC_SS] = "#SS stack fault",
        [X86_VEC_GP] = "#GP general protection",
        [X86_VEC_PF] = "#PF page fault",
        [X86_VEC_SPURIOUS] = "reserved",
        [X86_VEC_MF] = "#MF x87 error",
        [X86_VEC_AC] = "#AC alignment check",
        [X86_VEC_MC] = "#MC machine check",
        [X86_VEC_XM] = "#XM SIMD error",
    };
    return vector < X86_NR_EXCEPTIONS ? names[vector] : "exception";
}
