#!/usr/bin/env bats
# layers.bats: lib/ is in layers (lib/README), and no file of lib/ includes
# a header of a layer above its own; ps-server's serving path calls its
# failover units only through struct failover_ops (tests/tools/check-calls).

load helper

@test "no file of lib/ includes a layer above its own" {
	run "$PSKIT_SRCDIR/tests/tools/check-layers" "$PSKIT_SRCDIR/lib"
	assert_success
	assert_output ''
}

@test "every layer has its README, and each lib file is in a layer" {
	for layer in $(sed -n 's/^layers: *//p' "$PSKIT_SRCDIR/lib/README"); do
		[ -s "$PSKIT_SRCDIR/lib/$layer/README" ]
	done
	run sh -c 'ls "$1"/lib/*.[ch] 2>/dev/null' sh "$PSKIT_SRCDIR"
	assert_output ''
}

@test "an upward include is caught, naming the file and the layer" {
	cp -R "$PSKIT_SRCDIR/lib" "$BATS_TEST_TMPDIR/lib"
	chmod -R u+w "$BATS_TEST_TMPDIR/lib"
	printf '#include "cluster/ring.h"\n' >>"$BATS_TEST_TMPDIR/lib/wire/varint.c"
	run "$PSKIT_SRCDIR/tests/tools/check-layers" "$BATS_TEST_TMPDIR/lib"
	assert_failure 1
	assert_output --partial 'wire/varint.c: includes cluster/, a layer above wire'
}

@test "a folder that is not a layer is caught" {
	cp -R "$PSKIT_SRCDIR/lib" "$BATS_TEST_TMPDIR/lib"
	chmod -R u+w "$BATS_TEST_TMPDIR/lib"
	mkdir "$BATS_TEST_TMPDIR/lib/misc"
	printf 'int x;\n' >"$BATS_TEST_TMPDIR/lib/misc/x.c"
	run "$PSKIT_SRCDIR/tests/tools/check-layers" "$BATS_TEST_TMPDIR/lib"
	assert_failure 1
	assert_output --partial 'misc/x.c: folder misc is not a layer'
}

@test "ps-server's serving path calls failover only through its table" {
	run "$PSKIT_SRCDIR/tests/tools/check-calls" \
	    "$PSKIT_SRCDIR/cmd/ps-server" "$PSKIT_BUILDDIR/cmd/ps-server"
	assert_success
	assert_output ''
}

@test "a direct call from the serving path to failover is caught" {
	cp -R "$PSKIT_BUILDDIR/cmd/ps-server" "$BATS_TEST_TMPDIR/obj"
	printf 'int owner_load(void);\nint f(void) { return owner_load(); }\n' |
	    cc -c -x c - -o "$BATS_TEST_TMPDIR/obj/round.o"
	run "$PSKIT_SRCDIR/tests/tools/check-calls" \
	    "$PSKIT_SRCDIR/cmd/ps-server" "$BATS_TEST_TMPDIR/obj"
	assert_failure 1
	assert_output --partial 'round.o calls owner_load (failover/owner.o)'
}
