/*
 * checkpoint.c: the server's checkpoints (pskit-ckpt(5)); the model a job
 * starts from is startmodel.c's.
 *
 * Invariants:
 *  1. A checkpoint is taken after a round, never between its sends: a
 *     worker flags its push for round t (ckpt, msg_round.h),
 *     and every server writes its part of channel 0 once it applied t,
 *     as CKDIR/v<base + t + 1>/part-<its server index>.psm.  Every server
 *     applies the same rounds, so the parts are of one weight vector.
 *  2. A part is written atomically (atomicfile.h); the server that finds
 *     every part of the version present writes the MANIFEST (ps_ckpt_seal),
 *     also atomically, last.  Two servers that both find them all write
 *     the same manifest.  So a version has a MANIFEST only when complete,
 *     and a kill at any point leaves the versions before it as they were.
 *  3. After sealing, only the newest srv->ckpt.keep versions that have a
 *     MANIFEST are kept; older versions, sealed or not, are removed, each
 *     MANIFEST first (unlinked and the directory synced), so a kill while
 *     removing leaves an incomplete version.  Only versions of the
 *     directory's job (the JOB each carries, ckptjob.h) are counted or
 *     removed: another job's stay.
 *  6. A checkpoint that cannot be written is logged as "checkpoint
 *     failed: REASON", the line launchers pass on (ps-train(1)), and
 *     counted (checkpoints_failed); its version directory is removed if
 *     this server left it empty.
 *  4. A request (SIGUSR1, the "checkpoint" text command) sets wanted; the
 *     next pull reply to worker 0 of channel 0's job says so and clears
 *     it (ckpt_tell, round.c); worker 0 flags its next push, unless it
 *     flagged one after the round replied to (ps-worker's ckpt.c), and
 *     any checkpoint written here clears it too.  So one request to
 *     every server makes one checkpoint, whatever rounds are in flight,
 *     when it reaches them all before the round that checkpoint follows;
 *     one that reaches a server after it wrote that checkpoint is a new
 *     request there and makes a second.
 *  5. An online job (sgd) has no rounds, and its pushes reach only the
 *     servers of a mini-batch's keys: worker 0 sends every server a SAVE
 *     naming the checkpoint (msg_online.h) behind its push of mini-batch t,
 *     and each writes its state as it is then, as version t + 1 with
 *     worker 0's epochs of data, the same on every server; any snapshot
 *     is one an asynchronous run could have had.  After the end barrier
 *     the version is the mini-batches of all workers, with their epochs
 *     (online.c, invariant 6), so it comes after every earlier one.
 *     A request reaches worker 0 in its next CURRENT pull's reply.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cluster/hello.h"
#include "model/ckptdir.h"
#include "model/ckptjob.h"
#include "server.h"
#include "util/atomicfile.h"
#include "util/errbuf.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Invariant 4: ask for a checkpoint of channel 0's job. */
int
ckpt_request(struct server *srv, char *err, size_t errlen)
{
	struct channel *ch = srv->channels[0];

	if (srv->ckpt.dir == NULL) {
		snprintf(err, errlen, "no checkpoint directory (-k)");
		return -1;
	}
	if (ch == NULL || !ch->job.active) {
		snprintf(err, errlen, "no job is running");
		return -1;
	}
	srv->ckpt.wanted = 1;
	log_info("checkpoint requested: it follows worker 0's next round");
	return 0;
}

/*
 * Invariant 4: does this reply to p carry the request to worker 0 of
 * channel 0's job?  Once it does, the request is passed on.
 */
int
ckpt_tell(struct channel *ch, const struct peer *p)
{
	struct server *srv = ch->srv;

	if (!srv->ckpt.wanted || ch->id != 0 || !p->is_worker ||
	    p->ch != ch || p->worker_id != 0)
		return 0;
	srv->ckpt.wanted = 0;
	return 1;
}

/*
 * Remove a version directory and every file in it, the MANIFEST first: a
 * kill on the way leaves an incomplete version, never a sealed one with
 * parts missing.
 */
