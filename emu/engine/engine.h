/*
 * The engine: Unicorn 2.1 (the default build) and 2.0.1 as Debian 12
 * ships it (make UNICORN=system), and every place this project works
 * around them. docs/unicorn.md tells each story at length;
 * here is the list, each with its workaround and the test that shows it.
 *
 *  1. Spurious #DF. The engine never finishes delivering an exception, so
 *     its "exception in flight" stays set, and the next fault is reported
 *     as a double fault, the one after as a triple fault (upstream issue
 *     #1883). engine_take_exception() clears it after each fault, and
 *     engine_clear_in_flight() after a stop for the debugger, which can
 *     leave it set with no fault reported.
 *     Test: test_trap many_faults_in_one_engine_are_never_double_faults.
 *  2. The error code of an exception, and whether the vector came from an
 *     int n or a fault, are not in the API. engine_probe_layout_on() finds
 *     where the saved CPU context keeps them (and the in-flight field of
 *     1) by raising known faults and an int on the machine's engine at
 *     start-up, before anything is mapped, and leaves the engine as it
 *     was; engine_take_exception() reads them. Tests: test_engine
 *     probe_finds_error_code_before_in_flight_exception,
 *     probe_finds_the_software_interrupt_flag, test_trap
 *     loading_kernel_ds_from_ring3_is_gp_with_selector.
 *  3. A hook cannot raise the privilege level: uc_reg_write of CS or SS
 *     is checked like a segment load at the current CPL (13), so at CPL 3
 *     the kernel's selectors are refused. engine_enter_ring0() loads SS in
 *     real mode (CR0.PE clear for one write, which makes the CPL 0), turns
 *     PE back on and loads CS and SS with full checks. Tests: test_engine
 *     a_hook_at_cpl3_cannot_load_kernel_selectors_but_enter_ring0_can,
 *     test_trap int80_through_dpl3_trap_gate_switches_to_ring0_stack.
 *  4. An access to an address with no host memory behind it stops the
 *     engine with an error instead of raising #PF: the engine checks the
 *     backing before it walks the page tables. engine_back_memory() backs
 *     all 4 GiB; the guest's page tables decide what exists. (2.1 walks
 *     the page tables first and raises the #PF.) Tests:
 *     test_engine unbacked_addresses_stop_the_engine_backed_ones_fault,
 *     test_trap faults hole-read (a #PF at 0xe0000000).
 *  5. An access that runs past 0xffffffff (a 4-byte read at 0xfffffffe,
 *     code at the end of the vsyscall page, code in a segment whose base
 *     and EIP add up past 4 GiB) reaches 0x100000000 and up, a 64-bit
 *     address, where a CPU wraps the linear address to 32 bits; unbacked,
 *     2.0.1 would end the run mid-instruction with EIP and the lazy flags
 *     stale (2.1 walks the page tables first and runs based code there).
 *     engine_back_wrap() backs every region again 4 GiB up, over the same
 *     host pages: the page walk (32 bits of the address) finds page 0,
 *     never mapped, and the engine raises #PF itself, precisely, or runs
 *     the wrapped code. A fetch fault's CR2 then lies below the block (20,
 *     trap.c). The hooks see the engine's address, base + EIP: the block
 *     hook keeps its low 32 bits, and code hooks go in at the engine's
 *     address (run.c, engine_pc). Tests: test_robustness
 *     running_off_the_end_of_the_address_space_is_a_page_fault,
 *     test_hostile a_wrapping_access_after_a_flag_change_faults_at_its_own_instruction,
 *     code_whose_segment_base_and_eip_pass_4gib_runs_at_the_wrapped_address.
 *  6. in and out do not check IOPL. They get per-address code hooks (8),
 *     and the CPU model raises #GP(0) at CPL 3 (emu/cpu/cpu_insns.c). Tests:
 *     test_trap faults in, out; test_hypercall
 *     out_to_a_hypercall_port_from_ring3_never_reaches_it.
 *  7. #UD goes to UC_HOOK_INSN_INVALID, not to the interrupt hook, and
 *     ends the run whatever the hook returns. engine_watch() notes it
 *     (engine_reports.ud); the machine raises #UD once the run has
 *     returned. Test: test_trap faults ud2.
 *  8. rdtsc, rdmsr and wrmsr cannot be hooked as instructions (2.0.1 and
 *     2.1.1: uc_hook_add refuses them with UC_ERR_HOOK). A code hook
 *     on the instruction's own address can stand in for them:
 *     engine_hook_code_at() adds one, engine_retranslate() drops the
 *     block's translation so that the hook is seen, and the run restarts
 *     at the block. The same hooks charge rep string ops run by run, and
 *     stop a Pentium Pro's sysexit (machine.h, sysenter.h). Tests:
 *     test_cpu_insns rdtsc_counts_modeled_cycles,
 *     sysenter_msrs_exist_only_with_sep; test_engine
 *     rdtsc_and_the_msr_instructions_cannot_be_hooked_as_instructions.
 *  9. sysenter only calls the UC_X86_INS_SYSENTER hook, then adds the
 *     instruction's length (2, or more with prefixes: 66 0f 34 is 3) to
 *     EIP; EIP read inside the hook is not the instruction's (it reads as
 *     the block's start). engine_sysenter_resume() sets where execution
 *     goes on, allowing for that length; the machine knows
 *     the instruction from its own decode of the block. With TF set the
 *     engine raises the single-step trap after the hook even when the hook
 *     raised a fault instead; the machine drops that trap. Tests:
 *     test_sysenter sysenter_enters_ring0_at_msr_eip_and_esp,
 *     sysenter_without_sep_is_ud, test_hostile
 *     single_step_into_sysenter_without_sep_is_invalid_opcode.
 * 10. "tcg fatal error": the translator aborts the whole process on some
 *     encodings a CPU rejects with #UD (lock cmp, lock cmps, a far call or
 *     jump through a register), after printing that line on stderr.
 *     engine_run() runs with SIGABRT caught and says so, and stderr drops
 *     exactly that line while the engine runs; the machine then runs up
 *     to the culprit and raises #UD. (2.1 reports them as invalid, 7, but
 *     runs lock cmpsb as cmpsb.) Tests: test_engine
 *     a_translator_abort_is_survived, test_robustness
 *     untranslatable_instruction_is_an_invalid_opcode.
 * 11. CPUID answers as the engine's default CPU (leaf 1 EDX 0x07088100: no
 *     SEP, no FPU), and uc_ctl_set_cpu_model does not change that. A
 *     UC_X86_INS_CPUID hook that returns 1 supplies each model's answer
 *     (emu/cpu/cpu_insns.c). Test: test_cpu_insns cpuid_reports_model_signature_and_sep.
 * 12. No address translation: the engine walks the page tables for their
 *     present, user and writable bits, then uses the virtual address as
 *     the physical one. Every page lives at its own virtual address
 *     (guest/abi.h's memory map) and the guest kernel maps pages only at
 *     themselves. Test: test_boot paging_protects_and_the_fixmap_table_is_user.
 * 13. uc_reg_write of CS or SS applies the checks of a segment load at the
 *     current CPL: a same-ring CS change from a hook works, a ring raise
 *     does not (3). Test: as 3.
 * 14. A write of CR0 through the API has no side effects on 2.0.1 (no TLB
 *     flush, hidden flags unchanged), which 3 relies on. On 2.1 it flushes
 *     the TLB and the jump cache, so a ring raise would cost a flush (40%
 *     of a getpid loop's host time). There engine_enter_ring0() instead
 *     sets the CPL in the saved CPU context (where: found by
 *     engine_probe_layout()) and restores it, then loads CS and SS. Those
 *     two loads read their descriptors down the engine's slow load path
 *     (about 2 200 host instructions a sysenter): a memo of what they
 *     changed in the saved context, taken once, is written there instead
 *     while the state they read (the span from the CPL's word on, the
 *     descriptors, EFLAGS.VM clear) is what it was. A sysenter's ESP,
 *     EIP and EFLAGS (and an int n's, from the interrupt hook: trap.c)
 *     go into that same restore (engine_enter_ring0_at;
 *     their words found by the probe too): through the API each is a
 *     call, and the EIP write makes the engine leave and re-enter its
 *     loop. A remembered state is looked for in a narrow context, whose
 *     header says to save and restore only the CPU state up to the span's
 *     end (600 of 5 552 bytes on 2.1.1; the probe finds that word and
 *     checks the copy stops there). Tests: as 3 (the resulting CS, SS,
 *     CPL, ESP, EFLAGS);
 *     test_engine probe_finds_the_cpl_where_a_cr0_write_would_flush,
 *     a_remembered_ring0_entry_leaves_the_context_the_loads_leave,
 *     a_remembered_sysenter_entry_sets_the_registers_the_api_writes_set.
 * 15. A hook only applies to code translated after it is added (memory
 *     hooks too: translated code skips them), so the debugger's new hooks
 *     need code translated again. Dropping it all (UC_CTL_TB_FLUSH) zeroes
 *     the whole 1 GiB translation buffer on 2.0.1 (until 2.1.3): seconds,
 *     and a gigabyte of memory touched. uc_ctl_remove_cache drops a range
 *     but finds it through the MMU at the current privilege: asked from
 *     ring 3 about kernel code it drops nothing and sets CR2 as a page
 *     fault would. engine_retranslate_ranges() asks as ring 0 (the SS load
 *     of 3) and then puts the saved CPU state back. Tests: test_debug
 *     retranslating_kernel_code_from_ring3_misses_it,
 *     breakpoints_in_kernel_code_set_from_ring3_hit.
 * 16. Hooks at one instruction run in the order they were added, and a
 *     hook that stops the engine (uc_emu_stop) or writes EIP ends the list:
 *     the later ones never see that instruction; so every code hook the
 *     machine adds asks the debugger first (machine_hold_insn), and a rep
 *     op's run, which its hook charges (8), is charged only if it runs.
 *     Stopping from a block hook keeps the block from running, from a code
 *     hook the instruction. A code hook sees EIP at its instruction; a
 *     block hook entered by a direct jump from the block before sees that
 *     block's stale EIP, and a write of EIP from a hook restarts the engine
 *     instead of letting it stop: machine_pause() notes where, and
 *     machine_run sets EIP once the engine has returned. Tests: test_debug
 *     breakpoint_on_rdtsc_stops_before_it,
 *     stepping_through_system_calls_counts_as_without,
 *     stepping_through_a_rep_op_charges_its_start_up_once.
 * 17. Translations are cached by address (the guest-physical page, here the
 *     virtual one), and the engine only notices a change of a page's bytes
 *     made through its own stores. When the emulator replaces the bytes of
 *     a user page from outside (another process's address space moved into
 *     the window, emu/mm/addrspace.c), the old translations would run.
 *     engine_retranslate_page() drops one page's, found through the MMU
 *     with the page tables and privilege of the moment: so at CPL 0 (the
 *     kernel's hypercall) and before the page stops being mapped. (The
 *     engine's flush of every translation cannot be used from a hook: the
 *     engine chains the running block to blocks the flush frees, and the
 *     emulator crashes.) Test: test_addrspace
 *     code_at_the_same_address_in_two_spaces_runs_each_its_own.
 * 18. uc_emu_start's "until" is not checked as code runs: it is compiled
 *     into each translation as a halt before that address, whatever the
 *     privilege (with KERNEL_BASE there, ring-3 code running into
 *     0xc0000000 halted the machine). engine_run() takes ENGINE_NO_EXIT,
 *     an address no 32-bit fetch reaches, for a run only a hook ends; a
 *     run up to an address (trap.c, run_to) drops the translations that
 *     carry the halt when it is done. Test: test_hostile
 *     running_into_kernel_space_is_a_page_fault_at_0xc0000000.
 * 19. Two instructions come to UC_HOOK_INSN_INVALID as #UD: "int $6" (the
 *     engine takes vector 6 for an invalid opcode) and icebp (f1, INT1).
 *     raise_reported_ud() looks at the bytes: int $6 is a software
 *     interrupt through gate 6, icebp a #DB trap without the gate's DPL
 *     check. Tests: test_hostile int6_from_ring3_is_gp_on_its_dpl0_gate,
 *     icebp_is_a_debug_trap.
 * 20. The engine fetches a block's code as it translates it, so a fetch
 *     that faults partway through the block (into a supervisor page, an
 *     unmapped one, past 4 GiB) is raised at the block's first
 *     instruction, before any of it ran. The machine runs up to the
 *     instruction that needs the page (18's "until"), where the fetch
 *     faults again, now at the right place. The stop at the "until" can
 *     leave the first fault in flight (1), so that the second came as #DF
 *     (static glibc on the --kernel 2.5.53 page layout): reached_run_to
 *     (run.c) clears it. Test: as 18, and test_variants
 *     static_glibc_and_musl_run_through_sysenter.
 * 21. iret enters virtual-8086 mode whenever the EFLAGS image it pops has
 *     VM set; a CPU does that only at CPL 0. Ring-3 irets get a code hook
 *     (as in 8) and engine_iret_hide_vm() clears VM in the image while the
 *     engine runs the iret; the word goes back as soon as it is done or
 *     has faulted. Test: test_hostile iret_with_vm_set_at_cpl3_is_ignored.
 * 22. A store into the block that is running (self-modifying code) makes
 *     the engine drop the rest of that block and run the store again as a
 *     block of its own; the block hook had already charged all of it. The
 *     machine refunds from the store on and traces it once (run.c,
 *     abandoned_block). Test: test_hostile
 *     a_store_into_its_own_block_is_charged_and_traced_once.
 * 23. Memory the host rewrites (a snapshot restored, tests/fuzz/snapshot.h) is
 *     not seen by the engine: its translations of those pages and its TLB
 *     stay. uc_ctl_remove_cache finds a page through the current page
 *     tables (and skips one they do not map), and 2.0.1 has no TLB flush
 *     in its API (its uc_ctl_flush_tlb is the translation flush).
 *     engine_forget_pages() removes translations with paging off for the
 *     call (14) and engine_flush_tlb() maps and unmaps a page past 4 GiB,
 *     which flushes the TLB. Test: test_fuzz_replay
 *     a_restored_machine_runs_an_input_as_a_fresh_one.
 * 24. Dirty-page tracking is stubbed out in 2.0.1: every page counts as
 *     holding code, so every guest store takes the self-modifying-code
 *     path (a lookup that allocates), and a code page written to often
 *     gets a bitmap uc_close never frees. Only the cost is seen (stores
 *     are slow, most under ASan); the fuzz targets suppress that one leak
 *     (tests/fuzz/lsan.supp). Test: none can show a cost without timing.
 * 25. (--smp) Each CPU is its own engine over the same host pages, and an
 *     engine only notices changes of code it translated made by its own
 *     stores: another CPU's write would leave a stale translation running.
 *     emu/cpu/code_writes.c keeps each page some CPU ran code from with a copy of
 *     its bytes; after each turn a changed page drops the translations of
 *     every other engine that ran code there (engine_forget_pages, outside
 *     a run). Tests: test_smp code_written_on_cpu_1_runs_new_on_cpu_0,
 *     a_code_page_another_cpu_changed_is_dropped_from_the_engines_that_ran_it.
 * 26. (--smp) A turn ends with a stop from the block hook (smp.c,
 *     smp_turn_over): the engine may then keep a fault in flight (as 1),
 *     and a later page fault (the kernel's first copy_to_user onto a new
 *     stack, a rep movsl) ends every run without being raised.
 *     smp_turn_resume clears the in-flight mark and puts EIP back (16),
 *     as the debugger's pause does; a turn that still makes no progress
 *     stops the machine (125) instead of spinning. Test: test_smp
 *     programs_run_to_their_end_on_2_and_4_cpus.
 * 27. The "until" of 18 holds for the whole uc_emu_start, also after a
 *     hook disarmed the run up to that set it (a store's #PF on the way to
 *     a fetch fault's instruction, 20): code translated later in that run
 *     halts there with nothing armed. run_slice (run.c, stale_stop) drops
 *     those translations and runs on. Test: test_static
 *     a_store_fault_then_a_fetch_fault_in_one_block_runs_as_natively.
 * 28. Translated code is never reclaimed: the buffer (1 GiB) only grows,
 *     a full one is zeroed under the running code (2.0.1, 2.1 before
 *     2.1.3: a crash), and the engine's flush zeroes all of it (15: 1 GiB
 *     made resident). engine_code_resident() measures the buffers;
 *     past a limit run.c moves each CPU into a new engine
 *     (engine_renew()) and closes the old. Test: test_reclaim
 *     a_shell_loop_of_5000_commands_ends_with_bounded_host_memory.
 * 29. Timer interrupts and the instruction budget are taken at the start
 *     of a block (run.c on_block, irq.c): where the engine ends its blocks
 *     decides where they land. 2.0.1 and 2.1.1 end them alike for every
 *     program run here; make test-engines compares the two byte for byte.
 * 30. On 2.0.1 a stop asked for from an instruction or interrupt hook that
 *     also moved EIP (the sysenter hook, an int's delivery) is lost: the
 *     engine restarts at the new EIP and runs on. 2.1 stops there. So the
 *     look at the translated code that --no-cycle-model makes at a system
 *     call's entry (machine.c, quirk 28) is made on 2.1 only
 *     (engine_stops_after_eip_write()); on 2.0.1 such a run's buffer still
 *     grows. Test: test_reclaim (its --no-cycle-model loops, 2.1 only).
 * 31. 2.1.1 leaks 32 bytes per engine (g_array_new, never freed by
 *     uc_close): make test-asan suppresses exactly that allocation
 *     (tests/lsan-unicorn.supp).
 */
