/* Doubly linked lists threaded through the structures they link (Linux's
 * list_head): tasks, children, run queue, wait queues, VMAs. */
#ifndef KERNEL_LIST_H
#define KERNEL_LIST_H

#include <stddef.h>

struct list_head {
    struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD_DEF(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
    l->next = l->prev = l;
}

static inline int list_empty(const struct list_head *l)
{
    return l->next == l;
}

static inline void list_insert(struct list_head *n, struct list_head *prev,
                               struct list_head *next)
{
    next->prev = n;
    n->next = next;
    n->prev = prev;
    prev->next = n;
}

/* After head: a stack. */
static inline void list_add(struct list_head *n, struct list_head *head)
{
    list_insert(n, head, head->next);
}

/* Before head: a queue. */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
    list_insert(n, head->prev, head);
}

/* Unlink n and leave it pointing at itself, so a second list_del is harmless. */
static inline void list_del(struct list_head *n)
{
    n->next->prev = n->prev;
    n->prev->next = n->next;
    INIT_LIST_HEAD(n);
}

#define list_entry(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

#define list_for_each(pos, head) \
    for (pos = (head)->next; pos != (head); pos = pos->next)

/* Safe against removal of pos. */
#define list_for_each_safe(pos, n, head) \
    for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)

#endif
