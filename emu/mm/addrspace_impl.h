/*
 * The address spaces' private structures, shared by their files:
 *   addrspace.c       the window, the stores, switching, forking, the
 *                     shared objects
 *   addrspace_save.c  keeping all of it at one moment and going back there
 */
#ifndef EMU_ADDRSPACE_IMPL_H
#define EMU_ADDRSPACE_IMPL_H

/* after addrspace.h, which names what these hold (it does not include this
 * file, nor this it: the units' includes have no cycle) */

#define WINDOW_SIZE ((size_t)USER_SPACE_TOP)
#define USER_PDES   (USER_SPACE_TOP >> 22)
#define KEPT        (X86_PTE_PRESENT | PTE_SW_PROTNONE)
#define TOMBSTONE   UINT32_MAX /* a code page forgotten, its slot still probed past */
#define AS_COPY_MAX 4096u      /* pages a switch copies; more, and it moves the window */
#define AS_SPARE_STORES 4      /* gone spaces' stores kept for new ones */

struct as_piece {              /* [start, start + npages pages) shows object obj */
    uint32_t start, npages;
    uint32_t obj, pgoff;
};

struct as_space {
    bool used;
    uint32_t pgd;
    uint32_t id;               /* never the same twice (code_pair) */
    uint8_t *store;            /* reserved; holds the bytes while not current */
    struct as_piece *pieces;   /* sorted by start */
    uint32_t npieces, cap;
};

struct shm_obj {
    bool used;
    uint8_t *data;
    uint32_t npages, held;
    uint8_t *touched;          /* one bit per page: it has bytes */
};

struct addrspaces {
    uint32_t last_code;        /* first: as_note_code's inline test */
    uint8_t *window;
    struct as_space *cur;
    struct as_space spaces[AS_MAX];
    struct shm_obj objs[AS_SHM_MAX];
    bool track_code;
    uint32_t code[AS_CODE_PAGES]; /* page numbers + 1; 0 is empty */
    uint32_t ncode;            /* slots in use (tombstones too) */
    uint16_t code_slots[AS_CODE_PAGES / 2]; /* those slots, as filled */
    /* Per slot: the id of the space whose store was found to hold the
     * same bytes as the window when the page was kept at the last switch
     * (0: none). If the window's space leaves the page unwritten and
     * hands over to that space again, the bytes are the same unasked. */
    uint32_t code_pair[AS_CODE_PAGES];
    uint32_t next_id;
    bool code_overflow;
    /* Code pages no space shows now whose translations stay until their
     * bytes come back (the same: kept) or others do (dropped). */
    uint32_t held[AS_HELD_MAX];
    uint32_t nheld;
    bool no_hold;
    uint8_t *held_bytes;       /* AS_HELD_MAX pages: the bytes translated */
    struct as_stats stats;
    uint32_t out[AS_COPY_MAX], in[AS_COPY_MAX]; /* a switch's pages (swap_window) */
    bool out_touched[AS_COPY_MAX];     /* of out, the pages accessed since the switch in */
    uint32_t same[AS_CODE_PAGES / 2];  /* of in, those already in the window: */
    uint32_t nsame;
    uint64_t same_map[USER_SPACE_TOP / PAGE_SIZE / 64]; /* their page numbers' bits */
    /* The pages the host wrote into the window since the last switch
     * (as_page, as_shm_fault, as_move). With the outgoing space's kept
     * pages they are every page a switch can find bytes in (scrub): the
     * guest stores only through present PTEs, and a page leaves a space
     * only through as_release or as_move, which discard it. unknown: more
     * than AS_LOOSE_MAX of them, or the window's bytes came from
     * elsewhere (before the first switch, a move, a restore): the next
     * switch asks the host which pages have bytes. */
    uint32_t loose[AS_LOOSE_MAX];
    uint32_t nloose;
    bool loose_unknown;
    uint64_t loose_map[USER_SPACE_TOP / PAGE_SIZE / 64]; /* their page numbers' bits */
    /* Since the last switch: an instruction that may have lowered a
     * page's permission (SPECIAL_PAGING), CR3 loads other than the
     * switch's own, and whether that one is still to come (cr3_due). */
    bool paging_seen;
    uint32_t cr3_seen;
    bool cr3_due, own_load;
    uint8_t *spare[AS_SPARE_STORES];
    uint32_t nspare;
    /* Bumped by every change to what lives outside the window (a store, a
     * shared object, the pieces, which space is current): as_restore
     * rebuilds those only if it moved. */
    uint64_t epoch;
    const struct as_window_watch *watch;
    void *watch_ctx;
};

/* addrspace.c */
uint8_t *as_new_store(void);
_Static_assert(AS_CODE_PAGES <= 65536, "code_slots holds a slot in 16 bits");
/* The window's bytes are not known to be only the spaces' (a restore). */
void as_forget_loose(struct addrspaces *as);
/* Every space and shared object dropped (the table itself kept). */
void as_drop_all(struct addrspaces *as);

#endif