#ifndef EMU_ENGINE_H
#define EMU_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unicorn/unicorn.h>
#include "engine/memory.h"

/* Where the saved CPU context keeps what the API hides (quirks 1, 2). */
struct engine_layout {
    size_t context_size;
    size_t error_code_offset;
    size_t old_exception_offset;
    size_t cpl_offset;         /* the word whose low two bits are the CPL (14) */
    bool raise_by_context;     /* engine_enter_ring0 sets the CPL there (2.1) */
    size_t is_int_offset;      /* 1: the vector came from int n, not a fault */
    /* engine_enter_ring0_at sets ESP, EIP and EFLAGS there too (2.1) */
    bool regs_by_context;
    size_t esp_offset, eip_offset, eflags_offset;
    /* A context of narrow_bytes (0: none) that the engine saves and
     * restores only up to the span's end and the registers': the header
     * word at narrow_size_at says how much (2.1) */
    size_t narrow_bytes, narrow_size_at;
    uint64_t narrow_size;
};

/* What the engine knew about the interrupt its hook was just given. */
struct engine_exception {
    uint32_t error_code;
    bool software;             /* int n / int3 / into, not an exception */
};

/* What the engine reported instead of raising an exception (quirk 7);
 * the machine delivers it once the run has returned. */
struct engine_reports {
    bool ud;              /* an invalid opcode at EIP */
};

