/* A tiny freestanding C library for the project's own guest programs. */
#ifndef MINI_H
#define MINI_H

#include <stdint.h>
#include <stddef.h>

#include "syscall_nr.h"   /* SYS_*: generated from guest/syscalls.def */

/* SIG*: from guest/signals.def */
enum {
#define SIGNAL(nr, name, action) name = nr,
#include "../../signals.def"
#undef SIGNAL
};

/* A number as a string, for assembly: "movl $" STR(SYS_getpid) ", %eax" */
#define STR_(x) #x
#define STR(x) STR_(x)

struct timeval { long tv_sec, tv_usec; };

extern uint32_t mini_sysinfo;     /* AT_SYSINFO, 0 if absent */
extern int mini_use_int80;        /* route syscall() through int $0x80 */
extern char **mini_environ;

long mini_int80(long nr, long a, long b, long c, long d, long e, long f);
long mini_vsyscall(long nr, long a, long b, long c, long d, long e, long f);
long syscall6(long nr, long a, long b, long c, long d, long e, long f);
#define syscall0(nr) syscall6(nr, 0, 0, 0, 0, 0, 0)
#define syscall1(nr, a) syscall6(nr, (long)(a), 0, 0, 0, 0, 0)
#define syscall2(nr, a, b) syscall6(nr, (long)(a), (long)(b), 0, 0, 0, 0)
#define syscall3(nr, a, b, c) syscall6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

int main(int argc, char **argv);
__attribute__((noreturn)) void exit(int status);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
long atol(const char *s);
void puts_fd(int fd, const char *s);
int printf(const char *fmt, ...);
uint64_t rdtsc(void);
/* vdso.c (an archive member: linked only into programs that use it): a
 * symbol of the vDSO AT_SYSINFO_EHDR points at, or NULL; gettimeofday
 * through its __vdso_gettimeofday when it has one, else the system call */
void *mini_vdso_sym(const char *name);
int gettimeofday(struct timeval *tv, void *tz);
/* mini/input.c: up to max bytes read from fd until end of file; hex pairs
 * decoded up to max bytes or the first character that is not hex */
uint32_t read_input(int fd, uint8_t *buf, uint32_t max);
uint32_t decode_hex(const char *hex, uint8_t *buf, uint32_t max);

#endif