static void
ckpt_remove(const char *vdir)
{
	struct dirent *de;
	DIR *d;
	char *path;

	path = xasprintf("%s/%s", vdir, PS_MANIFEST_NAME);
	if (unlink(path) == 0 && ps_atomic_sync_dir(path) != 0)
		log_warn("cannot sync '%s'", vdir);
	free(path);
	if ((d = opendir(vdir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = xasprintf("%s/%s", vdir, de->d_name);
		unlink(path);
		free(path);
	}
	closedir(d);
	if (rmdir(vdir) == 0)
		log_info("removed old checkpoint %s", vdir);
}

/* True when version directory vdir is of the job named by job (JOB). */
static int
ckpt_is_ours(const char *vdir, const char *job)
{
	char err[512], *vjob;
	int same;

	if (ps_ckpt_job_read(vdir, &vjob, err, sizeof err) != 0) {
		log_warnx("%s", err);
		return 0;
	}
	same = ps_ckpt_job_same(vjob, job);
	free(vjob);
	return same;
}

/*
 * Invariant 3: keep the newest keep sealed versions of this directory's
 * job (its JOB, ckptjob.h), nothing older of it; another job's versions
 * are neither counted nor removed.
 */
static void
ckpt_prune(const struct server *srv)
{
	struct ps_ckpt_version *v;
	struct stat st;
	size_t n, i, sealed = 0;
	char err[512], *path, *vdir, *job;

	if (ps_ckpt_job_read(srv->ckpt.dir, &job, err, sizeof err) != 0 ||
	    ps_ckpt_list(srv->ckpt.dir, &v, &n, err, sizeof err) != 0) {
		log_warnx("checkpoints not rotated: %s", err);
		return;
	}
	for (i = n; i-- > 0;) {
		vdir = xasprintf("%s/%s", srv->ckpt.dir, v[i].name);
		path = xasprintf("%s/%s", vdir, PS_MANIFEST_NAME);
		if (!ckpt_is_ours(vdir, job))
			;
		else if (sealed < srv->ckpt.keep && stat(path, &st) == 0)
			sealed++;
		else if (sealed >= srv->ckpt.keep)
			ckpt_remove(vdir);
		free(path);
		free(vdir);
	}
	ps_ckpt_list_free(v, n);
	free(job);
}

/* Invariant 2: seal vdir if every one of its nservers parts is there. */
static void
ckpt_try_seal(const struct server *srv, const char *vdir, uint32_t nservers)
{
	char err[1024], **names;
	size_t n, i;

	if (ps_model_dir_list(vdir, &names, &n, err, sizeof err) != 0) {
		log_warnx("%s", err);
		return;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (n < nservers)
		return;
	if (ps_ckpt_seal(vdir, NULL, err, sizeof err) != 0) {
		log_warnx("checkpoint %s not sealed: %s", vdir, err);
		return;
	}
	log_info("checkpoint %s complete", vdir);
	ckpt_prune(srv);
}

/*
 * A checkpoint could not be written: say so in the one form launchers
 * look for (ps-train(1)), count it, and leave no empty version behind.
 */
static void
ckpt_failed(struct server *srv, const char *vdir, const char *why)
{
	srv->stats.ckpt_failed++;
	log_warnx("checkpoint failed: %s", why);
	(void)rmdir(vdir);	/* only if nothing is in it */
}

/*
 * Create version directory vdir, or take it as it is if another server of
 * this job made it (it has our JOB, or none yet and no MANIFEST: it is
 * being written; where the directory has no JOB, neither has any of its
 * versions); another job's is not written into.  0, or -1 with the reason
 * in err.
 */
static int
ckpt_make_vdir(const struct server *srv, const char *vdir, char *err,
    size_t errlen)
{
	char *job, *vjob, *manifest;
	struct stat st;
	int ours;

	if (mkdir(vdir, 0777) == 0)
		return 0;
	if (errno != EEXIST)
		return ps_errbuf(err, errlen, -1, "cannot create '%s': %s",
		    vdir, strerror(errno));
	if (ps_ckpt_job_read(srv->ckpt.dir, &job, err, errlen) != 0)
		return -1;
	/* One read of vdir's JOB: the server that made it may write it now. */
	if (ps_ckpt_job_read(vdir, &vjob, err, errlen) != 0) {
		free(job);
		return -1;
	}
	if (vjob != NULL || job == NULL) {
		ours = ps_ckpt_job_same(vjob, job);
	} else {
		manifest = xasprintf("%s/%s", vdir, PS_MANIFEST_NAME);
		ours = stat(manifest, &st) != 0;
		free(manifest);
	}
	free(job);
	free(vjob);
	if (!ours)
		return ps_errbuf(err, errlen, -1, "'%s' holds another job's "
		    "checkpoint (its JOB is not %s/JOB)", vdir,
		    srv->ckpt.dir);
	return 0;
}

/* Copy the checkpoint directory's JOB into vdir; 0, or -1 with err. */
static int
ckpt_write_job(const struct server *srv, const char *vdir, char *err,
    size_t errlen)
{
	char *job;
	int rc = 0;

	if (ps_ckpt_job_read(srv->ckpt.dir, &job, err, errlen) != 0)
		return -1;
	if (job != NULL)
		rc = ps_ckpt_job_write(vdir, job, err, errlen);
	free(job);
	return rc;
}

/* Write this server's part of ch as version iteration, and seal it. */
static void
ckpt_write(struct channel *ch, uint64_t iteration)
{
	struct server *srv = ch->srv;
	const struct job *job = &ch->job;
	char err[1024], *vdir, *path;
	double started = ps_clock_now();

	srv->ckpt.wanted = 0;	/* a request waiting here is served too */
	vdir = ps_ckpt_version_path(srv->ckpt.dir, iteration);
	if (ckpt_make_vdir(srv, vdir, err, sizeof err) != 0) {
		log_warnx("checkpoint failed: %s", err);
		srv->stats.ckpt_failed++;
		free(vdir);
		return;
	}
	path = xasprintf("%s/part-%u.psm", vdir, job->server_index);
	if (ckpt_write_job(srv, vdir, err, sizeof err) != 0 ||
	    store_save(&ch->store, job, iteration, path, err,
	    sizeof err) != 0) {
		ckpt_failed(srv, vdir, err);
	} else {
		log_info("checkpoint %s: part %u, %llu weights, written in "
		    "%.3f s", vdir, job->server_index,
		    (unsigned long long)ch->store.nnz, ps_clock_now() - started);
		ckpt_try_seal(srv, vdir, job->nservers ? job->nservers : 1);
	}
	free(path);
	free(vdir);
}

/* Invariant 1: round t of ch was applied and flagged: write our part. */
void
ckpt_round(struct channel *ch, uint64_t t)
{
	if (ch->srv->ckpt.dir != NULL && ch->id == 0)
		ckpt_write(ch, ch->job.iter_base + t + 1);
}

/*
 * Invariant 5: worker 0 of an online job asks for a checkpoint with a
 * SAVE whose scalars ps_save_decode() checked (msg_online.h); 0, or -1
 * with the reason in err.
 */
int
ckpt_sgd(struct channel *ch, const struct ps_save *save, char *err,
    size_t errlen)
{
	struct job *job = &ch->job;
	double it = save->iteration, epochs = save->epochs;

	if (job->algorithm != PS_ALG_SGD || ch->store.z == NULL) {
		snprintf(err, errlen, "malformed checkpoint request");
		return -1;
	}
	if (ch->srv->ckpt.dir == NULL || ch->id != 0) {
		log_warnx("channel %u: worker 0 asked for a checkpoint, but "
		    "this server writes none (-k, channel 0)", ch->id);
		return 0;
	}
	if (it >= 0)	/* else the end barrier set both (online.c) */
		ch->store.epochs = job->online.base + epochs;
	ckpt_write(ch, job->iter_base +
	    (it >= 0 ? (uint64_t)it : job->rounds_done));
	return 0;
}

/* -k: the checkpoint directory must exist or be creatable now. */
void
ckpt_dir_check(const struct server *srv)
{
	struct stat st;

	if (srv->ckpt.dir == NULL)
		return;
	if (mkdir(srv->ckpt.dir, 0777) != 0 && errno != EEXIST)
		fatal(EX_CANTCREAT, "cannot create '%s'", srv->ckpt.dir);
	if (stat(srv->ckpt.dir, &st) != 0 || !S_ISDIR(st.st_mode))
		fatalx(EX_CANTCREAT, "'%s' is not a directory", srv->ckpt.dir);
}
