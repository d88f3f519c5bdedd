#!/usr/bin/env bats
# netns.bats: several hosts on one machine.  Each server runs in its own
# Linux network namespace, joined to the root namespace by a veth pair on a
# bridge; the coordinator (ps-ring serve) and the workers stay in the root
# namespace and reach the servers over the bridge, so every connection
# crosses a real (virtual) link and the servers listen off loopback, with a
# secret.  The tests cover:
#   - registration over the link: ring show and status -j list both
#     servers by their namespace addresses, and a worker with the secret
#     trains through them to the objective of the same job on loopback;
#   - a cut link (the host's veth set down): the coordinator declares the
#     server dead by the heartbeat timeout and publishes a ring without it,
#     the server finds out by itself that it lost the coordinator (its
#     heartbeats go unacknowledged), and a job runs on the ring left;
#   - a silent blackhole (an nft table in the host's namespace dropping
#     every packet, so no RST and no FIN arrive): the same, and once the
#     table is gone the server, fenced, refuses at once a request stamped
#     with the old version instead of answering it from its old weights,
#     drops those weights and comes back as a new member.
# The detection times are printed on fd 3.  The tests need root, ip netns
# and veth/bridge links (iproute2), and nft (nftables) for the blackhole;
# without them they skip, saying what is missing.  Every namespace, link
# and nft table a test makes is recorded and deleted in teardown, after its
# processes are killed, and is named after the Bats process and the test
# number so that parallel or leftover runs do not clash.

load helper
load netns

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

setup() {
	net_setup
	RING="$BATS_TEST_TMPDIR/ring"
	SECRET="$BATS_TEST_TMPDIR/secret"
	(umask 077 && head -c 24 /dev/urandom | base64 >"$SECRET")
	COORD_AUTH=(-a "$SECRET")	# off loopback the coordinator needs it
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" \
	    "$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"
}

teardown() {
	ps_reap
	net_down
}

# start_host K [OPTION...]: a server with the secret in host K's namespace,
# registered with $COORD; sets ADDR_K and PID_K.
start_host() {
	local k=$1 ns ip line
	shift
	eval "ns=\$NS_$k ip=\$IP_$k"
	ps_start_daemon "$BATS_TEST_TMPDIR/server-$k.out" \
	    ip netns exec "$ns" ps-server -C "$COORD" -l "$ip:0" -a "$SECRET" \
	    -o "$BATS_TEST_TMPDIR/part-$k.psm" "$@"
	eval "PID_$k=$PS_LAST_PID"
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server-$k.out" '^listening ' 10) || return 1
	eval "ADDR_$k=${line#listening }"
}

# two_hosts: net_up 2, the coordinator and a server on each host, both in
# ring version 2.
two_hosts() {
	net_up 2
	start_coord -a "$SECRET" -l "$BRIDGE_IP:0"
	start_host 1
	start_host 2
	wait_status '$1 == "ring" && $2 == 2 && $3 == 2'
}

# train OUT [OPTION...]: one worker in the root namespace, on the
# coordinator's ring with the secret, progress to OUT; fails unless it
# exits 0 within 60 s.
train() {
	local out=$1
	shift
	timeout 60 ps-worker -C "$COORD" -a "$SECRET" -n 1 -b 4 "$@" \
	    "$BATS_TEST_TMPDIR/train-0.pss" >"$out" 2>"$out.err"
}

# key_of ADDR: a feature id that the coordinator's ring gives ADDR.
key_of() {
	timeout 5 ps-ring lookup "${COORD_AUTH[@]}" -C "$COORD" $(seq 1 1000) |
	    awk -F'\t' -v a="$1" '$3 == a { print $1; found = 1; exit }
		END { exit !found }'
}

# watch_fence K: note in the background, in fence-K.ms, when host K's
# server logs that it lost the coordinator by a timeout (5 s at most).
watch_fence() {
	local k=$1
	(ps_wait_line "$BATS_TEST_TMPDIR/server-$k.out.err" \
	    "this server lost the coordinator: coordinator '$COORD': Connection timed out" 5 >/dev/null &&
	    now_ms >"$BATS_TEST_TMPDIR/fence-$k.ms") 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
}

