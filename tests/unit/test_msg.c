/*
 * test_msg.c: unit tests of the typed scalars of lib/wire (msg_round.h,
 * msg_online.h, msg_ctl.h, msg_coord.h): what an encoder writes its
 * decoder reads back the same, absent optional scalars read as their
 * headers say, and out-of-range ones are refused with the reason.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire/msg_coord.h"
#include "wire/msg_ctl.h"
#include "wire/msg_online.h"
#include "wire/msg_round.h"

static void
test_round(void **state)
{
	struct ps_dbpg_push push = { 2.5, INFINITY, 1 }, gotp;
	struct ps_round_reply rep, gotr;
	struct ps_msg m;
	char err[128];
	uint64_t round;
	double theta;
	int resume;

	memset(&m, 0, sizeof m);
	ps_dbpg_push_encode(&push, &m);
	ps_dbpg_push_decode(&m, &gotp);
	assert_true(gotp.loss == 2.5 && isinf(gotp.vote) && gotp.ckpt == 1);
	m.naux = 1;		/* loss only: vote 0, no checkpoint */
	ps_dbpg_push_decode(&m, &gotp);
	assert_true(gotp.vote == 0 && gotp.ckpt == 0);

	ps_round_pull_encode(NAN, &m);
	assert_int_equal(m.naux, 0);
	assert_int_equal(ps_round_pull_decode(&m, &theta, err, sizeof err), 0);
	assert_true(isnan(theta));
	ps_round_pull_encode(-1, &m);
	assert_int_equal(ps_round_pull_decode(&m, &theta, err, sizeof err), -1);
	assert_string_equal(err, "pull with a bad filter threshold -1");

	memset(&rep, 0, sizeof rep);
	rep.result = (struct ps_round_result){ 1, 2, 3, 4, 5, 6, 0.25, NAN,
	    NAN };
	ps_round_reply_encode(&rep, &m);
	assert_int_equal(m.naux, 9);
	assert_int_equal(ps_round_reply_decode(&m, &gotr), 0);
	assert_true(isnan(gotr.result.step));
	rep.result.step = 0.5;		/* a newton step round's */
	ps_round_reply_encode(&rep, &m);
	assert_int_equal(m.naux, 10);
	assert_int_equal(ps_round_reply_decode(&m, &gotr), 0);
	assert_true(gotr.result.step == 0.5 && isnan(gotr.result.radius));
	rep.result.step = NAN;
	rep.result.radius = 4;		/* a newton gradient round's */
	ps_round_reply_encode(&rep, &m);
	assert_int_equal(m.naux, 11);
	assert_int_equal(ps_round_reply_decode(&m, &gotr), 0);
	assert_true(isnan(gotr.result.step) && gotr.result.radius == 4);
	rep.result.radius = NAN;
	rep.ckpt = 1;
	ps_round_reply_encode(&rep, &m);
	assert_int_equal(ps_round_reply_decode(&m, &gotr), 0);
	assert_true(gotr.result.loss == 1 && gotr.result.nnz_after == 5 &&
	    gotr.result.vote == 6 && gotr.again == 0 && gotr.ckpt == 1 &&
	    gotr.result.kkt == 0.25);
	m.naux = 8;		/* a server without the KKT sum */
	assert_int_equal(ps_round_reply_decode(&m, &gotr), 0);
	assert_true(isnan(gotr.result.kkt) && gotr.ckpt == 1);
	m.naux = 4;
	assert_int_equal(ps_round_reply_decode(&m, &gotr), -1);

	ps_resume_pull_encode(7, &m);
	assert_int_equal(ps_resume_pull_decode(&m, &resume, &round, err,
	    sizeof err), 0);
	assert_true(resume == 1 && round == 7);
	m.naux = 1;
	assert_int_equal(ps_resume_pull_decode(&m, &resume, &round, err,
	    sizeof err), -1);
	assert_string_equal(err, "resume pull without its round");
}

