/*
 * l1lr.h: the worker's side of l1-regularised logistic regression by the
 * Delayed Block Proximal Gradient method: a column view of the shard, the
 * margins m_i = w.x_i of its rows, and per block the gradient and the
 * diagonal curvature bound that the worker pushes.
 *
 * For the features J of the block, with trust radii delta_j (see prox.h),
 * and P the features of every block that may move together with it: the
 * pending ones, i.e. reserved and not yet applied.  Under delay tau the
 * worker reserves a block when it enters the window, tau iterations before
 * its own, so any two blocks whose moves can overlap count each other:
 *   r_i = sum_{j in P} |x_ij| delta_j         how far margin i can move
 *   h_i = max curvature of the loss on [m_i - r_i, m_i + r_i]
 *   k_i = 1 + beta (|P cap row i| - 1)        how many pending features row
 *                                             i has (beta = 1: a safe bound
 *                                             for moving them all at once)
 *   g_j = sum_i x_ij * (-y_i sigma(-y_i m_i)) gradient of the loss
 *   u_j = sum_i x_ij^2 h_i k_i                curvature bound
 * With beta = 1, diag(u) majorises the loss for any joint move of the
 * pending features inside their trust regions, which is what keeps the
 * method stable under bounded delay.
 *
 * KKT active set: a feature with w_j = 0 whose last global gradient sum
 * had |G_j| <= threshold (below lambda) would stay at 0, so it is left out
 * of pushes, of the pending sums and of updates until the set is reset;
 * every worker sees the same G_j and so keeps the same set.
 * Each block is stored row by row, so a block's work is one sequential
 * sweep over the rows it touches, scattering into block-sized arrays.
 * The struct owns every array it allocates; the data set stays the caller's.
 */
#ifndef PS_L1LR_H
#define PS_L1LR_H

#include <stddef.h>
#include <stdint.h>

#include "data/dataset.h"

/* Entries row by row: the rows they lie in, ascending, and theirs. */
struct ps_l1lr_rows {
	size_t		 nrows;
	uint32_t	*rows;		/* [nrows] row indices, ascending */
	uint32_t	*rowptr;	/* [nrows + 1] into pos and val (a
					   block's entries fit: ps_l1lr_init) */
	uint32_t	*pos;		/* scratch slot of each entry's feature */
	float		*val;		/* value of each entry */
};

/*
 * One block's entries.  Once the KKT active set left at most half of
 * those the sweeps go over (l1lr_live.c), they are copied without the
 * inactive features' entries, and the sweeps go over that copy (live)
 * until the set is reset: an inactive feature's entries add nothing to
 * what they compute but time.
 */
struct ps_l1lr_block {
	size_t		 nfeat;		/* features in the block */
	const uint32_t	*feats;		/* their local indices (caller's) */
	uint32_t	*slot;		/* [nfeat]: where position p's sums go in
					   the scratch (its most frequent
					   features first) */
	uint32_t	*act;		/* [nact]: the positions of the active
					   features, ascending */
	size_t		 nact;
	uint32_t	*swept;		/* [nswept]: those of the features with
					   entries in what the sweeps go over:
					   all, or with shrunk those active
					   when live was copied */
	size_t		 nswept;
	struct ps_l1lr_rows all;	/* every entry */
	struct ps_l1lr_rows live;	/* with shrunk, the active features' */
	size_t		 live_rowcap;	/* rows allocated in live */
	uint64_t	 live_entcap;	/* entries allocated in live */
	uint64_t	 nactive_ent;	/* entries of the active features */
	int		 shrunk;	/* the sweeps go over live */
	int		 reserved;	/* its features count as pending: one
					   of PS_L1LR_RESERVED_* */
};

/*
 * How a block is reserved.  A block reserved while no other is (always
 * under tau 0) is the only pending one: its rows' radius sums and counts
 * are then the pending ones, so the gradient sweep uses them where it
 * computes them and neither it nor the apply touches pendr and pendk
 * (SOLO; a sweep over a block reserved SOLO beforehand gathers its radii
 * again).  A block reserved beside others adds them there (SHARED), and a
 * SOLO one does too as soon as another is reserved (l1lr_unsolo).
 */
#define PS_L1LR_RESERVED_NOT	0
#define PS_L1LR_RESERVED_SHARED	1
#define PS_L1LR_RESERVED_SOLO	2


