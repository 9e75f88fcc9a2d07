# sysemu: one non-recursive Makefile for the emulator, the guest kernel,
# the guest programs and the tests.
#   make / make all   the emulator (the guest kernel built in) and the guest
#                     programs
#   make run          replay the published experiments on the model (the main job)
#   make test         the layer and facts checks, then every test suite
#   make test-asan    the tests under AddressSanitizer + UBSan
#   make test-engines the same bytes from the default engine and the system's
#                     (traces, make run's spans, a busybox run; not in make test)
#   make bench        emu (with and without the cycle model) against qemu-i386
#                     and native on the same static binaries (not in make test)
#   make UNICORN=system ...  the same against the system's Unicorn (pkg-config;
#                     Debian 12's 2.0.1), in build-system/; the default engine
#                     is Unicorn 2.1 (below)
#   make lat          lmbench's process latencies on the four models
#   make validate     lmbench 2.0's latencies beside the published ones (not in make test)
#   make plot         the comparison as an SVG bar chart
#   make traces       regenerate the reference traces in traces/
#   make strace-reference  record Debian's strace of test_strace's i386 runs
#                     on Debian's kernel under qemu-system-x86_64 (not in make test)
#   make fuzz         libFuzzer targets, FUZZ_SECONDS each (tests/fuzz/README.md)
#   make samples      regenerate the samples in README.md and docs/*.md
#   make fixtures     fetch Debian's i386 busybox-static and musl into build/i386
#   make install      the emulator (the kernel is inside it), its man page and
#                     documents under PREFIX (default /usr/local; DESTDIR too)

.DEFAULT_GOAL := all

# The engine. UNICORN=2.1 (the default): the system's Unicorn when it is 2.1
# or newer, otherwise Debian trixie's 2.1 packages, unpacked without root
# into build/unicorn21 (scripts/unicorn21.sh; every build tree shares them),
# whose unicorn.pc pkg-config then finds first. UNICORN=system: the system's
# Unicorn whatever its version (Debian 12's 2.0.1), built in build-system/.
UNICORN ?= 2.1
ifeq ($(UNICORN),2.1)
BUILD ?= build
UC21 := $(CURDIR)/build/unicorn21
UC_READY := $(UC21)/.ok
PKG_CONFIG := PKG_CONFIG_PATH=$(UC21)/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} pkg-config
else ifeq ($(UNICORN),system)
BUILD ?= build-system
UC_READY :=
PKG_CONFIG := pkg-config
else
$(error UNICORN=$(UNICORN): the engine is 2.1 (the default) or system)
endif
SAN ?=
CC ?= cc
DEPS_OK := $(BUILD)/.deps-ok
GEN := $(BUILD)/gen

# pkg-config runs when a recipe needs it, after the dependency check and,
# for the default engine, its unpacking.
UC_CFLAGS = $(shell $(PKG_CONFIG) --cflags unicorn capstone)
# Unicorn and Capstone are linked in statically, into a position-dependent
# binary, when their archives sit beside the shared libraries (Debian's
# libunicorn-dev and libcapstone-dev ship them): the dynamic loader then
# has none of libunicorn.so's 146 000 relocations to do at every start, about
# 6 of a static hello's 40 ms of start-up (docs/performance.md). The binary
# grows from 2.6 to 25 MB. UC_LINK=shared links the shared libraries;
# without either archive they are linked anyway.
UC_LINK ?= static
, := ,
UC_ARCHIVES = $(patsubst %,%/libunicorn.a,$(shell $(PKG_CONFIG) --variable=libdir unicorn)) \
	$(patsubst %,%/libcapstone.a,$(shell $(PKG_CONFIG) --variable=libdir capstone))
UC_STATIC = $(and $(filter static,$(UC_LINK)),$(filter 2,$(words $(wildcard $(UC_ARCHIVES)))))
UC_SHARED_LIBS = $(shell $(PKG_CONFIG) --libs unicorn capstone)
UC_LIBS = $(if $(UC_STATIC),-no-pie $(UC_ARCHIVES) $(filter-out -lunicorn -lcapstone -L% -Wl$(,)-rpath$(,)%,\
	$(shell $(PKG_CONFIG) --static --libs unicorn capstone)),$(UC_SHARED_LIBS))
# The test binaries (61 of them) link the shared libraries: static, each
# would be 25 MB and build/tests 1.5 GB. The tests that run emu run the
# static one.
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS = $(shell pkg-config --libs check)
# Every host object is compiled against the engine's headers: when the
# engine changes (its version, its place), they are built again.
UC_ID := $(BUILD)/gen/unicorn.id
$(UC_ID): FORCE | $(DEPS_OK) $(UC_READY)
	@mkdir -p $(@D)
	@v="$$($(PKG_CONFIG) --modversion --variable=libdir unicorn | tr '\n' ' ')"; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
FORCE:

# ---- the default engine: Unicorn 2.1 (scripts/unicorn21.sh) ----
$(UC21)/.ok: scripts/unicorn21.sh | $(DEPS_OK)
	@sh scripts/unicorn21.sh $(UC21)
	@touch $@

