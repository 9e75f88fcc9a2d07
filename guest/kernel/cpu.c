/* What the boot CPU is, from CPUID, with the SEP erratum applied. */
#include "kernel.h"

struct cpuinfo boot_cpu;

void identify_cpu(void)
{
    uint32_t a, b, c, d;

    cpuid(0, &a, &b, &c, &d);
    boot_cpu.max_leaf = a;
    memcpy(boot_cpu.vendor + 0, &b, 4);
    memcpy(boot_cpu.vendor + 4, &d, 4);
    memcpy(boot_cpu.vendor + 8, &c, 4);
    boot_cpu.vendor[12] = 0;
    if (boot_cpu.max_leaf < 1)
        return;

    cpuid(1, &a, &b, &c, &d);
    boot_cpu.signature = a;
    boot_cpu.family = (a >> 8) & 0xf;
    boot_cpu.model = (a >> 4) & 0xf;
    boot_cpu.stepping = a & 0xf;
    boot_cpu.features = d;

    /*
     * Linux 2.5.53's check: every family-6 part reports SEP, but the Pentium
     * Pro does not support sysenter (Intel: nothing before model 3 stepping
     * 3). The check looks at the stepping alone, so a Pentium Pro of
     * stepping 3 or later passes it (docs/cost-model.md, "Pentium Pro").
     */
    if (boot_cpu.family == 6 && boot_cpu.model < 3 && boot_cpu.stepping < 3)
        boot_cpu.features &= ~CPUID_FEATURE_SEP;

    printk("CPU: %s family %u model %u stepping %u, SEP %s",
           boot_cpu.vendor, boot_cpu.family, boot_cpu.model, boot_cpu.stepping,
           cpu_has(CPUID_FEATURE_SEP) ? "on" : "off");
}