int engine_open(uc_engine **uc);
/* 0, or -1 with a reason in err. On an engine of its own, or on uc before
 * anything is mapped there, which it leaves as it found it. */
int engine_probe_layout(struct engine_layout *layout, char *err, size_t errlen);
int engine_probe_layout_on(uc_engine *uc, struct engine_layout *layout, char *err,
                           size_t errlen);
/* The pending interrupt's error code and kind; marks no exception in
 * flight. */
void engine_take_exception(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                           struct engine_exception *out);
/* Mark no exception in flight: the engine stopped between instructions
 * for the debugger (quirk 1: a stop from a code hook can leave the mark). */
void engine_clear_in_flight(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout);
/*
 * What the CS and SS loads of engine_enter_ring0 did to the saved context
 * from one state (quirk 14): the hidden flags and the segment, table and
 * control registers that follow them (QEMU's CPUX86State, hflags to efer,
 * ENGINE_RING0_SPAN bytes), before and after, and the two descriptors
 * read. The same state and descriptors again give the same result. A few
 * states are kept: each process has its own (its TLS segment).
 */
#define ENGINE_RING0_SPAN 392
#define ENGINE_RING0_STATES 4
#define ENGINE_RING0_NARROW 1024
struct engine_ring0_state {
    bool known;
    uint16_t cs, ss;
    uint32_t cs_desc, ss_desc; /* their descriptors' linear addresses */
    uint8_t desc[16];          /* CS's and SS's descriptors after the loads */
    uint8_t before[ENGINE_RING0_SPAN], after[ENGINE_RING0_SPAN];
};
struct engine_ring0_memo {
    const struct guest_memory *mem;   /* where the descriptors are read */
    bool checked;              /* the loads were seen to change only the span */
    bool refused;              /* they changed more */
    unsigned next;             /* the state to replace next */
    unsigned last;             /* the state found last */
    struct engine_ring0_state states[ENGINE_RING0_STATES];
    bool narrow_ready;         /* narrow holds a header (layout.narrow_bytes) */
    _Alignas(16) uint8_t narrow[ENGINE_RING0_NARROW];
};
/* Make the CPL 0 with CS and SS loaded from the GDT, and ESP = esp; ctx is
 * scratch; memo (may be NULL) repeats a load already seen. */