WARN := -Wall -Wextra -Werror
HOST_CFLAGS = -std=gnu11 -fms-extensions -O2 -g $(WARN) $(SAN) $(UC_CFLAGS) -MMD -MP -I$(GEN) -Iemu
HOST_LDFLAGS = $(SAN)

GUEST_CC := gcc
GUEST_CFLAGS := -m32 -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -nostdlib -MMD -MP -I$(GEN) \
	-DSYSEMU_GUEST
GUEST_LDFLAGS := -m32 -static -nostdlib -no-pie -Wl,--build-id=none

# ---- dependency check (installs Debian packages as root) ----
$(DEPS_OK): scripts/ensure-deps.sh
	@mkdir -p $(@D)
	@sh scripts/ensure-deps.sh
	@touch $@

# The tests also compare with Debian's strace, load profiles with valgrind's
# callgrind_annotate, render the man page with man-db and read JSON with jq.
TEST_DEPS_OK := $(BUILD)/.test-deps-ok
$(TEST_DEPS_OK): scripts/ensure-deps.sh
	@mkdir -p $(@D)
	@sh scripts/ensure-deps.sh strace valgrind man-db jq qemu-user
	@touch $@

# ---- generated from guest/syscalls.def: the SYS_* numbers and NR_syscalls ----
SYSCALL_NR := $(GEN)/syscall_nr.h
$(SYSCALL_NR): guest/syscalls.def scripts/syscall-nr.awk
	@mkdir -p $(@D)
	awk -f scripts/syscall-nr.awk guest/syscalls.def > $@.tmp && mv $@.tmp $@

# ---- generated from guest/linux_abi.def: errno, O_*, PROT_*, MAP_*, ... ----
LINUX_ABI := $(GEN)/linux_abi.h
$(LINUX_ABI): guest/linux_abi.def scripts/linux-abi.awk
	@mkdir -p $(@D)
	awk -f scripts/linux-abi.awk guest/linux_abi.def > $@.tmp && mv $@.tmp $@

# ---- guest kernel ----
# Built as 2.5.53's Makefiles built Linux: the top-level Makefile's
# -O2 -fno-strict-aliasing -fno-common -fomit-frame-pointer, and
# arch/i386/Makefile's -pipe -mpreferred-stack-boundary=2 and -march of the
# configured CPU (CONFIG_MPENTIUM4, CONFIG_MPENTIUMIII, CONFIG_M686,
# CONFIG_MK7: -march=athlon). The
# rest is this kernel's own: freestanding, no FPU or vector registers.
# The system-call handlers' arguments are the saved user registers of
# pt_regs (entry.S): a sibling call would write its own arguments over them
# and the caller would get its registers back changed.
KERNEL_CFLAGS := $(GUEST_CFLAGS) \
	-fno-strict-aliasing -fno-common -fomit-frame-pointer \
	-pipe -mpreferred-stack-boundary=2 \
	-fno-builtin -mno-sse -mno-mmx -mgeneral-regs-only -fno-optimize-sibling-calls