/* A newton step push: a dbpg push's scalars, then the worker's parts. */
static void
test_newton_push(void **state)
{
	struct ps_newton_push p, got;
	struct ps_dbpg_push base;
	struct ps_msg m;
	size_t k;

	memset(&m, 0, sizeof m);
	memset(&p, 0, sizeof p);
	p.base = (struct ps_dbpg_push){ 2.5, 1, 1 };
	p.kkt = 0.5;
	p.pred = -3;
	p.f0 = 9;
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		p.trial[k] = 8 - (double)k;
	ps_newton_push_encode(&p, &m);
	assert_int_equal(m.naux, PS_NEWTON_PUSH_NAUX);
	ps_newton_push_decode(&m, &got);
	assert_true(got.base.loss == 2.5 && got.base.vote == 1 &&
	    got.base.ckpt == 1 && got.kkt == 0.5 && got.pred == -3 &&
	    got.f0 == 9);
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		assert_true(got.trial[k] == p.trial[k]);
	ps_dbpg_push_decode(&m, &base);	/* what the sums rounds read */
	assert_true(base.loss == 2.5 && base.vote == 1 && base.ckpt == 1);
	m.naux = 5;
	ps_newton_push_decode(&m, &got);
	assert_true(got.pred == -3 && isnan(got.f0) && isnan(got.trial[0]));
}

/* A newton gradient push: a dbpg push's scalars, then the radius. */
static void
test_newton_grad_push(void **state)
{
	struct ps_newton_grad_push p = { { 1.5, 0, 0 }, 0.25 }, got;
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	ps_newton_grad_push_encode(&p, &m);
	assert_int_equal(m.naux, 4);
	ps_newton_grad_push_decode(&m, &got);
	assert_true(got.base.loss == 1.5 && got.base.vote == 0 &&
	    got.radius == 0.25);
	m.naux = 3;		/* without it */
	ps_newton_grad_push_decode(&m, &got);
	assert_true(got.base.loss == 1.5 && isnan(got.radius));
}

static void
test_online(void **state)
{
	struct ps_current_reply cur = { 1.5, 3, 1, UINT64_MAX }, gotc;
	struct ps_save save = { 1, -1, 0.5 }, gots;
	struct ps_msg m;
	char err[128];
	double epochs;

	memset(&m, 0, sizeof m);
	ps_sgd_push_encode(0.25, &m);
	assert_int_equal(ps_sgd_push_decode(&m, &epochs, err, sizeof err), 0);
	assert_true(epochs == 0.25);
	ps_sgd_push_encode(-1, &m);
	m.timestamp = 3;
	assert_int_equal(ps_sgd_push_decode(&m, &epochs, err, sizeof err), -1);
	assert_string_equal(err, "malformed sgd push: timestamp 3, epochs -1");

	ps_barrier_pull_encode(INFINITY, &m);
	assert_true(isnan(ps_barrier_pull_decode(&m)));

	ps_current_reply_encode(&cur, &m);
	assert_int_equal(ps_current_reply_decode(&m, &gotc), 0);
	assert_true(gotc.l1 == 1.5 && gotc.nnz == 3 && gotc.ckpt == 1);
	assert_true(gotc.held == UINT64_MAX);
	cur.ckpt = 0;
	cur.held = 41;
	ps_current_reply_encode(&cur, &m);
	assert_int_equal(ps_current_reply_decode(&m, &gotc), 0);
	assert_true(gotc.ckpt == 0 && gotc.held == 41);
	m.naux = 1;
	assert_int_equal(ps_current_reply_decode(&m, &gotc), -1);

	ps_save_encode(&save, &m);
	assert_int_equal(ps_save_decode(&m, &gots, err, sizeof err), 0);
	assert_true(gots.ckpt == 1 && gots.iteration == -1 &&
	    gots.epochs == 0.5);
	save.iteration = 0.5;
	ps_save_encode(&save, &m);
	assert_int_equal(ps_save_decode(&m, &gots, err, sizeof err), -1);
	assert_string_equal(err, "malformed checkpoint request");
	m.naux = 0;		/* a plain SAVE: -o's part */
	assert_int_equal(ps_save_decode(&m, &gots, err, sizeof err), 0);
	assert_int_equal(gots.ckpt, 0);
}