bool engine_enter_ring0(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                        struct engine_ring0_memo *memo, uint16_t cs, uint16_t ss,
                        uint32_t esp);
/* A sysenter's or an interrupt's entry: engine_enter_ring0, then EFLAGS
 * &= ~eflags_clear and EIP = eip (as the hook leaves it: a sysenter's is
 * before the engine adds its length); from a remembered state all in the
 * one context restore. */
struct engine_ring0_entry {
    uint16_t cs, ss;
    uint32_t esp, eip, eflags_clear;
};
bool engine_enter_ring0_at(uc_engine *uc, uc_context *ctx, const struct engine_layout *layout,
                           struct engine_ring0_memo *memo, const struct engine_ring0_entry *e);
/* Back every guest address with host memory, and the page past 4 GiB.
 * 0 or -1. */
int engine_back_memory(uc_engine *uc, struct guest_memory *mem);
/* Where an access past 0xffffffff lands (quirk 5): every region of mem
 * backed again there, and one page at 2 * ENGINE_WRAP, so that the page
 * walk, not the backing check, answers it. */
#define ENGINE_WRAP ((uint64_t)UINT32_MAX + 1)
int engine_back_wrap(uc_engine *uc, const struct guest_memory *mem);
/* Note invalid opcodes in r. 0 or -1. */
int engine_watch(uc_engine *uc, struct engine_reports *r);
/* An address no instruction fetch reaches: the run ends only when a hook
 * stops it (quirk 18). */
