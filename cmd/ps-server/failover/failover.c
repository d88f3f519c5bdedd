/*
 * failover.c: the failover units as the serving path sees them
 * (struct failover_ops in ../server.h).
 */
#include "config.h"

#include "failover.h"

const struct failover_ops failover_ops = {
	.load_ring = owner_load,
	.stale = owner_stale,
	.fence = owner_fence,
	.owns = owner_check,
	.job_start = rejoin_start,
	.job_end = rejoin_end,
	.worker_hello = rejoin_hello,
	.worker_gone = rejoin_gone,
	.resume_pull = rejoin_pull,
	.round_done = replica_round,
	.push_done = replica_push,
	.replicate = replica_apply,
	.resync = replica_resync,
	.release = replica_free,
};