# fenced K WHY: wait (5 s at most) until watch_fence K saw host K's server,
# cut off, find out by itself that it lost the coordinator, though nothing
# reached it; print the time since $T0 on fd 3 and fail past 2 s.  Its
# heartbeats stay unacknowledged for the timeout less one 100 ms interval
# and the kernel's retransmission timer adds to that: about 500 ms, more
# on a loaded machine, where the server may write its log line late.
fenced() {
	local k=$1 why=$2 ms
	ps_wait_line "$BATS_TEST_TMPDIR/fence-$k.ms" . 5 >/dev/null
	ms=$(($(cat "$BATS_TEST_TMPDIR/fence-$k.ms") - T0))
	echo "# $why: the server knew it lost the coordinator after $ms ms" >&3
	[ "$ms" -lt 2000 ]
}

# detect WHY K: wait until the coordinator has host K's server dead and
# ring version 3 published without it; print the time since $T0 on fd 3
# and fail past 1 s (the 300 ms timeout, checked every 20 ms, and the
# publish).  Leaves the output of ring show in $output.
detect() {
	local why=$1 k=$2 addr ms
	eval "addr=\$ADDR_$k"
	wait_status "\$1 == \"server\" && \$3 == \"$addr\" && \$4 == \"dead\"" 3
	wait_status '$1 == "ring" && $2 == 3 && $3 == 3' 3
	ms=$(($(now_ms) - T0))
	echo "# $why: dead and out of the ring after $ms ms" >&3
	[ "$ms" -lt 1000 ]
	grep -q "server $addr is dead: no heartbeat for" "$BATS_TEST_TMPDIR/coord.out.err"
	run timeout 5 ps-ring show "${COORD_AUTH[@]}" -C "$COORD"
	assert_line --index 0 --regexp '^ring	3	64	0	1$'
	refute_output --partial "$addr"
}

@test "servers in two namespaces register over the link; a worker with the secret trains through them" {
	two_hosts
	[[ "$ADDR_1" =~ ^10\.77\.[0-9]+\.2:[0-9]+$ ]]
	[[ "$ADDR_2" =~ ^10\.77\.[0-9]+\.3:[0-9]+$ ]]
	grep -q "server $ADDR_1 registered from ${IP_1//./\\.}:" "$BATS_TEST_TMPDIR/coord.out.err"
	run timeout 5 ps-ring show "${COORD_AUTH[@]}" -C "$COORD"
	assert_success
	assert_line --index 0 "$(printf 'ring\t2\t64\t0\t2')"
	assert_line --regexp "^server	0	$ADDR_1	64	"
	assert_line --regexp "^server	1	$ADDR_2	64	"
	run timeout 5 ps-ring status -j "${COORD_AUTH[@]}" -C "$COORD"
	assert_success
	assert_line --regexp "^\{\"type\":\"server\",\"id\":0,\"addr\":\"$ADDR_1\",\"state\":\"live\",.*\"ring_version\":2\}$"
	assert_line --regexp "^\{\"type\":\"server\",\"id\":1,\"addr\":\"$ADDR_2\",\"state\":\"live\",.*\"ring_version\":2\}$"
	train "$BATS_TEST_TMPDIR/netns.tsv"
	ours=$(final_objective "$BATS_TEST_TMPDIR/netns.tsv")
	# Each server now holds keys, and says so in its heartbeats.
	wait_status "\$1 == \"server\" && \$3 == \"$ADDR_1\" && \$6 > 0" 3
	wait_status "\$1 == \"server\" && \$3 == \"$ADDR_2\" && \$6 > 0" 3
	wait_status '$1 == "worker" && $4 == "left"' 3
	run timeout 5 "$FRAMETOOL" -a "$SECRET" "$ADDR_2" stats
	assert_line --partial 'STAT auth_failures 0'
	# The same job on two servers on loopback, from a ring file.
	ps_reap
	rm -f "$BATS_TEST_TMPDIR"/server-*.out*
	start_servers 2
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -n 1 -b 4 \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_success
	loop=$(echo "$output" | tail -n 1 | cut -f 3)
	echo "namespaces $ours loopback $loop"
	[ -n "$ours" ]
	# The same iterations; the objective's last bits may differ (each
	# server's running l1 sum), so to 1e-12.
	[ "$(tsv_last "$BATS_TEST_TMPDIR/netns.tsv" iter)" = \
	    "$(echo "$output" | tail -n 1 | cut -f 1)" ]
	awk -v g="$(rel_gap "$ours" "$loop")" 'BEGIN { exit !(g < 1e-12 && g > -1e-12) }'
}