#define ENGINE_NO_EXIT UINT64_MAX
/* uc_emu_start from begin, stopping before the instruction at until;
 * false if the translator aborted instead of returning (quirk 10). */
bool engine_run(uc_engine *uc, uint32_t begin, uint64_t until, uc_err *err);
/* A code hook on the instruction at addr only, its handle in *h: the
 * engine's address, base + EIP, past 4 GiB for code whose linear address
 * wrapped (quirk 5). 0 or -1. */
int engine_hook_code_at(uc_engine *uc, uint64_t addr, uc_cb_hookcode_t cb, void *user,
                        uc_hook *h);
/* Remove a hook; the engine frees it when its outermost run returns. */
void engine_unhook(uc_engine *uc, uc_hook h);
/* Forget the translation of [addr, addr+size): new hooks apply there, new
 * bytes run. Only for code the CPU can fetch at the current privilege
 * through the page tables loaded now (quirk 15). */
void engine_retranslate(uc_engine *uc, uint64_t addr, uint32_t size);
/* Forget the translations of each [start, start+len), whatever the
 * privilege level (quirk 15); ctx: a context of uc to save the CPU in. */
struct engine_range {
    uint32_t start, len;
};
void engine_retranslate_ranges(uc_engine *uc, uc_context *ctx, const struct engine_range *r,
                               size_t n);
