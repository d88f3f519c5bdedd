/*
 * l1lr_live.c: the KKT active set of the worker's l1-LR (l1lr.h): the
 * list of each block's active positions, and the copy of its entries
 * that leaves the inactive features out.
 *
 * A feature that left the active set is not pushed and its weight stays
 * 0, so its entries add 0 to the margins' moves, 0 to the rows' radius
 * sums and counts, and only to its own gradient, which nobody reads: the
 * sweeps may skip them, and a row with none of the block's active
 * features, whole.  Late in a run most features are out, and on most sets
 * most entries with them (spamassassin keeps about 4% of its entries,
 * news20 a quarter; the generated sets 60-90%, their frequent features
 * staying in).  So once the features out of the set hold an eighth of
 * the entries the sweeps go over (LIVE_SHRINK), the others' entries are
 * copied, in order, into the block's live rows, and the sweeps go over
 * those; the copy is made again, in place, each time another eighth went,
 * and the sweeps go back to every entry when the set is reset.  Apply's
 * sweep, which reads every entry anyway, makes the copy as it goes
 * (l1lr.c), right after the servers' verdict dropped the features, so a
 * block reserved beside others takes its pending sums out over the very
 * entries it put them in with.  What the sweeps compute for active
 * features is bit for bit the same.  The per-feature work of an
 * iteration (the worker's choice of what to push, the weights it takes)
 * goes over the active list alone.
 *
 * Why an eighth: a pass sweeps each entry three times (radius sums,
 * gradient, apply), a copy costs little more than the apply sweep it
 * rides on, and until a reset there are passes to win it back.  On
 * gen-10m, whose blocks keep 75-85% of their entries, copying at a half
 * never copied; at an eighth the job took 0.96-0.97 of the time (at a
 * sixteenth 0.99: more copies), the same objective (tests/bench/README,
 * forty-seventh session).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "algo/l1lr.h"
#include "algo/l1lr_live.h"
#include "util/xmalloc.h"

/* Copy once the features out of the set hold 1/LIVE_SHRINK of the entries. */
#define LIVE_SHRINK	8

/* Room for rows rows and ent entries in bl's live copy, kept if there. */
static void
live_reserve(struct ps_l1lr_block *bl, size_t rows, uint64_t ent)
{
	struct ps_l1lr_rows *v = &bl->live;

	if (rows + 1 > bl->live_rowcap) {
		free(v->rows);
		free(v->rowptr);
		v->rows = xreallocarray(NULL, rows + 1, sizeof *v->rows);
		v->rowptr = xreallocarray(NULL, rows + 1, sizeof *v->rowptr);
		bl->live_rowcap = rows + 1;
	}
	if (ent + 1 > bl->live_entcap) {
		free(v->pos);
		free(v->val);
		v->pos = xreallocarray(NULL, ent + 1, sizeof *v->pos);
		v->val = xreallocarray(NULL, ent + 1, sizeof *v->val);
		bl->live_entcap = ent + 1;
	}
}

/*
 * Drop the features with drop[p] set from block bl's active set (apply
 * released the block).  Returns 1 when the sweeps should go over the
 * entries of the features left alone from now on: lr->bu then holds a
 * byte by slot, 1 for each of those (0 for the others), and live has
 * room for them; else 0.
 */
int
l1lr_live_drop(struct ps_l1lr *lr, struct ps_l1lr_block *bl,
    const uint8_t *drop)
{
	const struct ps_l1lr_rows *v = bl->shrunk ? &bl->live : &bl->all;
	uint8_t *keep = (uint8_t *)lr->bu;	/* a byte a slot fits there */
	uint64_t swept = v->rowptr[v->nrows], need = 0;
	size_t i, n = 0, p, dropped;

	for (i = 0; i < bl->nact; i++) {
		p = bl->act[i];
		if (drop[p]) {
			lr->active[bl->feats[p]] = 0;
			bl->nactive_ent -= lr->nent[bl->feats[p]];
		} else {
			bl->act[n++] = (uint32_t)p;
		}
	}
	dropped = bl->nact - n;
	bl->nact = n;
	if (dropped == 0 || bl->nactive_ent > swept - swept / LIVE_SHRINK)
		return 0;
	for (p = 0; p < bl->nfeat; p++) {
		uint32_t j = bl->feats[p];

		keep[bl->slot[p]] = lr->active[j];
		need += lr->active[j] ? lr->nent[j] : 0;
	}
	bl->nactive_ent = need;
	if (!bl->shrunk)
		live_reserve(bl, need < v->nrows ? need : v->nrows, need);
	return 1;
}

/* Apply's sweep copied the kept entries into live: the sweeps go there. */
void
l1lr_live_copied(struct ps_l1lr_block *bl)
{
	memcpy(bl->swept, bl->act, bl->nact * sizeof *bl->act);
	bl->nswept = bl->nact;
	bl->shrunk = 1;
}

void
ps_l1lr_take_room(struct ps_l1lr *lr, struct ps_dataset *ds)
{
	uint64_t at = 0;
	uint32_t b;

	lr->room_pos = ds->col;
	lr->room_val = ds->val;
	ds->col = NULL;
	ds->val = NULL;
	for (b = 0; b < lr->nblocks; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];
		uint64_t n = bl->all.rowptr[bl->all.nrows];

		free(bl->live.pos);
		free(bl->live.val);
		bl->live.pos = lr->room_pos + at;
		bl->live.val = lr->room_val + at;
		bl->live_entcap = n + 1;	/* no copy holds more than n */
		at += n;
	}
}

void
ps_l1lr_live_reset(struct ps_l1lr *lr)
{
	uint32_t b;
	size_t p;

	for (b = 0; b < lr->nblocks; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		bl->shrunk = 0;
		bl->nactive_ent = 0;
		bl->nact = 0;
		bl->nswept = bl->nfeat;
		for (p = 0; p < bl->nfeat; p++) {
			bl->swept[p] = (uint32_t)p;
			if (lr->active[bl->feats[p]]) {
				bl->nactive_ent += lr->nent[bl->feats[p]];
				bl->act[bl->nact++] = (uint32_t)p;
			}
		}
	}
}

size_t
ps_l1lr_activate_all(struct ps_l1lr *lr)
{
	size_t j, back = 0;

	for (j = 0; j < lr->ds->nfeat; j++) {
		back += !lr->active[j];
		lr->active[j] = 1;
	}
	ps_l1lr_live_reset(lr);
	return back;
}
