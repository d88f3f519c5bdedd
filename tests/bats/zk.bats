#!/usr/bin/env bats
# zk.bats: ps-ring serve -Z, the coordinator's ring in ZooKeeper, against
# a private ZooKeeper server (zk.bash): the ring survives its coordinator,
# two coordinators on one path never both publish a version, a lost
# session stops the coordinator (a short pause does not), and the errors
# of -Z.

load helper
load zk

setup_file() {
	zk_start "$BATS_FILE_TMPDIR/zk"
	export ZK_PORT ZK_PID
}

teardown_file() {
	zk_stop
}

setup() {
	ZPATH="127.0.0.1:$ZK_PORT/pskit/test$BATS_TEST_NUMBER"
}

teardown() {
	kill -CONT "$ZK_PID" 2>/dev/null || true
	ps_reap
}

# start_zcoord NAME [OPTION...]: a coordinator on $ZPATH, output in
# NAME.out; sets COORD and COORD_PID.
start_zcoord() {
	local name=$1 line
	shift
	ps_start_daemon "$BATS_TEST_TMPDIR/$name.out" ps-ring serve "$@" \
	    -Z "$ZPATH"
	COORD_PID=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/$name.out" '^listening ' 10) || return 1
	COORD=${line#listening }
}

@test "ps-ring serve -Z keeps the ring in ZooKeeper: a coordinator started again on the same path goes on from the stored version" {
	start_zcoord coord
	grep -q "new empty ring in zk://$ZPATH/ring" "$BATS_TEST_TMPDIR/coord.out.err"
	start_cserver 0
	start_cserver 1
	wait_status '$1 == "ring" && $2 == 2 && $3 == 2'
	kill -9 "$COORD_PID"
	start_zcoord again -l "$COORD"
	grep -q "ring version 2 with 2 servers from zk://$ZPATH/ring" \
	    "$BATS_TEST_TMPDIR/again.out.err"
	# Its servers come back; a third joins as version 3, saved there too.
	wait_status '$1 == "ring" && $2 == 2 && $3 == 2 && $5 == 2'
	start_cserver 2
	wait_status '$1 == "ring" && $2 == 3 && $3 == 3'
	kill -9 "$COORD_PID"
	start_zcoord third
	grep -q "ring version 3 with 3 servers from zk://" \
	    "$BATS_TEST_TMPDIR/third.out.err"
}

@test "two coordinators on one path never both publish a version: the one overtaken fails to save and stops" {
	start_zcoord a
	COORD_A=$COORD PID_A=$COORD_PID
	start_zcoord b
	COORD_B=$COORD PID_B=$COORD_PID
	grep -q "ring version 0 with 0 servers" "$BATS_TEST_TMPDIR/b.out.err"
	# Both hold version 0; A stores version 1 first, with its server.
	COORD=$COORD_A
	start_cserver 0
	wait_status '$1 == "ring" && $2 == 1 && $3 == 1'
	# B cannot store its own version 1 over A's, and stops.
	COORD=$COORD_B
	start_cserver 1
	ps_wait_pid "$PID_B" 10
	[ "$PS_WAIT_STATUS" -eq 73 ]
	grep -q "cannot save ring version 1 to zk://$ZPATH/ring: .*another coordinator wrote the ring" \
	    "$BATS_TEST_TMPDIR/b.out.err"
	! grep -q "ring version 1:" "$BATS_TEST_TMPDIR/b.out.err"
	# A goes on, and the stored ring is A's.
	kill -0 "$PID_A"
	start_zcoord c
	grep -q "ring version 1 with 1 servers" "$BATS_TEST_TMPDIR/c.out.err"
	ps-ring status -C "$COORD" | grep -q "$ADDR_0"
}

@test "a coordinator without ZooKeeper for its session timeout stops; a shorter pause is ridden out" {
	start_zcoord coord -s 1000
	grep -q "timeout 1000 ms" "$BATS_TEST_TMPDIR/coord.out.err"
	start_cserver 0
	wait_status '$1 == "ring" && $2 == 1'
	kill -STOP "$ZK_PID"
	sleep 0.4
	kill -CONT "$ZK_PID"
	start_cserver 1
	wait_status '$1 == "ring" && $2 == 2 && $3 == 2'
	kill -0 "$COORD_PID"
	t0=$(now_ms)
	kill -STOP "$ZK_PID"
	ps_wait_pid "$COORD_PID" 10
	t1=$(now_ms)
	kill -CONT "$ZK_PID"
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -Eq "(no ZooKeeper server of .* answered for 1000 ms|session expired).*another may lead now" \
	    "$BATS_TEST_TMPDIR/coord.out.err"
	echo "# fenced after $((t1 - t0)) ms without ZooKeeper" >&3
	[ $((t1 - t0)) -ge 1000 ] && [ $((t1 - t0)) -lt 5000 ]
}

@test "-Z errors: a malformed connect string or a ring file beside it is a usage error; an ensemble that does not answer exits 69" {
	for bad in nohost 127.0.0.1:1 127.0.0.1:1/ '127.0.0.1:1/a//b' \
	    '127.0.0.1:1/a/../b'; do
		run ps-ring serve -Z "$bad"
		[ "$status" -eq 64 ]
		[[ "$output" == *"-Z '$bad'"* ]]
	done
	run ps-ring serve -Z "$ZPATH" "$BATS_TEST_TMPDIR/ring"
	[ "$status" -eq 64 ]
	port=$(zk_free_port)
	run ps-ring serve -s 300 -Z "127.0.0.1:$port/pskit/x"
	[ "$status" -eq 69 ]
	[[ "$output" == *"no ZooKeeper server of 127.0.0.1:$port/pskit/x answered within 300 ms"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/ring" ]
}