KERNEL_SRCS := $(wildcard guest/kernel/*.c) $(wildcard guest/kernel/*.S) \
	$(wildcard guest/vsyscall/*.S)

# The images (docs/cost-model.md, "Kernel configuration"): for the CPU
# family of each model (emu/cost/cpu_models.c, march), a UP kernel and an SMP one
# (CONFIG_SMP, as 2.5.53 built it: no big kernel lock on entry); and the
# kernel for --smp N > 1, which takes the big kernel lock on every entry
# (SMP_BIG_LOCK: this kernel's safety net for several CPUs, not 2.5.53's
# shape), built for i686: one image serves every model, and all of them
# are i686.
KERNEL_MARCHES := pentium4 pentium3 i686 athlon
KERNEL_CONFIGS := up smp
# each image: its -march, its configuration, whether it has SMP_BIG_LOCK,
# and which step of the patch's history it is (--kernel; docs/fidelity.md,
# "Kernel variants"): seed is the patch Linus timed, the default
$(foreach a,$(KERNEL_MARCHES),$(foreach c,$(KERNEL_CONFIGS),$(eval KIMAGE_$(a)-$(c) := $(a) $(c) 0 seed)))
KIMAGE_smp-bkl := i686 smp 1 seed
# The later steps (--kernel 2.5.53|2.5.54|2.6.0): the up configuration of
# the two cores the article timed, no more (each is a whole kernel build).
KERNEL_HISTORY := 2.5.53 2.5.54 2.6.0
KERNEL_HISTORY_MARCHES := pentium4 pentium3
$(foreach a,$(KERNEL_HISTORY_MARCHES),$(foreach v,$(KERNEL_HISTORY),$(eval KIMAGE_$(a)-up-$(v) := $(a) up 0 $(v))))
KERNEL_VARIANTS := $(foreach a,$(KERNEL_MARCHES),$(foreach c,$(KERNEL_CONFIGS),$(a)-$(c))) smp-bkl \
	$(foreach a,$(KERNEL_HISTORY_MARCHES),$(foreach v,$(KERNEL_HISTORY),$(a)-up-$(v)))
kimage_march = $(word 1,$(KIMAGE_$(1)))
kimage_config = $(word 2,$(KIMAGE_$(1)))
kimage_lock = $(word 3,$(KIMAGE_$(1)))
kimage_history = $(word 4,$(KIMAGE_$(1)))
# the step as the guest and the emulator number it (guest/kernel/variant.h,
# emu/image/kconfig.h): 0 the seed, then in order
khist_seed := 0
khist_2.5.53 := 1
khist_2.5.54 := 2
khist_2.6.0 := 3
KFLAGS_up :=
KFLAGS_smp := -DCONFIG_SMP
# and the configured CPU's own option, which the code reads too
# (CONFIG_MPENTIUMIII: prefetch; CONFIG_X86_INTEL_USERCOPY with either;
# CONFIG_MK7: 3DNow!'s prefetch)
KCPU_pentium4 := -DCONFIG_MPENTIUM4
KCPU_pentium3 := -DCONFIG_MPENTIUMIII
KCPU_i686 := -DCONFIG_M686
KCPU_athlon := -DCONFIG_MK7
kernel_flags = -march=$(call kimage_march,$(1)) $(KCPU_$(call kimage_march,$(1))) \
	$(KFLAGS_$(call kimage_config,$(1))) $(if $(filter 1,$(call kimage_lock,$(1))),-DSMP_BIG_LOCK) \
	-DKHIST=$(khist_$(call kimage_history,$(1)))
kernel_elf = $(BUILD)/guest/kernel-$(1).elf
KERNEL_IMAGES := $(foreach v,$(KERNEL_VARIANTS),$(call kernel_elf,$(v)))
# the default image (--cpu pentium4, --kernel-config up)
KERNEL := $(call kernel_elf,pentium4-up)

define kernel_variant
$(BUILD)/kernel/$(1)/%.o: % | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $$(@D)
	$(GUEST_CC) $(KERNEL_CFLAGS) $(call kernel_flags,$(1)) -c $$< -o $$@
$(call kernel_elf,$(1)): $(patsubst %,$(BUILD)/kernel/$(1)/%.o,$(KERNEL_SRCS)) guest/kernel/kernel.ld
	@mkdir -p $$(@D)
	$(GUEST_CC) $(GUEST_LDFLAGS) -T guest/kernel/kernel.ld -o $$@ \
		$(patsubst %,$(BUILD)/kernel/$(1)/%.o,$(KERNEL_SRCS)) -lgcc
endef
$(foreach v,$(KERNEL_VARIANTS),$(eval $(call kernel_variant,$(v))))

# What emu embeds of each image: all of it but the debug information, except
# the line table (.debug_line with its .debug_line_str: the source file and
# line of each instruction, for the callgrind profile's positions). The
# rest of it (types, variables, frames) is for gdb, which reads
# build/guest/kernel-NAME.elf; without it an image is 196 KB instead of
# 607 KB. objcopy copies the loaded sections as they are.
kernel_embedded = $(BUILD)/guest/kernel-$(1).emu.elf
$(BUILD)/guest/kernel-%.emu.elf: $(BUILD)/guest/kernel-%.elf
	objcopy --strip-debug --keep-section=.debug_line --keep-section=.debug_line_str $< $@
KERNEL_EMBEDDED := $(foreach v,$(KERNEL_VARIANTS),$(call kernel_embedded,$(v)))

# And each image's distinct instructions, described by emu's own decoder
# (tools/kinsns.c links emu/cost/decode.c) for emu to seed its memo of
# instructions with: the kernel's blocks then never go to Capstone
# (docs/performance.md, item 52).
KINSNS := $(BUILD)/tools/kinsns
KINSNS_OBJS := $(BUILD)/tools/kinsns.c.o $(BUILD)/emu/cost/decode.c.o \
	$(BUILD)/emu/cost/rep_count.c.o $(BUILD)/emu/image/elf32.c.o
$(BUILD)/tools/%.c.o: tools/%.c $(UC_ID) | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(KINSNS): $(KINSNS_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ $(UC_SHARED_LIBS)
kernel_insns = $(BUILD)/guest/kernel-$(1).insns
$(BUILD)/guest/kernel-%.insns: $(BUILD)/guest/kernel-%.emu.elf $(KINSNS)
	$(KINSNS) $< $@
KERNEL_INSNS := $(foreach v,$(KERNEL_VARIANTS),$(call kernel_insns,$(v)))

# The same list for the emulator (emu/image/kernel_image.S embeds the images,
# emu/image/ksyms.c chooses among them): X(symbol, name, file, insns, march, config,
# lock, history).
KERNEL_IMAGES_H := $(GEN)/kernel_images.h
kimage_upper = $(shell echo $(1) | tr a-z A-Z)
kimage_x = X(kernel_$(subst .,_,$(subst -,_,$(1))), "$(1)", "$(call kernel_embedded,$(1))", \
	"$(call kernel_insns,$(1))", \
	MARCH_$(call kimage_upper,$(call kimage_march,$(1))), \
	KCONFIG_$(call kimage_upper,$(call kimage_config,$(1))), $(call kimage_lock,$(1)), \
	$(khist_$(call kimage_history,$(1))))
$(KERNEL_IMAGES_H): Makefile
	@mkdir -p $(@D)
	@{ echo '/* Generated by the Makefile (KERNEL_VARIANTS): do not edit. */'; \
	  echo '#define KERNEL_IMAGES(X) \'; \
	  $(foreach v,$(KERNEL_VARIANTS),echo '    $(call kimage_x,$(v)) \';) \
	  echo; } > $@.tmp && mv $@.tmp $@

# ---- guest programs (static i386, no libc) ----
# the vDSO look-up and the fuzz programs' input: an archive, so only the
# programs that call them link them in (the others stay as they were)
MINI_ARCHIVED := guest/programs/mini/vdso.c guest/programs/mini/input.c
MINI_SRCS := $(filter-out $(MINI_ARCHIVED),$(wildcard guest/programs/mini/*.c)) \
	$(wildcard guest/programs/mini/*.S)
MINI_OBJS := $(patsubst %,$(BUILD)/%.o,$(MINI_SRCS))
MINI_LIB := $(BUILD)/guest/programs/mini/libmini.a
$(MINI_LIB): $(patsubst %,$(BUILD)/%.o,$(MINI_ARCHIVED))
	rm -f $@ && ar rcs $@ $^
PROGRAM_SRCS := $(wildcard guest/programs/*.c)
PROGRAMS := $(patsubst guest/programs/%.c,$(BUILD)/guest/programs/%,$(PROGRAM_SRCS))

$(BUILD)/guest/programs/%.c.o: guest/programs/%.c | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@
$(BUILD)/guest/programs/%.S.o: guest/programs/%.S | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@
$(BUILD)/guest/programs/%: $(BUILD)/guest/programs/%.c.o $(MINI_OBJS) $(MINI_LIB)
	$(GUEST_CC) $(GUEST_LDFLAGS) -o $@ $^ -lgcc

# Linus's loop with a direct call to the page's entry where the later steps
# have it (--kernel; guest/kernel/variant.h): 2.5.53 and 2.5.54 at
# 0xffffe000, 2.6.0 past the page's ELF header, as Linus's program built
# for 2.6 called 0xffffe400
LINUS_LOOP_2553 := $(BUILD)/guest/programs/linus_loop-2.5.53
LINUS_LOOP_26 := $(BUILD)/guest/programs/linus_loop-2.6.0
linus_loop_entry_2.5.53 := 0xffffe000
linus_loop_entry_2.6.0 := 0xffffe400
$(BUILD)/guest/programs/linus_loop-%.c.o: guest/programs/linus_loop.c Makefile | $(DEPS_OK) $(SYSCALL_NR)
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -DPAGE_ENTRY=$(linus_loop_entry_$*) -c $< -o $@
$(LINUS_LOOP_2553) $(LINUS_LOOP_26): $(BUILD)/guest/programs/linus_loop-%: \
		$(BUILD)/guest/programs/linus_loop-%.c.o $(MINI_OBJS) $(MINI_LIB)
	$(GUEST_CC) $(GUEST_LDFLAGS) -o $@ $^ -lgcc

# ---- the emulator ----
EMU_SRCS := $(wildcard emu/*/*.c)
EMU_OBJS := $(patsubst %,$(BUILD)/%.o,$(EMU_SRCS)) $(BUILD)/emu/image/kernel_image.S.o
EMU_LIB_OBJS := $(filter-out $(BUILD)/emu/cli/main.c.o,$(EMU_OBJS))
EMU := $(BUILD)/emu/emu

$(BUILD)/emu/%.c.o: emu/%.c $(UC_ID) | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/emu/image/kernel_image.S.o: emu/image/kernel_image.S $(KERNEL_EMBEDDED) $(KERNEL_INSNS) \
		$(KERNEL_IMAGES_H)
	@mkdir -p $(@D)
	$(CC) -c -I$(GEN) $< -o $@
$(BUILD)/emu/image/ksyms.c.o: $(KERNEL_IMAGES_H)
# The version --version prints: the commit the binary was built from. The
# header is rewritten only when that changes, and main.c rebuilt then.
EMU_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_H := $(BUILD)/gen/emu_version.h
$(shell mkdir -p $(BUILD)/gen && v='#define EMU_VERSION "$(EMU_VERSION)"' && \
	{ [ "$$(cat $(VERSION_H) 2>/dev/null)" = "$$v" ] || echo "$$v" > $(VERSION_H); })
$(BUILD)/emu/cli/main.c.o: $(VERSION_H)
$(EMU): $(EMU_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ $(UC_LIBS) -lm

# ---- tests ----
TEST_SRCS := $(wildcard tests/test_*.c)
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_SUPPORT := $(BUILD)/tests/support.c.o $(BUILD)/tests/machines.c.o

$(BUILD)/tests/%.c.o: tests/%.c $(UC_ID) | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CHECK_CFLAGS) -DEMU_PATH='"$(EMU)"' -DBUILD_DIR='"$(BUILD)"' -c $< -o $@
$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.c.o $(TEST_SUPPORT) $(EMU_LIB_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(UC_SHARED_LIBS) -lm

# The GDB stub's tests run it over a fake machine (tests/gdb_fake.h); the
# helper server puts that on a TCP port for Debian's gdb to attach to.
GDB_FAKE := $(BUILD)/tests/gdb_fake.c.o
GDB_FAKE_SERVER := $(BUILD)/tests/gdb_fake_server
GDB_STUB_OBJS = $(filter-out $(BUILD)/emu/gdb/gdb_machine.c.o,$(filter $(BUILD)/emu/gdb%,$(EMU_OBJS)))
$(GDB_FAKE_SERVER): $(BUILD)/tests/gdb_fake_server.c.o $(GDB_FAKE) $(GDB_STUB_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^
GDB_RIG := $(BUILD)/tests/gdb_rig.c.o
$(BUILD)/tests/test_gdbstub $(BUILD)/tests/test_gdbstub_hostile: $(GDB_FAKE) $(GDB_RIG)
$(BUILD)/tests/test_gdb_client: | $(GDB_FAKE_SERVER)
# The debugger's hold in this process (tests/debug_rig.h).
$(BUILD)/tests/test_debug $(BUILD)/tests/test_debug_steps $(BUILD)/tests/test_debug_watch \
	$(BUILD)/tests/test_debug_mem: $(BUILD)/tests/debug_rig.c.o
# A Chrome Trace Event file's events, as jq reads them (tests/chrome_trace.h).
$(BUILD)/tests/test_trace $(BUILD)/tests/test_perfetto $(BUILD)/tests/test_trace_json: \
	$(BUILD)/tests/chrome_trace.c.o
# emu run --gdb in a child, with Debian's gdb or a raw socket (tests/emu_gdb.h).
$(BUILD)/tests/test_gdb_machine $(BUILD)/tests/test_gdb_machine_hostile \
	$(BUILD)/tests/test_docs: $(BUILD)/tests/emu_gdb.c.o

# ---- real static i386 programs: glibc, musl, busybox (tests/test_static.c) ----
# Each guest/programs/static/NAME.c becomes static/NAME-glibc (gcc-multilib's
# glibc) and static/NAME-musl (Debian's i386 musl); busybox is Debian's
# busybox-static, zsh its zsh-static. scripts/i386-fixtures.sh fetches the
# i386 packages.
I386_DIR := $(BUILD)/i386
I386_OK := $(I386_DIR)/.ok
MUSL_LIB := $(I386_DIR)/root/usr/lib/i386-linux-musl
MUSL_INC := $(I386_DIR)/root/usr/include/i386-linux-musl
STATIC_NAMES := $(basename $(notdir $(wildcard guest/programs/static/*.c)))
STATIC_BINS := $(foreach n,$(STATIC_NAMES),$(BUILD)/static/$(n)-glibc $(BUILD)/static/$(n)-musl) \
	$(BUILD)/static/hello-glibc-pie
STATIC_CFLAGS := -m32 -std=gnu11 -O2 $(WARN) -fno-pie -fno-stack-protector

$(I386_OK): scripts/i386-fixtures.sh | $(DEPS_OK)
	@sh scripts/i386-fixtures.sh $(I386_DIR)
	@touch $@
# just those (make test fetches them too)
.PHONY: fixtures
fixtures: $(I386_OK)
$(BUILD)/static/%-glibc: guest/programs/static/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(GUEST_CC) $(STATIC_CFLAGS) -static -no-pie -o $@ $<
# a static position-independent program, loaded where the kernel puts it
$(BUILD)/static/%-glibc-pie: guest/programs/static/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(GUEST_CC) $(STATIC_CFLAGS:-fno-pie=) -static-pie -o $@ $<
$(BUILD)/static/%-musl.o: guest/programs/static/%.c $(I386_OK)
	@mkdir -p $(@D)
	$(GUEST_CC) $(STATIC_CFLAGS) -nostdinc -isystem $(MUSL_INC) -c $< -o $@
$(BUILD)/static/%-musl: $(BUILD)/static/%-musl.o
	$(GUEST_CC) -m32 -static -no-pie -nostdlib -o $@ $(MUSL_LIB)/crt1.o $(MUSL_LIB)/crti.o \
		$< $(MUSL_LIB)/libc.a $$($(GUEST_CC) -m32 -print-libgcc-file-name) $(MUSL_LIB)/crtn.o
# A dynamically linked i386 program: execve refuses it (test_fork).
DYNAMIC_BIN := $(BUILD)/static/hello-dynamic
$(DYNAMIC_BIN): guest/programs/static/hello.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(GUEST_CC) -m32 -std=gnu11 -O2 $(WARN) -o $@ $<
# The tests run these (test_static, test_tree, test_strace, test_report,
# test_compare, test_fork).
$(TESTS): | $(STATIC_BINS) $(DYNAMIC_BIN) $(I386_OK) $(TEST_DEPS_OK)

# ---- a guest program with each DWARF version's line table ----
# tests/test_dwarf_line.c reads them beside addr2line (its own C unit in
# version N, the mini library's in gcc's default, 5).
DWARF_BINS := $(foreach v,2 3 4 5,$(BUILD)/dwarf/syscall_loop-dwarf$(v))
$(DWARF_BINS): $(BUILD)/dwarf/syscall_loop-dwarf%: guest/programs/syscall_loop.c $(MINI_OBJS) $(MINI_LIB) \
		| $(DEPS_OK) $(SYSCALL_NR)
	@mkdir -p $(@D)
	$(GUEST_CC) $(GUEST_CFLAGS) -gdwarf-$* $(GUEST_LDFLAGS) -o $@ $< $(MINI_OBJS) $(MINI_LIB) -lgcc
$(BUILD)/tests/test_dwarf_line: | $(DWARF_BINS) $(KERNEL) $(PROGRAMS)

# ---- fuzzing (tests/fuzz/README.md) ----
# The replay test runs every corpus and crash file through the fuzz harness.
# The snapshot the harness restores for each input is the harness's own
# (tests/fuzz/snapshot.h), not linked into emu.
FUZZ_HARNESS := $(patsubst %,$(BUILD)/tests/fuzz/%.c.o,harness snapshot addrspace_save vfs_clone) $(GDB_FAKE)
$(BUILD)/tests/test_fuzz_replay: $(FUZZ_HARNESS)
FUZZ_TARGETS := elf syscall gdb cpu
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_SECONDS ?= 60
# No comparison tracing: it costs a quarter of the run time in the per-block
# hooks, and the input is parsed by the guest kernel, which it cannot see.
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -fno-sanitize-coverage=trace-cmp

$(BUILD)/fuzz/target_%.o: tests/fuzz/fuzz_target.c $(UC_ID) | $(DEPS_OK) $(SYSCALL_NR) $(LINUX_ABI)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DFUZZ_TARGET_NAME='"$*"' -c $< -o $@
# tests/fuzz/plain_memcmp.c's memcmp takes the place of the sanitizer's
# interceptor (a weak symbol), which handed every call of Unicorn's
# translator to libFuzzer's comparison hook.
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/target_%.o $(FUZZ_HARNESS) $(EMU_LIB_OBJS) \
		$(BUILD)/tests/fuzz/plain_memcmp.c.o
	$(CC) $(HOST_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(UC_LIBS) -lm
fuzz-targets: $(FUZZ_BINS) $(BUILD)/guest/programs/syscall_fuzz $(BUILD)/guest/programs/cpu_fuzz

# Regenerate the committed seed corpora (tests/fuzz/make_seeds.c).
fuzz-seeds: $(BUILD)/guest/programs/hello $(SYSCALL_NR)
	@mkdir -p $(BUILD)/fuzz tests/fuzz/corpus/elf tests/fuzz/corpus/syscall tests/fuzz/corpus/gdb \
		tests/fuzz/corpus/cpu tests/fuzz/crashes/elf
	$(CC) -std=gnu11 -O2 $(WARN) -I$(GEN) -o $(BUILD)/fuzz/make_seeds tests/fuzz/make_seeds.c
	$(BUILD)/fuzz/make_seeds tests/fuzz $(BUILD)/guest/programs/hello

fuzz:
	@sh scripts/ensure-deps.sh clang-14 libclang-rt-14-dev
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang-14 SAN='$(FUZZ_SAN)' fuzz-targets
	@sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Objects made by chained pattern rules are kept, so nothing rebuilds twice.
.SECONDARY:

.PHONY: all run test test-asan test-engines test-unicorn21 bench lat validate plot clean traces strace-reference samples fuzz fuzz-targets fuzz-seeds install
all: $(EMU) $(PROGRAMS) $(LINUS_LOOP_2553) $(LINUS_LOOP_26) $(KERNEL)

# The replays' loop count. The published experiments made 10^6 calls per loop
# (make run REPLAY_N=1000000 replays them exactly, in about two minutes); the
# model is deterministic and the counts are linear in N, so 10^5 prints the
# same figures: per iteration they differ by the loop's fixed cost over N,
# under 0.001 cycles (README, "What make run shows").
REPLAY_N ?= 100000
REPLAYS := $(BUILD)/guest/programs/linus_loop $(BUILD)/guest/programs/lmbench_null \
	$(LINUS_LOOP_2553) $(LINUS_LOOP_26)
# the steps of the patch's history make run sets beside the seed (--kernel)
RUN_KERNELS := 2.5.53-seed $(KERNEL_HISTORY)
run: $(EMU) $(REPLAYS)
	@echo "sysenter vs int \$$0x80 on the cycle model: the published experiments replayed,"
	@echo "with intervals from the ranges of every cost (docs/cost-model.md), on the up and"
	@echo "the smp kernel (--kernel-configs; docs/cost-model.md, \"Kernel configuration\")"
	@echo
	@echo "== Linus's test of 16 Dec 2002 with gettimeofday: what the model predicts"
	@$(EMU) compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3" $(BUILD)/guest/programs/linus_loop gettimeofday $(REPLAY_N)
	@echo
	@echo "== the same test with getppid: the P4 calibration points"
	@$(EMU) compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3" $(BUILD)/guest/programs/linus_loop getppid $(REPLAY_N)
	@echo
	@echo "== lmbench's null call: the P6 calibration point, and Linus's P4 pair of 25 Feb 2003 held out"
	@$(EMU) compare --article --kernel-configs "up;smp" --cpus "pentium4;pentium3,-sep" $(BUILD)/guest/programs/lmbench_null $(REPLAY_N)
	@echo
	@echo "== Linus's loop on the patch's later shapes (--kernel, up; docs/fidelity.md, \"Kernel variants\"):"
	@echo "   the seed's figure, then what 2.5.53 and 2.5.54 as released and 2.6.0 make of the same loop"
	@for s in gettimeofday getppid; do for k in $(RUN_KERNELS); do \
		$(EMU) compare --kernel $$k --cpus "pentium4;pentium3" \
			$(BUILD)/guest/programs/linus_loop$$(case $$k in *-seed) ;; 2.6.0) echo -2.6.0;; *) echo -2.5.53;; esac) \
			$$s $(REPLAY_N) \
			| sed -n "s/^\(pentium[34] $$s: sysenter [^(]*\).*/  $$k  \1/p" | sed 's/  2.5.53  /  2.5.53       /; s/  2.5.54  /  2.5.54       /; s/  2.6.0  /  2.6.0        /'; \
	done; done
	@echo
	@echo "== the AMD K7 (athlon) and the Pentium M (pentium-m): a PREDICTION from published"
	@echo "   instruction tables alone (docs/cost-model.md, rule N); nothing calibrated, and no"
	@echo "   published timing of these calls on these parts went into it"
	@for f in getppid gettimeofday; do \
		$(EMU) compare --cpus "athlon;pentium-m" $(BUILD)/guest/programs/linus_loop $$f $(REPLAY_N) | \
			sed -n -e '/^cpu /,/^$$/p' -e '/ of the time /p'; \
	done

# SUITES="test_engine test_run": make test runs only those suites.
RUN_TESTS = $(if $(SUITES),$(patsubst %,$(BUILD)/tests/%,$(SUITES)),$(TESTS))
test: all $(RUN_TESTS)
	@sh scripts/check-layers.sh
	@sh scripts/check-facts.sh
	@sh tests/run-tests.sh $(RUN_TESTS)

test-asan:
	@LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan-unicorn.supp:print_suppressions=0 \
	$(MAKE) --no-print-directory BUILD=$(BUILD)-asan \
		SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' test

# The same machine on both engines (tests/cross-engine.sh): the default
# build's emu and UNICORN=system's run the reference traces, make run's
# comparisons and a busybox md5sum, and write the same bytes.
test-engines:
	@$(MAKE) --no-print-directory UNICORN=2.1 BUILD=build all build/i386/.ok
	@$(MAKE) --no-print-directory UNICORN=system BUILD=build-system build-system/emu/emu
	@sh tests/cross-engine.sh build build-system $(REPLAY_N)
# The old name of the tests on Unicorn 2.1, which make test now runs.
test-unicorn21: test

# qemu-i386 (Debian's qemu-user) runs the same binaries; time measures the
# start-up's memory.
BENCH_PROGRAMS := $(patsubst %,$(BUILD)/guest/programs/%,compute_loop syscall_loop vm lat) \
	$(BUILD)/static/hello-glibc $(BUILD)/static/lat_ppid-glibc
bench: $(EMU) $(BENCH_PROGRAMS) $(I386_OK)
	@sh scripts/ensure-deps.sh qemu-user time
	@bash tests/bench.sh $(BUILD)

# The reference traces that tests/test_traces.c compares against.
TRACE_CPUS := pentium4 pentium4,-sep pentium3 pentium3,-sep pentiumpro
# And each measured path once (guest/programs/paths.c) on the two cores
# under each kernel configuration.
TRACE_PATHS := pentium4:up pentium4:smp pentium3:up pentium3:smp
traces: $(EMU) $(BUILD)/guest/programs/one_call $(BUILD)/guest/programs/paths
	@for c in $(TRACE_CPUS); do \
		f=traces/$$(echo $$c | sed 's/,-sep/-nosep/').txt; \
		$(EMU) run --cpu $$c --argv0 one_call --trace $$f --trace-insns \
			$(BUILD)/guest/programs/one_call gettimeofday && echo "wrote $$f"; \
	done
	@for p in $(TRACE_PATHS); do \
		f=traces/paths-$${p%:*}-$${p#*:}.txt; \
		$(EMU) run --cpu $${p%:*} --kernel-config $${p#*:} --argv0 paths --trace $$f \
			--trace-insns $(BUILD)/guest/programs/paths && echo "wrote $$f"; \
	done

# Debian's strace of the runs tests/test_strace.c compares with, recorded on
# Debian's amd64 kernel under qemu-system-x86_64 (TCG) for hosts whose kernel
# runs no i386 program (traces/strace/README.md); slow, so not part of test.
strace-reference: $(BUILD)/guest/programs/strace_calls $(BUILD)/guest/programs/strace_signals $(BUILD)/guest/programs/faults
	@sh scripts/record-strace-reference.sh $(BUILD)

# lmbench's lat_pipe, lat_proc fork/exec and lat_ctx, in modeled cycles
# (guest/programs/lat.c)
lat: $(EMU) $(BUILD)/guest/programs/lat
	@$(EMU) compare $(BUILD)/guest/programs/lat all 1000

# lmbench 2.0's processor and process latencies (guest/programs/lmbench_validate.c)
# beside the lmbench summaries published for a P4 and a P6 of 2002, a check
# of the model that sets no cost (docs/validation.md); not in make test. The
# model is deterministic, so a few thousand operations give the figure.
VALIDATE_N ?= 2000
VALIDATE_OPS := null io stat open sigi sigc prot pipe ctx fork exec
# make validate KERNEL=2.6.0: the table on a later step of the patch's
# history (up only); the default is the seed
KERNEL ?= 2.5.53-seed
validate: $(EMU) $(BUILD)/guest/programs/lmbench_validate
	@echo "lmbench 2.0's latencies on the model (kernel $(KERNEL)), beside the published summaries (docs/validation.md):"
	@echo "cycles per operation [interval], the same in us at the published clock, the published"
	@echo "figure [its interval by rule P], and inside/overlaps/outside; the published figures are"
	@echo "int \$$0x80 ones, compared with the runs without SEP; the sysenter runs are printed beside"
	@rm -f $(BUILD)/validate.txt
	@for op in $(VALIDATE_OPS); do \
		echo; \
		$(EMU) compare --kernel $(KERNEL) --validate $(BUILD)/guest/programs/lmbench_validate $$op $(VALIDATE_N) \
			> $(BUILD)/validate.op || exit 1; \
		cat $(BUILD)/validate.op | tee -a $(BUILD)/validate.txt; \
	done
	@awk -f scripts/validate-summary.awk $(BUILD)/validate.txt
	@echo
	@echo "The context switch (ctx) on each step of the patch's history, up, per CPU: 2.5.53 and 2.5.54"
	@echo "write SYSENTER_CS and SYSENTER_ESP at every switch where SEP is used (docs/fidelity.md):"
	@for k in $(RUN_KERNELS); do \
		$(EMU) compare --kernel $$k --kernel-configs up --validate $(BUILD)/guest/programs/lmbench_validate ctx \
			$(VALIDATE_N) | sed -n "s/^  \(pentium[34][^ ]*\) *\(sysenter\|int80\) *\([0-9.]* \[[^]]*\] cycles\).*/  $$k	\1	\2	\3/p" || exit 1; \
	done
# tests/test_validate.c runs these
$(BUILD)/tests/test_validate: | $(EMU) $(BUILD)/guest/programs/lmbench_validate \
	$(BUILD)/guest/programs/syscall_loop

# The samples of README.md and docs/*.md (tests/test_docs.c checks them), as
# the commands print them now (scripts/doc-samples.py says how a sample is marked).
samples: all $(I386_OK)
	@python3 scripts/doc-samples.py README.md $(wildcard docs/*.md)

plot: $(EMU) $(BUILD)/guest/programs/syscall_loop
	@$(EMU) compare --svg $(BUILD)/compare-gettimeofday.svg \
		$(BUILD)/guest/programs/syscall_loop gettimeofday 10000
	@echo "wrote $(BUILD)/compare-gettimeofday.svg"

# One binary (the guest kernel is linked into it), the man page, the
# documents; nothing else is read at run time.
PREFIX ?= /usr/local
DESTDIR ?=
# The documents keep their places in the tree under share/doc/sysemu, so the
# links between them work there too; every file README.md, docs/*.md and the
# man page link to is one of them (tests/test_docs.c checks it).
DOCS := README.md $(wildcard docs/*.md) docs/emu.1 traces/strace/README.md tests/fuzz/README.md
DOC_DIR = $(DESTDIR)$(PREFIX)/share/doc/sysemu
install: $(EMU)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(EMU) $(DESTDIR)$(PREFIX)/bin/emu
	install -m 644 docs/emu.1 $(DESTDIR)$(PREFIX)/share/man/man1/emu.1
	for f in $(DOCS); do install -D -m 644 $$f $(DOC_DIR)/$$f || exit 1; done

clean:
	rm -rf build build-system build-asan build-system-asan build-fuzz

# The compilers' dependency files, named as targets with nothing to do, so
# that no pattern rule (a program from its NAME.c.o) tries to make one.
DEP_FILES := $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
$(DEP_FILES): ;
-include $(DEP_FILES)