struct ps_l1lr {
	const struct ps_dataset *ds;	/* the shard, not owned */
	struct ps_l1lr_block *blocks;	/* [nblocks] */
	uint32_t	 nblocks;
	double		*margin;	/* nrows: m_i */
	double		*rowexp;	/* nrows: exp(-|m_i|) */
	double		 loss;		/* sum of log(1 + exp(-y_i m_i)) */
	float		*w;		/* nfeat: the worker's copy of its weights */
	uint16_t	*trust;		/* nfeat: trust radius delta_j
				   (ps_trust_pack()) */
	uint8_t		*active;	/* nfeat: in the KKT active set */
	uint32_t	*nent;		/* nfeat: entries of each feature */
	double		 beta;		/* weight of the row-count factor k_i */
	uint32_t	 nreserved;	/* blocks reserved, not yet applied */
	/* Pending features per row: their count and radius sum (r_i, k_i). */
	uint32_t	*pendk;		/* nrows */
	double		*pendr;		/* nrows */
	/*
	 * Scratch of the size of the largest block, by slot: the sums and
	 * the trust radius of each active feature, 0 for an inactive one
	 * (an active feature's radius is positive: prox.h), which is how
	 * the sweeps tell them apart.  Three arrays of 20 bytes a feature
	 * in all, against four of 25 with a double radius and an active
	 * flag: the sweeps' scattered reads miss the cache less.
	 */
	double		*bg, *bu;
	float		*bd;
	/*
	 * With ps_l1lr_take_room(): the shard's entry arrays, in which block
	 * b's live copy has the room of its entries from the sum of the
	 * entries of the blocks before it; else NULL (each copy allocates).
	 */
	uint32_t	*room_pos;
	float		*room_val;
};

/*
 * Build the per-block views of the shard: block b holds the local features
 * feats[boff[b]] .. feats[boff[b+1] - 1] (each feature in one block; the
 * caller keeps feats alive).  All weights 0, trust radii PS_TRUST_INIT.
 * The blocks copy the shard's entries: lr reads its counts, labels and
 * row offsets later, never its entries (col, val): see
 * ps_l1lr_take_room().
 */
void	ps_l1lr_init(struct ps_l1lr *lr, const struct ps_dataset *ds,
	    double beta, uint32_t nblocks, const size_t *boff,
	    const uint32_t *feats);
void	ps_l1lr_release(struct ps_l1lr *lr);
/*
 * Take ds's entry arrays (col, val: NULL then), which lr no longer reads,
 * as the room of the blocks' live copies (l1lr_live.c): their memory is
 * resident already, and a copy then costs no fresh pages.
 */
void	ps_l1lr_take_room(struct ps_l1lr *lr, struct ps_dataset *ds);
/* Count block b's active features as pending (once; apply releases). */
void	ps_l1lr_reserve(struct ps_l1lr *lr, uint32_t b);
/*
 * Reserve block b if needed, then put its active features' gradient and
 * curvature bound into gu[2p] and gu[2p+1], p their position in the block
 * (meaningless for inactive ones, which are not pushed).
 */
void	ps_l1lr_block_grad(struct ps_l1lr *lr, uint32_t b, float *gu);
/*
 * Take new weights wnew[p] for block b's pending (active) features: they
 * stop being pending; update margins, row losses, the total loss and trust
 * radii.  Entries for inactive features are ignored.  slack (NULL: all 0)
 * bounds how far the servers' step may exceed the one seen here (a filter
 * left weights out of replies): the trust radii then assume a step that
 * much larger, so that they still bound the servers' radii; slack[p] < 0
 * says the servers left the weight and its radius alone (not pushed).
 * Then the active features with drop[p] set (NULL: none; the servers'
 * KKT verdict) leave the active set.  Returns how many weights changed.
 */
size_t	ps_l1lr_apply(struct ps_l1lr *lr, uint32_t b, const float *wnew,
	    const float *slack, const uint8_t *drop);
/* Put every feature back in the active set; returns how many came back. */
size_t	ps_l1lr_activate_all(struct ps_l1lr *lr);
/*
 * The active flags changed other than by ps_l1lr_apply(), with no block
 * reserved: the sweeps go over every entry again.
 */
void	ps_l1lr_live_reset(struct ps_l1lr *lr);
/*
 * The caller set w, trust and active anew (a restarted worker): forget
 * every reservation and recompute the margins and the loss from w.
 */
void	ps_l1lr_restart(struct ps_l1lr *lr);
/* Recompute the total loss from scratch (bounds rounding drift). */
double	ps_l1lr_loss(struct ps_l1lr *lr);
/* Margins of the rows of another data set under weights given per fid. */
void	ps_l1lr_margins(const struct ps_dataset *ds, const float *wlocal,
	    double *margin);

#endif