static void
test_ctl_coord(void **state)
{
	struct ps_register reg = { PS_COORD_WORKER, 12, 0 }, gotr;
	struct ps_heartbeat hb = { PS_COORD_HB_N, { 1, 2, 3, 4 }, 9 }, goth;
	struct ps_replicate rep = { .kind = 0 }, gotrep;
	struct ps_msg m;
	char err[128];
	double ms;

	memset(&m, 0, sizeof m);
	ps_keys_missing_encode(PS_MSG_PUSH, &m);
	assert_int_equal(ps_keys_missing_decode(&m), PS_MSG_PUSH);
	m.aux[0] = 0.5;
	assert_int_equal(ps_keys_missing_decode(&m), 0);
	rep.kind = PS_REPLICATE_HANDOFF;
	ps_replicate_encode(&rep, &m);
	assert_int_equal(m.naux, 1);
	assert_int_equal(ps_replicate_decode(&m, &gotrep), 0);
	assert_true(gotrep.kind == PS_REPLICATE_HANDOFF && !gotrep.online);
	m.naux = 0;
	assert_int_equal(ps_replicate_decode(&m, &gotrep), 0);
	assert_int_equal(gotrep.kind, PS_REPLICATE_ROUND);
	rep.kind = PS_REPLICATE_PUSH;
	rep.online = 2;
	rep.worker = 7;
	ps_replicate_encode(&rep, &m);
	assert_int_equal(ps_replicate_decode(&m, &gotrep), 0);
	assert_true(gotrep.kind == PS_REPLICATE_PUSH && gotrep.online == 2 &&
	    gotrep.worker == 7);
	m.aux[1] = 0.5;
	assert_int_equal(ps_replicate_decode(&m, &gotrep), -1);
	m.aux[1] = 1;
	m.aux[0] = PS_REPLICATE_FLOOR + 1;
	assert_int_equal(ps_replicate_decode(&m, &gotrep), -1);
	rep.kind = PS_REPLICATE_HANDOFF;
	rep.epochs = 20;
	rep.iteration = 680;
	ps_replicate_encode(&rep, &m);
	assert_int_equal(m.naux, 6);
	assert_int_equal(ps_replicate_decode(&m, &gotrep), 0);
	assert_true(gotrep.epochs == 20 && gotrep.iteration == 680);

	ps_register_encode(&reg, &m);
	assert_int_equal(ps_register_decode(&m, &gotr, err, sizeof err), 0);
	assert_true(gotr.role == PS_COORD_WORKER && gotr.worker_id == 12);
	reg.worker_id = 70000;
	ps_register_encode(&reg, &m);
	assert_int_equal(ps_register_decode(&m, &gotr, err, sizeof err), -1);
	assert_string_equal(err, "invalid worker id 70000");
	reg.role = 3;
	ps_register_encode(&reg, &m);
	assert_int_equal(ps_register_decode(&m, &gotr, err, sizeof err), -1);
	assert_string_equal(err, "unknown role 3");

	ps_ring_msg_encode(300, &m);
	assert_true(ps_ring_msg_decode(&m, &ms) == 0 && ms == 300);
	m.naux = 0;
	assert_int_equal(ps_ring_msg_decode(&m, &ms), -1);

	ps_heartbeat_encode(&hb, &m);
	ps_heartbeat_decode(&m, &goth);
	assert_true(goth.count[PS_COORD_HB_REQUESTS] == 4 &&
	    goth.copying == 9);
	m.naux = 2;		/* two counters, no copying */
	ps_heartbeat_decode(&m, &goth);
	assert_true(goth.count[1] == 2 && goth.count[2] < 0 &&
	    goth.copying == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round),
		cmocka_unit_test(test_newton_push),
		cmocka_unit_test(test_newton_grad_push),
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_ctl_coord),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
