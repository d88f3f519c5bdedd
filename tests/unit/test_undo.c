/*
 * test_undo.c: unit tests of the server's records of what a round's step
 * replaced (cmd/ps-server/undo.c): a key's state before the round comes
 * back, for each round apart, also after a round was applied again for
 * more keys; a key the round did not touch has none; forgetting a range
 * of rounds keeps the others.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "server.h"

/* A store of keys 100..104 with weight, radius and gradient sum v + k. */
static void
fill(struct store *st, float v)
{
	uint32_t k;

	for (k = 0; k < 5; k++) {
		uint32_t s = store_slot(st, 100 + k);

		store_set(st, s, v + (float)k);
		st->trust[s] = 2 * v + (float)k;
		st->glast[s] = 3 * v + (float)k;
	}
}

static void
assert_entry(const struct undo_entry *e, float v, uint32_t k)
{
	assert_non_null(e);
	assert_true(e->w == v + (float)k);
	assert_true(e->trust == 2 * v + (float)k);
	assert_true(e->glast == 3 * v + (float)k);
}

static void
test_keep_find_forget(void **state)
{
	struct store st;
	struct undo_list list = { NULL, 0 };
	const uint32_t round3[] = { 4, 1 }, round5[] = { 2 }, again3[] = { 0 };

	(void)state;
	store_init(&st);
	fill(&st, 10);
	undo_keep(&list, 3, &st, round3, 2);
	fill(&st, 20);
	undo_keep(&list, 5, &st, round5, 1);
	assert_entry(undo_find(&list, 3, 4), 10, 4);	/* sorts round 3 */
	fill(&st, 30);
	undo_keep(&list, 3, &st, again3, 1);	/* applied again (ring change) */
	fill(&st, 40);

	assert_entry(undo_find(&list, 3, 1), 10, 1);
	assert_entry(undo_find(&list, 3, 4), 10, 4);
	assert_entry(undo_find(&list, 3, 0), 30, 0);
	assert_null(undo_find(&list, 3, 2));
	assert_entry(undo_find(&list, 5, 2), 20, 2);
	assert_null(undo_find(&list, 5, 1));
	assert_null(undo_find(&list, 4, 1));

	undo_forget(&list, 0, 5);
	assert_null(undo_find(&list, 3, 1));
	assert_entry(undo_find(&list, 5, 2), 20, 2);
	undo_forget(&list, 0, UINT64_MAX);
	assert_int_equal(list.n, 0);
	assert_null(list.recs);
	store_release(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_find_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
