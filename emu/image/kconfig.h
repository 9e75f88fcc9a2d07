/*
 * The guest kernel's configuration, an input of the experiment like the CPU
 * model: Linux 2.5.53 could be built UP or SMP (CONFIG_SMP), and which
 * configuration Linus's machines ran was not published. Each CPU family is
 * built as 2.5.53's arch/i386/Makefile built it (-march); docs/cost-model.md,
 * "Kernel configuration".
 */
#ifndef EMU_KCONFIG_H
#define EMU_KCONFIG_H

enum kernel_config { KCONFIG_UP, KCONFIG_SMP, NKCONFIGS };

/* The CPU choice of 2.5.53's configuration, by the -march it compiles with. */
enum kernel_march { MARCH_PENTIUM4, MARCH_PENTIUM3, MARCH_I686, MARCH_ATHLON, NMARCHES };

/* The step of the sysenter patch's history the kernel is built as
 * (--kernel; docs/fidelity.md, "Kernel variants"): the seed patch Linus
 * timed on 16 December 2002 (the default), 2.5.53 and 2.5.54 as released,
 * and 2.6.0's shape. The numbers are the guest's KHIST
 * (guest/kernel/variant.h). */
enum kernel_history { KHIST_SEED, KHIST_2_5_53, KHIST_2_5_54, KHIST_2_6_0, NKHIST };

/* "up", "smp". */
const char *kconfig_name(int config);
/* The configuration named s, or -1. */
int kconfig_parse(const char *s);
/* A ';'-separated list of configurations ("up;smp") as a bit set (1 <<
 * config), or -1 if an entry is not one, or the list is empty. */
int kconfig_parse_list(const char *list);
/* "pentium4", "pentium3", "i686", "athlon": the -march. */
const char *kmarch_name(int march);

/* "2.5.53-seed", "2.5.53", "2.5.54", "2.6.0". */
const char *khist_name(int history);
/* The step named s, or -1. */
int khist_parse(const char *s);

#endif