/* A code hook on [begin, end] (every instruction if begin > end), and
 * memory hooks on guest reads and/or writes starting in [begin, end]; *h
 * is for engine_unhook. 0 or -1. */
int engine_hook_code_range(uc_engine *uc, uint32_t begin, uint32_t end, uc_cb_hookcode_t cb,
                           void *user, uc_hook *h);
int engine_hook_mem(uc_engine *uc, bool reads, bool writes, uint32_t begin, uint32_t end,
                    uc_cb_hookmem_t cb, void *user, uc_hook *h);
/* Quirk 17: forget the translations of the user page at addr, whose bytes
 * the emulator is about to replace. Only at CPL 0 and while the loaded
 * page tables map the page present: the engine finds the translations
 * through its MMU, at the privilege of the moment. */
void engine_retranslate_page(uc_engine *uc, uint32_t addr);
/* An EFLAGS image in a ring-3 iret frame with VM hidden from the engine
 * (quirk 21), until engine_iret_restore puts the word back. */
struct engine_iret_patch {
    bool active;
    uint32_t addr;
    uint32_t word;
};
/* Clear VM in the 32-bit word at eflags_addr if set; true if it was. */
bool engine_iret_hide_vm(struct guest_memory *mem, uint32_t eflags_addr,
                         struct engine_iret_patch *p);
