/*
 * Writes the seed corpora and the hand-made reproducers:
 * make_seeds DIR HELLO, DIR being tests/fuzz:
 *   DIR/corpus/elf/      tiny ELF programs, valid and broken in the ways
 *                        the loader checks, plus a copy of HELLO
 *   DIR/corpus/syscall/  inputs for guest/programs/syscall_fuzz (its header
 *                        comment has the record format; byte 0: the CPU)
 *   DIR/corpus/gdb/      GDB remote protocol byte streams: the session
 *                        Debian's gdb 13 opens, every command, hostile ones
 *   DIR/corpus/cpu/      inputs for guest/programs/cpu_fuzz: one for each
 *                        CPU state of docs/robustness.md's round two
 *   DIR/crashes/elf/     tiny programs that once crashed, hung or failed
 *                        the machine (docs/robustness.md)
 * make fuzz-seeds runs it; the output is committed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tiny_elf.h"

static const char *dir;

static void put(const char *sub, const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
        exit(1);
    }
}

static void put_elf(const char *name, struct tiny_elf *e)
{
    put("corpus/elf", name, e->bytes, e->size);
}

/* Programs that broke the emulator before the fixes in docs/robustness.md. */
static void crash_seeds(void)
{
    static const struct {
        const char *name;
        uint8_t code[8];
        uint32_t len;
    } crashes[] = {
        /* the engine's translator aborted the process (SIGABRT) */
        { "abort-lock-cmp", { 0xf0, 0x38, 0x00 }, 3 },
        { "abort-lock-cmps", { 0xf0, 0xa6 }, 2 },
        { "abort-far-call-register", { 0xff, 0xd8 }, 2 },
        { "abort-far-jmp-register", { 0xff, 0xe8 }, 2 },
        /* "lock jmp .": undecodable for Capstone, so never counted: a hang */
        { "hang-lock-jmp-loop", { 0xf0, 0xeb, 0xfd }, 3 },
        /* mov 0xfffffffe, %eax: the read wraps past 4 GiB: machine failure */
        { "machine-wrap-read", { 0xa1, 0xfe, 0xff, 0xff, 0xff }, 5 },
        /* mov $0xffffffff, %eax; jmp *%eax: code runs past 4 GiB */
        { "machine-wrap-fetch", { 0xb8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe0 }, 7 },
    };
    struct tiny_elf e;
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) {
        tiny_elf_init(&e, 0, 0);
        tiny_elf_set_code(&e, crashes[i].code, crashes[i].len);
        put("crashes/elf", crashes[i].name, e.bytes, e.size);
    }
}