@test "a cut link: the server is dead by the heartbeat timeout, out of the ring, and knows it" {
	two_hosts
	watch_fence 2
	T0=$(now_ms)
	ip link set "$LINK_2" down
	detect "link down" 2
	assert_output --partial "$ADDR_1"
	fenced 2 "link down"
	# The ring left is whole: a job runs on the server still reachable.
	train "$BATS_TEST_TMPDIR/after.tsv"
}

@test "an nft blackhole: dead by the heartbeat timeout; let back in, the server is fenced and rejoins empty" {
	command -v nft >/dev/null || skip "needs nft (nftables) for the blackhole"
	two_hosts
	train "$BATS_TEST_TMPDIR/before.tsv"
	wait_status "\$1 == \"server\" && \$3 == \"$ADDR_2\" && \$6 > 0" 3
	key=$(key_of "$ADDR_2")
	ip netns exec "$NS_2" nft list tables >/dev/null 2>&1 ||
	    skip "nft cannot list the tables of a namespace (no nf_tables?)"
	# Drop every packet in and out of host 2, silently: no RST, no FIN.
	watch_fence 2
	net_record nft "$NS_2" pskit_blackhole
	T0=$(now_ms)
	ip netns exec "$NS_2" nft -f - <<-EOF
	table inet pskit_blackhole {
		chain input { type filter hook input priority -300; policy drop; }
		chain output { type filter hook output priority -300; policy drop; }
	}
	EOF
	detect "nft blackhole" 2
	# Nothing reached it, yet its unacknowledged heartbeats tell the
	# server it lost the coordinator: it fences itself.
	fenced 2 "nft blackhole"
	# Let back in, it answers at once, and not with the weights of a
	# version it no longer belongs to: a request stamped with version 2
	# for a key it held there is refused (it may be waiting on a connect
	# to the coordinator for up to 1 s: -w 5).
	ip netns exec "$NS_2" nft delete table inet pskit_blackhole
	run timeout 10 "$FRAMETOOL" -w 5 -a "$SECRET" "$ADDR_2" script <<<"PULL,current keys=$key rv=2"
	assert_line --regexp '^ERROR .*(this server lost the coordinator|stale ring version 2, this server holds 4)$'
	refute_line --regexp '^PULL_REPLY '
	# It comes back as a new member of version 4, without its weights.
	wait_status "\$1 == \"server\" && \$3 == \"$ADDR_2\" && \$4 == \"live\" && \$10 == 4" 10
	ps_wait_line "$BATS_TEST_TMPDIR/server-2.out.err" \
	    'dropped the weights of [1-9][0-9]* keys: the ring changed while this server had no coordinator' 5
	grep -q "server $ADDR_2 joined" "$BATS_TEST_TMPDIR/coord.out.err"
	key=$(key_of "$ADDR_2")
	run timeout 10 "$FRAMETOOL" -a "$SECRET" "$ADDR_2" script <<<"PULL,current keys=$key rv=4"
	assert_line --regexp '^PULL_REPLY sender=0 nkeys=1 .*vals=0$'
	wait_status "\$1 == \"server\" && \$3 == \"$ADDR_2\" && \$6 == 0" 3
}