void engine_iret_restore(struct guest_memory *mem, struct engine_iret_patch *p);
/* Guest memory at these pages changed from the host: drop the engine's
 * translations of them and its TLB (quirk 23). */
void engine_forget_pages(uc_engine *uc, const uint32_t *pages, size_t n);
/* Quirk 28: the bytes of translated code the engines' translation
 * buffers hold in host memory (every engine of the process; 0 if the
 * host does not say). */
size_t engine_code_resident(void);
bool engine_stops_after_eip_write(void);   /* quirk 30 */
/* The translated code per engine past which the machine renews them: a
 * choice, about 30 execs of a shell's worth of code, where the working
 * set of a program and the kernel is a few MiB. */
#define ENGINE_CODE_LIMIT ((size_t)64 << 20)
/* Quirk 28: *uc replaced by a new engine over the same guest memory, its
 * CPU in the same state (ctx: a context of *uc, for the move), with no
 * translations and no hooks; the old engine is closed. 0, or -1 with *uc
 * as it was. */
int engine_renew(uc_engine **uc, uc_context *ctx, const struct guest_memory *mem);
/* In the sysenter hook: execution goes on at eip; len is the sysenter's
 * length with its prefixes. */
void engine_sysenter_resume(uc_engine *uc, uint32_t eip, uint32_t len);

uint32_t engine_reg_read(uc_engine *uc, int reg);
void engine_reg_write(uc_engine *uc, int reg, uint32_t value);
uint64_t engine_read_msr(uc_engine *uc, uint32_t index);
void engine_stop(uc_engine *uc);

#endif
