/*
 * ckpt.c: when worker 0 asks the servers for a checkpoint
 * (cmd/ps-server/checkpoint.c), for both algorithms: every
 * --checkpoint-every iterations or mini-batches, every --checkpoint-secs
 * seconds, and when a server's reply passed on a request made there.
 * dbpg flags a round's push (dbpg.c, rule 7); sgd, whose pushes reach
 * only the servers of a mini-batch's keys, sends every server a SAVE that
 * names the checkpoint (ckpt_sgd_save).
 */
#include "config.h"

#include <string.h>

#include "wire/msg_online.h"
#include "worker.h"

/* Does worker 0 ask for a checkpoint after iteration or mini-batch t? */
int
ckpt_due(struct worker *w, uint64_t t)
{
	double now = ps_clock_now();

	if (w->conf.id != 0)
		return 0;
	if (w->ckpt_asked || (w->conf.ckpt_every > 0 &&
	    (t + 1) % w->conf.ckpt_every == 0) || (w->conf.ckpt_secs > 0 &&
	    now - w->ckpt_last >= w->conf.ckpt_secs)) {
		w->ckpt_asked = 0;
		w->ckpt_last = now;
		w->ckpt_after = t + 1;
		return 1;
	}
	return 0;
}

/*
 * A server's reply to iteration or mini-batch t passed on a request made
 * there.  A checkpoint already asked for after a later one is after the
 * request at that server too, and serves it: one request sent to every
 * server makes one checkpoint.
 */
void
ckpt_requested(struct worker *w, uint64_t t)
{
	if (t + 1 >= w->ckpt_after)
		w->ckpt_asked = 1;
}

/* Does worker 0 write checkpoints at all (and so one at the end)? */
int
ckpt_periodic(const struct worker *w)
{
	return w->conf.id == 0 &&
	    (w->conf.ckpt_every > 0 || w->conf.ckpt_secs > 0);
}

/*
 * sgd: ask every server for a checkpoint of the state after this
 * worker's mini-batch t (its pushes went before on each connection), as
 * iteration t + 1 with epochs of data: this worker's, which every server
 * takes alike.  final: after the end barrier, when the servers hold the
 * sums of all workers and take those instead.
 */
void
ckpt_sgd_save(struct worker *w, uint64_t t, double epochs, int final)
{
	struct ps_save save = { 1, final ? -1 : (double)(t + 1), epochs };
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	links_msg(w, &m, PS_MSG_SAVE, PS_MSG_F_NOKEYS, t);
	ps_save_encode(&save, &m);
	links_send_all(w, &m);
}
