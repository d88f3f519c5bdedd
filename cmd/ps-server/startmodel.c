/*
 * startmodel.c: the model a server's first job starts from (-i): a
 * checkpoint directory's latest complete version, one version, or parts
 * (pskit-ckpt(5)).
 *
 * Invariants:
 *  1. The model is loaded and checked in full when the server starts; a
 *     damaged one stops it with the loader's message (file, offset,
 *     reason).  A checkpoint directory whose newest version is not sound
 *     gives its newest sound one, with a warning naming the one skipped.
 *  2. The first job takes from it the keys its ring gives this server (all
 *     keys without a ring), so any number of servers start from a model
 *     of any other number; sends them to its replicas; and numbers its
 *     rounds on from the model's iteration (job->iter_base).
 *  3. An online job of the optimiser that wrote the model takes its state
 *     too (z, n and the epochs of data behind them: pskit-model(5) format
 *     2) and goes on as if it had run all along; from weights alone it
 *     starts as store_online_begin() says.  The model is then freed.
 */
#include "config.h"

#include <string.h>
#include <sysexits.h>

#include "algo/ftrl.h"
#include "model/ckptdir.h"
#include "server.h"
#include "util/log.h"

/* Warn when a checkpoint directory's newest version was not the one loaded. */
static void
startmodel_skipped(const char *ckdir, const char *loaded)
{
	struct ps_ckpt_version *v;
	const char *base = strrchr(loaded, '/');
	char err[512];
	size_t n;

	if (ps_ckpt_kind(ckdir) != PS_CKPT_CKDIR ||
	    ps_ckpt_list(ckdir, &v, &n, err, sizeof err) != 0)
		return;
	base = base != NULL ? base + 1 : loaded;
	if (n > 0 && strcmp(v[n - 1].name, base) != 0)
		log_warnx("'%s': the newer %s is incomplete or damaged (see "
		    "ps-ckpt ls); starting from %s", ckdir, v[n - 1].name,
		    base);
	ps_ckpt_list_free(v, n);
}

/* Load the -i model at start; exit with the loader's message if bad. */
void
startmodel_load(struct server *srv, const char *path)
{
	struct ps_ckpt_source src;
	char err[1024];
	double started = ps_clock_now();
	int rc;

	memset(&src, 0, sizeof src);
	rc = ps_ckpt_load(&path, 1, &srv->ckpt.init, &src, err, sizeof err);
	if (rc != 0)
		fatalx(rc == PS_MODEL_ESYS ? EX_NOINPUT : EX_DATAERR,
		    "cannot start from '%s': %s", path, err);
	srv->ckpt.have_init = 1;
	if (src.version != NULL)
		startmodel_skipped(path, src.version);
	log_info("starting model %s: iteration %llu, %zu weights, read and "
	    "checked in %.3f s", src.version != NULL ? src.version : path,
	    (unsigned long long)srv->ckpt.init.iteration, srv->ckpt.init.n,
	    ps_clock_now() - started);
	ps_ckpt_source_release(&src);
}

/*
 * Does an online job of optimiser opt take m's optimiser state (a model
 * written by an online job of the same optimiser)?  opt NULL: a dbpg job.
 */
static int
startmodel_state(const struct ps_model *m, const struct ps_ftrl *opt)
{
	if (m->z == NULL || opt == NULL)
		return 0;
	if ((int)m->optimizer != opt->opt) {
		log_warnx("the starting model holds %s state, the job runs "
		    "%s: it takes the weights only", ps_ftrl_name((int)
		    m->optimizer), ps_ftrl_name(opt->opt));
		return 0;
	}
	return 1;
}

/*
 * Invariants 2 and 3: the first job of the server takes the -i model; an
 * online job of opt (NULL for dbpg) takes its optimiser state too.
 */
void
startmodel_apply(struct channel *ch, const struct ps_ftrl *opt)
{
	struct server *srv = ch->srv;
	struct store *st = &ch->store;
	struct ps_model *m = &srv->ckpt.init;
	size_t i, taken = 0;
	int state;
	uint32_t s;

	if (!srv->ckpt.have_init)
		return;
	if ((state = startmodel_state(m, opt)))
		store_online_state(st, (int)m->optimizer, m->epochs);
	for (i = 0; i < m->n; i++) {
		if (srv->have_ring &&
		    ps_ring_lookup(&srv->ring, m->fids[i]) != srv->ring_index)
			continue;
		s = store_slot(st, m->fids[i]);
		store_set(st, s, m->w[i]);
		if (state) {
			st->z[s] = m->z[i];
			st->n[s] = m->nsq[i];
		}
		taken++;
	}
	ch->job.iter_base = m->iteration;
	log_info("channel %u starts from the model of iteration %llu: %zu of "
	    "its %zu weights are this server's", ch->id,
	    (unsigned long long)m->iteration, taken, m->n);
	if (srv->have_ring && srv->ring.replicas > 0)
		srv->failover->resync(ch);
	ps_model_release(m);
	srv->ckpt.have_init = 0;
}
