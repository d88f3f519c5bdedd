/*
 * l1lr_live.h: what l1lr.c asks of l1lr_live.c, private to the two: the
 * drop of features from a block's active set, and the live copy that
 * apply's sweep makes when it pays.
 */
#ifndef PS_L1LR_LIVE_H
#define PS_L1LR_LIVE_H

#include <stdint.h>

#include "algo/l1lr.h"

int	l1lr_live_drop(struct ps_l1lr *lr, struct ps_l1lr_block *bl,
	    const uint8_t *drop);
void	l1lr_live_copied(struct ps_l1lr_block *bl);

#endif