static void elf_seeds(const char *hello)
{
    struct tiny_elf e;

    tiny_elf_init(&e, 42, 0);
    put_elf("tiny-exit42", &e);

    tiny_elf_init(&e, 0, 1);
    put_elf("tiny-loop", &e);

    /* 200 nops before exit(3): room for mutations to make instructions */
    static const uint8_t exit3[12] = { 0xb8, SYS_exit, 0, 0, 0, 0xbb, 3, 0, 0, 0,
                                       0xcd, SYSCALL_VECTOR };
    uint8_t sled[200 + sizeof exit3];
    memset(sled, 0x90, 200);
    memcpy(sled + 200, exit3, sizeof exit3);
    tiny_elf_init(&e, 0, 0);
    tiny_elf_set_code(&e, sled, sizeof sled);
    put_elf("tiny-nop-sled", &e);

    tiny_elf_init(&e, 7, 0);
    tiny_eh(&e)->type = 3;                        /* ET_DYN: loaded with a bias */
    put_elf("tiny-pie", &e);

    /* code, and a writable data segment with bss on the next page */
    tiny_elf_init(&e, 1, 0);
    tiny_eh(&e)->phnum = 2;
    *tiny_ph(&e, 1) = (struct tiny_phdr){ TINY_PT_LOAD, 0, TINY_BASE + 0x1000,
                                          TINY_BASE + 0x1000, e.size, 0x3000,
                                          TINY_PF_R | TINY_PF_W, 0x1000 };
    put_elf("tiny-data-bss", &e);

    tiny_elf_init(&e, 0, 0);
    e.size = 40;
    put_elf("truncated-header", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_eh(&e)->phoff = e.size - 8;
    put_elf("phdrs-outside-file", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_eh(&e)->phnum = 2;
    *tiny_ph(&e, 1) = *tiny_ph(&e, 0);
    tiny_ph(&e, 1)->vaddr += 0x40;
    put_elf("overlapping-segments", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_ph(&e, 0)->vaddr = 0xc0100000u;
    tiny_eh(&e)->entry = 0xc0100000u + TINY_CODE;
    put_elf("kernel-segment", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_eh(&e)->entry = 0xc0100000u;
    put_elf("kernel-entry", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_ph(&e, 0)->memsz = 0xb0000000u;
    put_elf("huge-memsz", &e);

    tiny_elf_init(&e, 0, 0);
    tiny_eh(&e)->phnum = 2;
    *tiny_ph(&e, 1) = (struct tiny_phdr){ TINY_PT_INTERP, 100, 0, 0, 10, 10, 4, 1 };
    put_elf("interp", &e);

    FILE *f = fopen(hello, "rb");
    static uint8_t buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (!f || n == 0 || n == sizeof buf) {
        fprintf(stderr, "make_seeds: cannot read %s\n", hello);
        exit(1);
    }
    fclose(f);
    put("corpus/elf", "hello", buf, n);
}

/* ---- syscall_fuzz inputs ---- */

static uint8_t in[1024];
static size_t len;

static void b(uint32_t v) { in[len++] = (uint8_t)v; }
static void w16(uint32_t v) { b(v); b(v >> 8); }
static void w32(uint32_t v) { w16(v); w16(v >> 16); }

/* syscall_fuzz's numbers[] indices */
enum { EXIT = 0, READ = 1, WRITE = 2, TIME = 3, GETPID = 4, KILL = 6, BRK = 7,
       GETTIMEOFDAY = 13, MMAP = 14, MUNMAP = 15, FSTAT = 16, UNAME = 17,
       MPROTECT = 18, WRITEV = 19, RT_SIGACTION = 21, RT_SIGPROCMASK = 22,
       SIGALTSTACK = 23, MMAP2 = 25, SET_THREAD_AREA = 34, GET_THREAD_AREA = 35,
       CLOCK_GETTIME = 38, PRLIMIT64 = 40, GETRANDOM = 41, ARGS6 = 44 };
enum { INT80 = 0, VSYSCALL = 1, SYSENTER = 2, ODD = 3, RAW_NR = 4, ES = 8, DS = 16 };

/* argument kinds (syscall_fuzz's arg()) */
static void small(uint32_t v) { b(0); b(v); }
static void raw(uint32_t v) { b(1); w32(v); }
static void scratch(uint32_t off) { b(2); w16(off); }
static void kernel(uint32_t k) { b(3); w16(k); }
static void vsys(uint32_t slot) { b(4); b(slot); }
static void unmapped(uint32_t off) { b(5); w16(off); }
static void edge(uint32_t back) { b(6); b(back); }
static void text(uint32_t off) { b(7); b(off); }
static void zeros(int n) { while (n-- > 0) small(0); }

static void start(uint32_t cpu)
{
    len = 0;
    b(cpu);   /* 0 pentium4, 1 pentium3, 2 pentiumpro, 3 pentium4,-sep */
}

static void call(uint32_t how, uint32_t index)
{
    b(how);
    b(index);
}

static void done(const char *name)
{
    put("corpus/syscall", name, in, len);
}

static void syscall_seeds(void)
{
    start(0);
    call(INT80, GETPID); zeros(6);
    call(VSYSCALL, GETPID); zeros(6);
    call(VSYSCALL, WRITE); small(1); scratch(0); small(16); zeros(3);
    call(INT80, ARGS6); small(1); small(2); small(3); small(4); small(5); small(6);
    call(VSYSCALL, ARGS6); small(1); small(2); small(3); small(4); small(5); small(6);
    done("basic");

    start(0);
    call(VSYSCALL, WRITE); small(1); kernel(0x400); small(16); zeros(3);
    call(INT80, GETTIMEOFDAY); vsys(0); zeros(5);
    call(VSYSCALL, UNAME); unmapped(0); zeros(5);
    call(VSYSCALL, TIME); edge(1); zeros(5);
    call(INT80, FSTAT); small(1); text(0); zeros(4);
    call(VSYSCALL, GETRANDOM); edge(100); small(200); zeros(4);
    call(INT80, CLOCK_GETTIME); small(1); raw(0xfffffffc); zeros(4);
    done("bad-pointers");

    start(1);
    call(SYSENTER, GETPID); zeros(5); scratch(0x100);
    call(SYSENTER, ARGS6); small(1); small(2); small(3); small(4); small(5); scratch(0x203);
    call(SYSENTER, GETPID); zeros(5); kernel(4);
    done("sysenter-ebp");

    start(2);
    call(ODD, GETPID); zeros(6); b(1);
    call(ODD, GETPID); zeros(6); b(5);
    done("odd-offsets");

    start(0);
    call(ODD, GETPID); zeros(6); b(3);
    call(ODD, GETPID); zeros(6); b(7);
    call(ODD, GETPID); zeros(6); b(9);
    done("odd-offsets-sep");

    start(0);
    call(VSYSCALL, SET_THREAD_AREA); scratch(0x40); zeros(5);
    call(INT80 | ES, GETPID); w16(0x33); zeros(6);
    call(VSYSCALL | DS, GETPID); w16(0x3b); zeros(6);
    call(INT80 | ES, SET_THREAD_AREA); w16(0x33); scratch(0x40); zeros(5);
    call(VSYSCALL, GET_THREAD_AREA); scratch(0x80); zeros(5);
    done("segments");

    start(3);
    call(VSYSCALL, MMAP2); small(0); raw(0x3000); small(3); small(0x22); raw(0xffffffff);
    small(0);
    call(INT80, MPROTECT); scratch(0); raw(0x1000); small(1); zeros(3);
    call(VSYSCALL, MUNMAP); raw(0x20001000); raw(0x1000); zeros(4);
    call(INT80, BRK); raw(0x08100000); zeros(5);
    call(INT80, MMAP); scratch(0x10); zeros(5);
    done("memory");

    start(0);
    call(VSYSCALL, RT_SIGACTION); small(10); scratch(0x20); scratch(0x200); small(8);
    zeros(2);
    call(VSYSCALL, RT_SIGPROCMASK); small(0); scratch(0x30); edge(3); small(8); zeros(2);
    call(INT80, SIGALTSTACK); scratch(0x50); kernel(0); zeros(4);
    call(VSYSCALL, PRLIMIT64); small(0); small(7); scratch(0x60); scratch(0x300); zeros(2);
    call(INT80, KILL); small(0); small(0); zeros(4);
    done("signals");

    start(4);
    call(VSYSCALL, WRITEV); small(1); scratch(0); small(4); zeros(3);
    call(INT80, READ); small(0); scratch(0x400); small(100); zeros(3);
    call(VSYSCALL, WRITE); small(2); edge(8); small(16); zeros(3);
    done("io");

    start(0);
    b(INT80 | RAW_NR); w32(0xffffffff); zeros(6);
    b(VSYSCALL | RAW_NR); w32(1000); zeros(6);
    b(SYSENTER | RAW_NR); w32(0x80000000); zeros(5); scratch(0x500);
    b(INT80 | RAW_NR); w32(998); zeros(6);
    done("bad-numbers");

    start(0);
    call(VSYSCALL, EXIT); small(7); zeros(5);
    done("exit");
}

/* ---- GDB remote protocol streams (the fake machine: tests/gdb_fake.h) ---- */

static char stream[16384];
static size_t slen;

static void graw(const char *bytes, size_t n)
{
    if (slen + n > sizeof stream) {
        fprintf(stderr, "make_seeds: gdb seed too long\n");
        exit(1);
    }
    memcpy(stream + slen, bytes, n);
    slen += n;
}

/* One packet, framed, with or without the client's '+' for the last
 * reply. Its checksum is "xx", which the harness fills in (harness.h),
 * unless real: the gdb 13 session is as gdb sent it. */
static int real_sums;

static void gpkt_n(const char *data, size_t n, int ack)
{
    unsigned sum = 0;
    char tail[4] = "#xx";
    for (size_t i = 0; i < n; i++)
        sum += (unsigned char)data[i];
    if (real_sums)
        snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
    if (ack)
        graw("+", 1);
    graw("$", 1);
    graw(data, n);
    graw(tail, 3);
}

static void gpkt(const char *data) { gpkt_n(data, strlen(data), 1); }
static void gpkt_noack(const char *data) { gpkt_n(data, strlen(data), 0); }

/* qRcmd with the command hex-encoded */
static void gmonitor(const char *cmd)
{
    char pkt[256] = "qRcmd,";
    for (size_t i = 0; cmd[i] && i < 100; i++)
        snprintf(pkt + 6 + 2 * i, 3, "%02x", (unsigned char)cmd[i]);
    gpkt(pkt);
}

static void gdone(const char *name)
{
    put("corpus/gdb", name, stream, slen);
    slen = 0;
}

static void gdb_seeds(void)
{
    /* what gdb 13 sends for target remote, stepi, break, continue, detach */
    static const char *const no_ack[] = {
        "Hg0", "qXfer:features:read:target.xml:0,ffb", "qTStatus", "?", "qfThreadInfo",
        "qsThreadInfo", "qAttached", "Hc-1", "g", "m8048000,1", "m8048000,40", "vCont?",
        "vCont;s:1;c", "g", "m8048005,1", "Z0,804800a,1", "vCont;c", "z0,804800a,1", "D",
    };
    real_sums = 1;
    gpkt("qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
         "vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;"
         "memory-tagging+;xmlRegisters=i386");
    gpkt("vMustReplyEmpty");
    gpkt("QStartNoAckMode");
    graw("+", 1);
    for (size_t i = 0; i < sizeof no_ack / sizeof no_ack[0]; i++)
        gpkt_noack(no_ack[i]);
    gdone("gdb13-session");
    real_sums = 0;

    static const char x[] = "X804a000,6:}\x03}\x04}]}\x0a\x00\x03";
    gpkt("?");
    gpkt("g");
    gpkt("G01000000110000002200000033000000f0bf0408000000004400000055000000"
         "0080040846020000730000007b0000007b0000007b0000000000000000000000");
    gpkt("p8");
    gpkt("P0=efbeadde");
    gpkt("p10");
    gpkt("P10=01000000000000000000");
    gpkt("Pa=74000000");
    gpkt("m804cffe,4");
    gpkt("m8048000,ffffffff");
    gpkt("M804a000,4:deadbeef");
    gpkt("M804c000,1:00");
    gpkt_n(x, sizeof x - 1, 1);
    gpkt("X804a000,0:");
    gpkt("mffffffff,10");
    gdone("registers-memory");

    gpkt("qSupported:swbreak+;hwbreak+");
    gpkt("Z0,804800a,1");
    gpkt("Z1,804800f,1");
    gpkt("Z2,804a010,4");
    gpkt("Z3,804a010,4");
    gpkt("Z4,804a012,2");
    gpkt("c");
    gpkt("c");
    gpkt("s");
    gpkt("vCont;s:2;c");
    gpkt("C0b");
    gpkt("z0,804800a,1");
    gpkt("z4,804a012,2");
    gpkt("Z0,804800f,3");
    gpkt("Z5,0,1");
    gpkt("vCont;S05:p1.1;c:p1.-1");
    gpkt("s804801e");
    gpkt("k");
    gpkt("?");
    gdone("points-and-resuming");

    gmonitor("cycles");
    gmonitor("help");
    gmonitor("  echo a b");
    gmonitor("flood");
    gmonitor("frobnicate");
    gpkt("qRcmd,6");
    gpkt("qXfer:features:read:target.xml:0,100");
    gpkt("qXfer:features:read:target.xml:700,100");
    gpkt("qXfer:features:read:other.xml:0,100");
    gpkt("qC");
    gpkt("qOffsets");
    gpkt("qSymbol::");
    gpkt("Hgp1.1");
    gpkt("T2");
    gpkt("vFile:setfs:0");
    gpkt("vKill;1");
    gdone("queries-monitor");

    gpkt("c");          /* to the exit */
    gpkt("?");
    gpkt("s");
    gpkt("g");
    gpkt("Z0,8048000,1");
    gpkt("D");
    gpkt("?");
    gdone("exit-and-after");

    graw("$g#00", 5);                   /* bad checksum */
    graw("-", 1);
    gpkt("?");
    graw("---", 3);                     /* naks: resends, then nothing */
    graw("$", 1);                       /* overlong through run-length */
    for (int i = 0; i < 50; i++)
        graw("a*~", 3);
    graw("#00", 3);
    graw("$0*#5a", 6);                  /* '*' without a count */
    graw("$m8048$?#3f", 11);            /* a packet abandoned for another */
    graw("\x03hello\r\n", 8);          /* Ctrl-C while stopped, noise */
    gpkt("c");
    gpkt("?");                          /* dropped while running */
    graw("\x03", 1);
    gpkt("m80480");
    graw("$m8048000,", 10);             /* cut off */
    gdone("hostile");
}

/* ---- cpu_fuzz inputs (its header comment has the layout) ---- */

enum { POPF = 0, IRET = 1, LJMP = 2, LCALL = 3, TOP = 4, SEGS = 8, VIA_TLS = 16 };
#define TLS_ENTRY(i) ((i) << 5)
#define CODE_AT 0x40000000u
#define NO_TLS 0x80000000u
/* struct user_desc flags: 32-bit, code, limit in pages */
#define CODE32 (0x01 | 0x04 | 0x10)

struct cpu_seed {
    uint32_t cpu, how;
    uint32_t tls[3][3];          /* base, limit, flags */
    uint32_t eflags;
    uint16_t sel[4];             /* ds es fs gs */
    uint32_t regs[7];            /* eax ecx edx ebx ebp esi edi */
    const char *code;            /* hex */
};

static void cpu_seed(const char *name, const struct cpu_seed *c)
{
    len = 0;
    b(c->cpu);
    b(c->how);
    for (int i = 0; i < 3; i++) {
        w32(c->tls[i][0]);
        w32(c->tls[i][1]);
        w32(c->tls[i][2] ? c->tls[i][2] : NO_TLS);
    }
    w32(c->eflags ? c->eflags : 0x202);
    for (int i = 0; i < 4; i++)
        w16(c->sel[i]);
    for (int i = 0; i < 7; i++)
        w32(c->regs[i]);
    for (const char *h = c->code; h[0] && h[1]; h += 2) {
        unsigned v;
        sscanf(h, "%2x", &v);
        b(v);
    }
    put("corpus/cpu", name, in, len);
}

static void cpu_seeds(void)
{
    /* the issue 13 rows the cpu target must reach, one seed each */
    cpu_seed("exit", &(struct cpu_seed){ .code = "" });
    cpu_seed("top-of-user", &(struct cpu_seed){ .how = TOP,
             .code = "90909090909090909090909090909090" });
    cpu_seed("top-of-user-one", &(struct cpu_seed){ .how = TOP, .code = "90" });
    /* pushf; orl $0x100,(%esp); popf; sysenter */
    cpu_seed("tf-sysenter", &(struct cpu_seed){ .code = "9c810c24000100009d0f34" });
    cpu_seed("tf-sysenter-p3", &(struct cpu_seed){ .cpu = 1, .code = "9c810c24000100009d0f34" });
    cpu_seed("iret-vm", &(struct cpu_seed){ .how = IRET, .eflags = 0x20202, .code = "90" });
    cpu_seed("iret-vm-iopl", &(struct cpu_seed){ .how = IRET, .eflags = 0x23202, .code = "fa" });
    /* int $8 in a based 32-bit code segment, entered by a far jump */
    cpu_seed("tls-code-int8", &(struct cpu_seed){ .how = LJMP,
             .tls = { { 0x00400000, 0xfffff, CODE32 } }, .code = "cd08" });
    /* the same in a 16-bit code segment at the code */
    cpu_seed("tls-code16-int8", &(struct cpu_seed){ .how = LJMP | TLS_ENTRY(1),
             .tls = { { 0 }, { CODE_AT, 0xffff, 0x04 } }, .code = "cd08" });
    cpu_seed("tls-int13-iret", &(struct cpu_seed){ .how = IRET | VIA_TLS,
             .tls = { { 0x00010000, 0xfffff, CODE32 } }, .code = "cd0d" });
    /* getpid by int $0x80 from a based segment, then exit(0) */
    cpu_seed("tls-int80", &(struct cpu_seed){ .how = LCALL,
             .tls = { { 0x00010000, 0xfffff, CODE32 } },
             .code = "b814000000cd80b80100000031dbcd80" });
    cpu_seed("tls-conforming", &(struct cpu_seed){ .how = LJMP,
             .tls = { { 0x00010000, 0xfffff, 0x01 | 0x06 | 0x10 } }, .code = "8cc8cd80" });
    cpu_seed("int6", &(struct cpu_seed){ .code = "90cd06" });
    cpu_seed("icebp", &(struct cpu_seed){ .code = "90f190" });
    /* NT set, sched_yield through the vsyscall page (an iret return) */
    cpu_seed("nt-vsyscall", &(struct cpu_seed){ .eflags = 0x4202,
             .code = "b900f0ffffb89e000000ffd1" });
    /* push $0x202; push $0x73; push $next; iret, with NT set */
    cpu_seed("iret-nt", &(struct cpu_seed){ .eflags = 0x4202,
             .code = "680202000068730000006810000040cf" });
    /* movb $0x40, next; next: nop (then exit) */
    cpu_seed("selfmod", &(struct cpu_seed){ .code = "c6050700004040909090" });
    /* data segments of every kind in DS..GS */
    cpu_seed("segments", &(struct cpu_seed){ .how = SEGS,
             .tls = { { 0x1000, 0xffff, 0x01 }, { 0, 0x10, 0x03 }, { 0, 0xfffff, 0x29 } },
             .sel = { 0x33, 0x3b, 0x43, 0x33 }, .code = "8b0050" });
    cpu_seed("rdtsc-in-out", &(struct cpu_seed){ .code = "0f31e480ec0f32" });
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_seeds tests/fuzz HELLO\n");
        return 2;
    }
    dir = argv[1];
    elf_seeds(argv[2]);
    syscall_seeds();
    gdb_seeds();
    cpu_seeds();
    crash_seeds();
    return 0;
}
