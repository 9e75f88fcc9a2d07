#include "gdb/gdb_i386.h"

/* name, bits, GDB type, extra attributes; in GDB's register order. */
#define I386_REGS(X)                                                          \
    X(eax, 32, "int32", "") X(ecx, 32, "int32", "") X(edx, 32, "int32", "")   \
    X(ebx, 32, "int32", "") X(esp, 32, "data_ptr", "")                        \
    X(ebp, 32, "data_ptr", "") X(esi, 32, "int32", "") X(edi, 32, "int32", "") \
    X(eip, 32, "code_ptr", "") X(eflags, 32, "i386_eflags", "")               \
    X(cs, 32, "int32", "") X(ss, 32, "int32", "") X(ds, 32, "int32", "")      \
    X(es, 32, "int32", "") X(fs, 32, "int32", "") X(gs, 32, "int32", "")      \
    X(st0, 80, "i387_ext", "") X(st1, 80, "i387_ext", "")                     \
    X(st2, 80, "i387_ext", "") X(st3, 80, "i387_ext", "")                     \
    X(st4, 80, "i387_ext", "") X(st5, 80, "i387_ext", "")                     \
    X(st6, 80, "i387_ext", "") X(st7, 80, "i387_ext", "")                     \
    X(fctrl, 32, "int", FLOAT) X(fstat, 32, "int", FLOAT)                     \
    X(ftag, 32, "int", FLOAT) X(fiseg, 32, "int", FLOAT)                      \
    X(fioff, 32, "int", FLOAT) X(foseg, 32, "int", FLOAT)                     \
    X(fooff, 32, "int", FLOAT) X(fop, 32, "int", FLOAT)

/* The system registers (gdb_i386.h), after the core in GDB's numbering. */
#define I386_SYS_REGS(X)                                                      \
    X(cr0, 32, "i386_cr0", SYSTEM) X(cr2, 32, "data_ptr", SYSTEM)                \
    X(cr3, 32, "data_ptr", SYSTEM) X(cr4, 32, "int32", SYSTEM)                \
    X(cs_base, 32, "data_ptr", SYSTEM) X(ss_base, 32, "data_ptr", SYSTEM)     \
    X(ds_base, 32, "data_ptr", SYSTEM) X(es_base, 32, "data_ptr", SYSTEM)     \
    X(fs_base, 32, "data_ptr", SYSTEM) X(gs_base, 32, "data_ptr", SYSTEM)     \
    X(sysenter_cs, 32, "int32", SYSTEM) X(sysenter_esp, 32, "data_ptr", SYSTEM) \
    X(sysenter_eip, 32, "code_ptr", SYSTEM)

#define FLOAT " group=\"float\""
#define SYSTEM " group=\"system\""

#define BYTES(n, bits, type, extra) (bits) / 8,
#define XML(n, bits, type, extra) \
    "    <reg name=\"" #n "\" bitsize=\"" #bits "\" type=\"" type "\"" extra "/>\n"

static const unsigned char bytes[] = { I386_REGS(BYTES) I386_SYS_REGS(BYTES) };

/* EFLAGS as GDB shows it: "[ IF ZF PF ]". Bit 1 is reserved (always 1). */
static const char target_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
    "<target version=\"1.0\">\n"
    "  <architecture>i386</architecture>\n"
    "  <feature name=\"org.gnu.gdb.i386.core\">\n"
    "    <flags id=\"i386_eflags\" size=\"4\">\n"
    "      <field name=\"CF\" start=\"0\" end=\"0\"/>\n"
    "      <field name=\"\" start=\"1\" end=\"1\"/>\n"
    "      <field name=\"PF\" start=\"2\" end=\"2\"/>\n"
    "      <field name=\"AF\" start=\"4\" end=\"4\"/>\n"
    "      <field name=\"ZF\" start=\"6\" end=\"6\"/>\n"
    "      <field name=\"SF\" start=\"7\" end=\"7\"/>\n"
    "      <field name=\"TF\" start=\"8\" end=\"8\"/>\n"
    "      <field name=\"IF\" start=\"9\" end=\"9\"/>\n"
    "      <field name=\"DF\" start=\"10\" end=\"10\"/>\n"
    "      <field name=\"OF\" start=\"11\" end=\"11\"/>\n"
    "      <field name=\"NT\" start=\"14\" end=\"14\"/>\n"
    "      <field name=\"RF\" start=\"16\" end=\"16\"/>\n"
    "      <field name=\"VM\" start=\"17\" end=\"17\"/>\n"
    "      <field name=\"AC\" start=\"18\" end=\"18\"/>\n"
    "      <field name=\"VIF\" start=\"19\" end=\"19\"/>\n"
    "      <field name=\"VIP\" start=\"20\" end=\"20\"/>\n"
    "      <field name=\"ID\" start=\"21\" end=\"21\"/>\n"
    "    </flags>\n"
    I386_REGS(XML)
    "  </feature>\n"
    "  <feature name=\"org.sysemu.i386.sys\">\n"
    "    <flags id=\"i386_cr0\" size=\"4\">\n"
    "      <field name=\"PE\" start=\"0\" end=\"0\"/>\n"
    "      <field name=\"MP\" start=\"1\" end=\"1\"/>\n"
    "      <field name=\"EM\" start=\"2\" end=\"2\"/>\n"
    "      <field name=\"TS\" start=\"3\" end=\"3\"/>\n"
    "      <field name=\"ET\" start=\"4\" end=\"4\"/>\n"
    "      <field name=\"NE\" start=\"5\" end=\"5\"/>\n"
    "      <field name=\"WP\" start=\"16\" end=\"16\"/>\n"
    "      <field name=\"AM\" start=\"18\" end=\"18\"/>\n"
    "      <field name=\"NW\" start=\"29\" end=\"29\"/>\n"
    "      <field name=\"CD\" start=\"30\" end=\"30\"/>\n"
    "      <field name=\"PG\" start=\"31\" end=\"31\"/>\n"
    "    </flags>\n"
    I386_SYS_REGS(XML)
    "  </feature>\n"
    "</target>\n";

_Static_assert(sizeof bytes == GDB_NREGS, "one size per register");
_Static_assert(GDB_NREGS - GDB_SYS == 13, "the system registers, in gdb_i386.h's order");

size_t gdb_i386_reg_size(int regno)
{
    return regno >= 0 && regno < GDB_NREGS ? bytes[regno] : 0;
}

size_t gdb_i386_reg_offset(int regno)
{
    size_t off = 0;
    for (int i = 0; i < regno && i < GDB_NREGS; i++)
        off += bytes[i];
    return off;
}

const char *gdb_i386_target_xml(size_t *len)
{
    *len = sizeof target_xml - 1;
    return target_xml;
}
