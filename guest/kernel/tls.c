/*
 * Thread-local storage: set_thread_area and get_thread_area fill the three
 * TLS descriptors of the GDT (entries 6-8, selectors 0x33/0x3b/0x43) that
 * libc points %gs at. Each task keeps its own copy, loaded into the GDT when
 * it runs (switch_to).
 */
#include "kernel.h"
#include "sched.h"


/* struct user_desc of <asm/ldt.h> */
struct user_desc {
    uint32_t entry_number;
    uint32_t base_addr;
    uint32_t limit;
    uint32_t flags;
};
#define UD_SEG_32BIT       0x01
#define UD_CONTENTS_SHIFT  1      /* 2 bits: 0 data, 1 stack, 2 code */
#define UD_READ_EXEC_ONLY  0x08
#define UD_LIMIT_IN_PAGES  0x10
#define UD_SEG_NOT_PRESENT 0x20
#define UD_USEABLE         0x40

/* An access-byte or a flags bit in its place in a descriptor. */
#define DESC_ACCESS(bits) ((uint64_t)(bits) << X86_DESC_ACCESS_SHIFT)
#define DESC_FLAG(bits)   ((uint64_t)(bits) << X86_DESC_FLAGS_SHIFT)


/* Linux calls an all-clear request "empty": it frees the entry. */
static int desc_empty(const struct user_desc *u)
{
    return u->base_addr == 0 && u->limit == 0 &&
           (u->flags & ~UD_USEABLE) == (UD_READ_EXEC_ONLY | UD_SEG_NOT_PRESENT);
}

static uint64_t make_descriptor(const struct user_desc *u)
{
    uint32_t contents = (u->flags >> UD_CONTENTS_SHIFT) & 3;
    /* S=1, DPL 3; type: data read/write (read-only with read_exec_only),
     * expand-down for "stack", code execute/read for "code". */
    uint32_t type = (contents << 2) | ((u->flags & UD_READ_EXEC_ONLY) ? 0 : X86_AR_RW);
    uint64_t d = (u->limit & 0xffff) | ((uint64_t)(u->base_addr & 0xffffff) << 16);
    d |= DESC_ACCESS(type | X86_AR_S | X86_AR_DPL3);
    if (!(u->flags & UD_SEG_NOT_PRESENT))
        d |= DESC_ACCESS(X86_AR_P);
    d |= (uint64_t)((u->limit >> 16) & 0xf) << 48;
    if (u->flags & UD_USEABLE)
        d |= DESC_FLAG(X86_DESC_AVL);
    if (u->flags & UD_SEG_32BIT)
        d |= DESC_FLAG(X86_DESC_DB);
    if (u->flags & UD_LIMIT_IN_PAGES)
        d |= DESC_FLAG(X86_DESC_G);
    d |= (uint64_t)(u->base_addr >> 24) << 56;
    return d;
}

/* Fill t's TLS entry from the user_desc at uinfo (set_thread_area, and
 * clone's CLONE_SETTLS for a child). */
int set_tls_of(struct task_struct *t, uint32_t uinfo)
{
    struct user_desc u;
    if (copy_from_user(&u, uinfo, sizeof u))
        return -EFAULT;
    uint32_t idx = u.entry_number;
    if (idx == 0xffffffffu) {
        for (idx = GDT_ENTRY_TLS_MIN; idx <= GDT_ENTRY_TLS_MAX; idx++)
            if (t->tls_array[idx - GDT_ENTRY_TLS_MIN] == 0)
                break;
        if (idx > GDT_ENTRY_TLS_MAX)
            return -ESRCH;
        if (put_user_u32(idx, uinfo))
            return -EFAULT;
    }
    if (idx < GDT_ENTRY_TLS_MIN || idx > GDT_ENTRY_TLS_MAX)
        return -EINVAL;
    /*
     * Linux 2.5.53 installs any descriptor it is given, as this does:
     * code (conforming too), 16-bit, expand-down, not present, with any
     * base; make_descriptor only forces S=1 and DPL 3, so nothing runs
     * above ring 3. (Its modify_ldt refused conforming code; 3.19 began
     * refusing code, 16-bit and not-present TLS entries.)
     */
    t->tls_array[idx - GDT_ENTRY_TLS_MIN] = desc_empty(&u) ? 0 : make_descriptor(&u);
    return 0;
}

long sys_set_thread_area(uint32_t uinfo, uint32_t a2, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    (void)a2, (void)a3, (void)a4, (void)a5, (void)a6;
    int err = set_tls_of(current, uinfo);
    if (err)
        return err;
    load_TLS(current);
    /* The caller may hold this selector in a segment register: return
     * through iret, which reloads every selector from the frame. */
    current_thread_info()->flags |= _TIF_IRET;
    return 0;
}

long sys_get_thread_area(uint32_t uinfo, uint32_t a2, uint32_t a3,
                         uint32_t a4, uint32_t a5, uint32_t a6)
{
    uint32_t idx;
    (void)a2, (void)a3, (void)a4, (void)a5, (void)a6;
    if (get_user_u32(&idx, uinfo))
        return -EFAULT;
    if (idx < GDT_ENTRY_TLS_MIN || idx > GDT_ENTRY_TLS_MAX)
        return -EINVAL;
    uint64_t d = current->tls_array[idx - GDT_ENTRY_TLS_MIN];
    struct user_desc u = { .entry_number = idx };
    u.base_addr = (uint32_t)((d >> 16) & 0xffffff) | (uint32_t)((d >> 56) << 24);
    u.limit = (uint32_t)(d & 0xffff) | (uint32_t)(((d >> 48) & 0xf) << 16);
    uint32_t type = (uint32_t)(d >> X86_DESC_ACCESS_SHIFT) & 0xf;
    u.flags = (d & DESC_FLAG(X86_DESC_DB) ? UD_SEG_32BIT : 0) |
              (((type >> 2) & 3) << UD_CONTENTS_SHIFT) |
              (type & X86_AR_RW ? 0 : UD_READ_EXEC_ONLY) |
              (d & DESC_FLAG(X86_DESC_G) ? UD_LIMIT_IN_PAGES : 0) |
              (d & DESC_ACCESS(X86_AR_P) ? 0 : UD_SEG_NOT_PRESENT) |
              (d & DESC_FLAG(X86_DESC_AVL) ? UD_USEABLE : 0);
    if (d == 0)
        u.flags = UD_READ_EXEC_ONLY | UD_SEG_NOT_PRESENT;
    return copy_to_user(uinfo, &u, sizeof u) ? -EFAULT : 0;
}
