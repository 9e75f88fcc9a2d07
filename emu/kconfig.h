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

/* "up", "smp". */
const char *kconfig_name(int config);
/* The configuration named s, or -1. */
int kconfig_parse(const char *s);
/* A ';'-separated list of configurations ("up;smp") as a bit set (1 <<
 * config), or -1 if an entry is not one, or the list is empty. */
int kconfig_parse_list(const char *list);
/* "pentium4", "pentium3", "i686", "athlon": the -march. */
const char *kmarch_name(int march);

#endif
