/*
 * tmpdir.h: a temporary directory for one cmocka unit test, made under
 * $TMPDIR (or /tmp) and named after the test program.  The caller frees
 * the path and removes the directory.  Include after <cmocka.h>.
 */
#ifndef PS_TEST_TMPDIR_H
#define PS_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make a fresh directory "$TMPDIR/prog.XXXXXX"; fails the test if not. */
static inline char *
test_tmp_dir(const char *prog)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = malloc(strlen(base) + strlen(prog) + 16);

	assert_non_null(p);
	sprintf(p, "%s/%s.XXXXXX", base, prog);
	assert_non_null(mkdtemp(p));
	return p;
}

#endif
