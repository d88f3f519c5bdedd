/*
 * undo.c: what a round's step replaced (each key's weight, trust radius
 * and last gradient sum before it), kept while a worker may still resume
 * at or before that round, for a worker that comes back and takes the
 * state before the round it resumes at (failover/rejoin.c, round.c
 * invariant 9).
 *
 * A dbpg worker resumes at the lowest held round it pushed
 * (rounds_resume_point()), and a round is freed once every worker pulled
 * it, so a round's record goes when the round is freed so (round.c,
 * round_release).  A newton worker resumes at the step round of the
 * iteration it died in, which may be freed already; its record goes once
 * the next iteration's gradient round is gathered, which needs every
 * worker's push (newton.c).  A ring change drops the rounds in progress,
 * not their records: the keys a dropped round applied are not applied
 * again when its pushes come back (invariant 7), and their record says
 * what they were before it.  The job holds the records, so what a key
 * costs is kept for the keys of a few rounds, not for the whole store.
 * A record's entries are sorted by slot at its first lookup.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util/xmalloc.h"

/* Round t's record in list, or NULL. */
static struct round_undo *
undo_record(struct undo_list *list, uint64_t t)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->recs[i].t == t)
			return &list->recs[i];
	return NULL;
}

/* Keep slots[0..n)'s current state in round t's record, before its step. */
void
undo_keep(struct undo_list *list, uint64_t t, const struct store *st,
    const uint32_t *slots, size_t n)
{
	struct round_undo *u = undo_record(list, t);
	size_t k;

	if (u == NULL) {
		list->recs = xreallocarray(list->recs, list->n + 1,
		    sizeof *list->recs);
		u = &list->recs[list->n++];
		memset(u, 0, sizeof *u);
		u->t = t;
	}
	u->entries = xreallocarray(u->entries, u->n + n + 1,
	    sizeof *u->entries);
	for (k = 0; k < n; k++) {
		struct undo_entry *e = &u->entries[u->n + k];

		e->slot = slots[k];
		e->w = st->w[slots[k]];
		e->trust = st->trust[slots[k]];
		e->glast = st->glast[slots[k]];
	}
	u->n += n;
	u->sorted = 0;
}

static int
undo_entry_cmp(const void *a, const void *b)
{
	const struct undo_entry *x = a, *y = b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

/* Slot's state before round t's step, or NULL if none is kept. */
const struct undo_entry *
undo_find(struct undo_list *list, uint64_t t, uint32_t slot)
{
	struct round_undo *u = undo_record(list, t);
	size_t lo = 0, hi;

	if (u == NULL)
		return NULL;
	if (!u->sorted) {
		qsort(u->entries, u->n, sizeof *u->entries, undo_entry_cmp);
		u->sorted = 1;
	}
	for (hi = u->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->entries[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->n && u->entries[lo].slot == slot ?
	    &u->entries[lo] : NULL;
}

/* Drop the records of the rounds in [lo, hi). */
void
undo_forget(struct undo_list *list, uint64_t lo, uint64_t hi)
{
	size_t i = 0;

	while (i < list->n) {
		if (list->recs[i].t >= lo && list->recs[i].t < hi) {
			free(list->recs[i].entries);
			list->recs[i] = list->recs[--list->n];
		} else
			i++;
	}
	if (list->n == 0) {
		free(list->recs);
		list->recs = NULL;
	}
}
