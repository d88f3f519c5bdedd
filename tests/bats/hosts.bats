#!/usr/bin/env bats
# hosts.bats: ps-train -H on hosts that are Linux network namespaces on a
# bridge (netns.bash), reached with PSKIT_RSH="ip netns exec"; ps-train
# itself and the coordinator run in the root namespace, at the bridge's
# address.  Each namespace shares this machine's filesystem, but the job
# does not use that: the shards and model parts travel through the remote
# shell, to and from a directory of each host under PSKIT_REMOTE_DIR.
# The tests cover:
#   - a job on three hosts ends with the answer of the same job on one,
#     its daemons listen on the hosts' addresses, the secret is on no
#     command line, and nothing of it is left on the hosts;
#   - a wrong or missing secret is refused by the job's servers and its
#     coordinator, from another host;
#   - a host that runs only a worker is cut off (its link down): the
#     coordinator has the worker dead, ps-train starts it on another host
#     and the job ends with the same answer;
#   - a host that runs a server and a worker is cut off (link down), or
#     blackholed (nft drops every packet): the job, with a replica of
#     every key (-R 1), ends with the same answer, its lost server
#     replaced by one on another host, and the push history fetched from
#     the hosts (--trace) passes tests/chaos/check-trace; a newton job
#     cut off so ends with the same answer too (the checker knows dbpg's
#     and sgd's promises only);
#   - with -Z (a ZooKeeper server at the bridge's address): the daemons on
#     the hosts find the leading coordinator through ZooKeeper and follow
#     the standby when the leader is killed; the same answer;
#   - without namespaces (and without root), through a remote shell that
#     runs the command here: a job ends with the same answer, and a
#     ps-train killed outright leaves no daemon and nothing on the hosts.
# The namespace tests need root, ip netns and veth/bridge links (nft for
# the blackhole); without them they skip, saying what is missing.  Each job runs under a
# timeout, and teardown stops it, reaps every process and deletes every
# namespace and link.

load helper
load netns
load zk

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"
SAMPLE="$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"
# A job long enough for a fault to find it running: every test's job and
# its one-host reference.
LONG=(-e 0 -m 5000)

setup() {
	JOB="$BATS_TEST_TMPDIR/job"
	export PSKIT_RSH="ip netns exec"
	export PSKIT_REMOTE_DIR="$BATS_TEST_TMPDIR/remote"
	mkdir -p "$PSKIT_REMOTE_DIR"
}

teardown() {
	[ -z "${TRAIN_PID:-}" ] || { kill -TERM "$TRAIN_PID" 2>/dev/null
		ps_wait_pid "$TRAIN_PID" 20 || true; }
	ps_reap
	zk_stop
	net_down
}

# hosts N: N namespaces (net_up) and $HOSTS, a hosts file naming each
# with its address.
hosts() {
	local k
	net_setup
	net_up "$1"
	HOSTS="$BATS_TEST_TMPDIR/hosts"
	{ echo "# NAME ADDRESS"
	  for k in $(seq 1 "$1"); do eval "echo \"\$NS_$k \$IP_$k\""; done
	} >"$HOSTS"
}

# train_bg [OPTION...]: ps-train -A dbpg (unless OPTION has its own -A),
# whose LONG jobs last long enough for a fault, on $HOSTS in the
# background, at most
# 120 s, job directory $JOB, progress in $JOB.tsv, stderr in $JOB.err;
# sets TRAIN_PID.
train_bg() {
	ps_start_daemon "$JOB.tsv" timeout 120 ps-train --tsv -j "$JOB" \
	    -H "$HOSTS" -o "$BATS_TEST_TMPDIR/model" -A dbpg "$@" "$SAMPLE"
	TRAIN_PID=$PS_LAST_PID
}

# train_end: wait for the job (130 s at most); fails unless it exits 0.
train_end() {
	ps_wait_pid "$TRAIN_PID" 130
	TRAIN_PID=
	cat "$JOB.tsv.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
}

# reference [OPTION...]: run the same job (dbpg unless OPTION says) on
# this host alone, once for
# the file; REF is its progress TSV.
reference() {
	REF="$BATS_FILE_TMPDIR/ref-$(echo "$*" | tr -c 'A-Za-z0-9\n' _).tsv"
	[ -s "$REF" ] && return 0
	timeout 120 ps-train --tsv -o "$BATS_FILE_TMPDIR/ref.model" -A dbpg "$@" \
	    "$SAMPLE" >"$REF" 2>"$REF.err" 3>&-
}

# same_answer [OPTION...]: the job ended after the iterations of the same
# job on one host, at its objective within 1e-5 (ps-train's promise is
# 1e-3): a worker that came back rebuilt its margins from the servers'
# weights.  Not to rounding: after a failover the weights take another
# path to the optimum, up to 1.5e-6 off the fault-free one's after the
# 5000 iterations of LONG.  Both jobs'
# seconds are printed on fd 3.
same_answer() {
	local got want
	reference "$@" "${LONG[@]}"
	got=$(final_objective "$JOB.tsv")
	want=$(final_objective "$REF")
	echo "objective $got, on one host $want"
	echo "# $(secs "$JOB.tsv.err") s, the same job on one host $(secs "$REF.err") s" >&3
	[ "$(tsv_last "$JOB.tsv" iter)" = "$(tsv_last "$REF" iter)" ]
	awk -v g="$(rel_gap "$got" "$want")" 'BEGIN { exit !(g < 1e-5 && g > -1e-5) }'
}

# secs ERR: the seconds of a ps-train summary on stderr.
secs() {
	awk -F'\t' '$1 == "seconds" { print $2 }' "$1"
}

# running_at ITER: wait (60 s at most) until worker 0 reported iteration
# ITER.
running_at() {
	local i=0
	until awk -F'\t' -v n="$1" '$1 + 0 >= n { f = 1 } END { exit !f }' \
	    "$JOB/worker-0.tsv" 2>/dev/null; do
		[ "$i" -lt 1200 ] || { echo "the job did not reach iteration $1"; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

# remote_left: what the job left in the hosts' directories.
remote_left() {
	ls -A "$PSKIT_REMOTE_DIR"
}

@test "a job on three hosts ends with the answer of the same job on one" {
	hosts 3
	train_bg -w 2 "${LONG[@]}"
	running_at 100
	# The secret is in no process's command line.
	[ -s "$JOB/secret" ]
	! cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' |
	    grep -qFf "$JOB/secret"
	train_end
	ours=$(final_objective "$JOB.tsv")
	reference -s 3 -w 2 "${LONG[@]}"
	ref=$(final_objective "$REF")
	echo "three hosts $ours one host $ref"
	[ -n "$ours" ]
	[ "$ours" = "$ref" ]
	# Three servers by default, one on each host's address; the
	# coordinator on the bridge's, the workers on the hosts after them.
	for k in 0 1 2; do
		eval "ip=\$IP_$((k + 1))"
		grep -q "^listening ${ip//./\\.}:[0-9]*$" "$JOB/server-$k.out"
	done
	grep -q "^listening ${BRIDGE_IP//./\\.}:" "$JOB/coordinator.out"
	grep -q "worker 0 registered from ${IP_1//./\\.}:" "$JOB/coordinator.err"
	grep -q "worker 1 registered from ${IP_2//./\\.}:" "$JOB/coordinator.err"
	ps-ckpt info "$BATS_TEST_TMPDIR/model" | grep -q '^parts	3$'
	# Nothing is left on the hosts.
	[ -z "$(remote_left)" ]
}

@test "a wrong or missing secret is refused by the job's servers and coordinator" {
	hosts 3
	train_bg "${LONG[@]}"
	line=$(ps_wait_line "$JOB/server-0.out" '^listening ' 30)
	addr=${line#listening }
	running_at 100
	coord=$(cat "$JOB/coordinator")
	secret_file() { (umask 077 && echo "$2" >"$1"); }
	secret_file "$BATS_TEST_TMPDIR/wrong" 'incorrect horse battery staple'
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/intruder" "$SAMPLE"
	# From host 3, a worker with the wrong secret, and one without.
	run timeout 20 ip netns exec "$NS_3" ps-worker -a "$BATS_TEST_TMPDIR/wrong" \
	    -C "$coord" -i 1 -n 2 "$BATS_TEST_TMPDIR/intruder-1.pss"
	assert_failure 77
	run timeout 20 ip netns exec "$NS_3" ps-worker -C "$coord" -i 1 -n 2 \
	    "$BATS_TEST_TMPDIR/intruder-1.pss"
	assert_failure 77
	# The coordinator's status and a server's stats, without the secret.
	run timeout 20 ip netns exec "$NS_3" ps-ring status -C "$coord"
	assert_failure 77
	run timeout 20 ip netns exec "$NS_3" "$FRAMETOOL" "$addr" stats
	refute_output --partial 'STAT'
	run timeout 20 ip netns exec "$NS_3" "$FRAMETOOL" \
	    -a "$BATS_TEST_TMPDIR/wrong" "$addr" stats
	refute_output --partial 'STAT'
	for _ in $(seq 100); do
		[ "$(grep -c 'authentication failed' "$JOB/server-0.err")" -ge 2 ] && break
		sleep 0.05
	done
	run timeout 20 "$FRAMETOOL" -a "$JOB/secret" "$addr" stats
	assert_line --partial 'STAT auth_failures 2'
	train_end
	same_answer -s 3
}

@test "a cut-off host with a worker only: the worker starts again on another host" {
	hosts 4
	# Three servers on hosts 1-3, worker 0 alone on host 4.
	PS_TRAIN_COORD_TIMEOUT=1000 train_bg -s 3 "${LONG[@]}"
	running_at 200
	grep -q "worker 0 registered from ${IP_4//./\\.}:" "$JOB/coordinator.err"
	ip link set "$LINK_4" down
	train_end
	# Ended by ps-train when the coordinator had it dead, or gone by
	# itself when it found its coordinator lost, worker 0 ran again on
	# the next host, where the servers took it back.
	grep -q "ps-train: worker 0 goes to host '$NS_1'" "$JOB.tsv.err"
	grep -Eq 'ps-train: worker 0 (is lost: the coordinator has it dead|exited with)' \
	    "$JOB.tsv.err"
	grep -q "worker 0 registered from ${IP_1//./\\.}:" "$JOB/coordinator.err"
	same_answer -s 3
	[ -z "$(remote_left)" ]
}

# cut_server_host HOW [ALG]: a three-host job of ALG (dbpg) with -R 1;
# once it runs, cut host 2 off (HOW: link, its veth down; nft, every
# packet dropped there); the job must end with the answer of the same job
# on one host, and a dbpg job's trace pass the checker.
cut_server_host() {
	local alg=${2:-dbpg}
	hosts 3
	PS_TRAIN_COORD_TIMEOUT=1000 train_bg -A "$alg" -R 1 \
	    --trace "$BATS_TEST_TMPDIR/trace" "${LONG[@]}"
	running_at 200
	case $1 in
	link)	ip link set "$LINK_2" down ;;
	nft)	ip netns exec "$NS_2" nft list tables >/dev/null 2>&1 ||
		    skip "nft cannot list the tables of a namespace (no nf_tables?)"
		net_record nft "$NS_2" pskit_blackhole
		ip netns exec "$NS_2" nft -f - <<-EOF
		table inet pskit_blackhole {
			chain input { type filter hook input priority -300; policy drop; }
			chain output { type filter hook output priority -300; policy drop; }
		}
		EOF
		;;
	esac
	train_end
	same_answer -A "$alg" -s 3 -R 1
	# The lost server was killed and another started on the next host,
	# not the cut one; the model holds the parts of the last ring's three.
	grep -q '^ps-train: server 1 hung (no heartbeat; killed) at .*; recovered in ' "$JOB.tsv.err"
	grep -q "^listening ${IP_3//./\\.}:" "$JOB/server-3.out"
	run ps-ckpt info "$BATS_TEST_TMPDIR/model"
	assert_success
	assert_line "$(printf 'parts\t3')"
	# The model counts rounds, three an iteration of newton's.
	last=$(tsv_last "$JOB.tsv" iter)
	[ "$alg" = dbpg ] || last=$((3 * last))
	assert_line "$(printf 'iteration\t%s' $((last + 1)))"
	[ "$alg" = dbpg ] || return 0	# the checker knows dbpg's promises
	# The push history, fetched from the hosts, the cut one's too:
	# every acknowledged round applied once.
	ls "$BATS_TEST_TMPDIR/trace"
	[ -s "$BATS_TEST_TMPDIR/trace/server-1@$NS_2.trace" ]
	[ -s "$BATS_TEST_TMPDIR/trace/worker-0@$NS_1.trace" ]
	run "$PSKIT_SRCDIR/tests/chaos/check-trace" "$BATS_TEST_TMPDIR/trace"
	assert_success
}

@test "a host with a server and a worker cut off (link down): the job ends with the same answer" {
	cut_server_host link
}

@test "newton: a host with a server and a worker cut off (link down): the job ends with the same answer" {
	cut_server_host link newton
}

@test "a host with a server and a worker blackholed (nft drop): the job ends with the same answer" {
	command -v nft >/dev/null || skip "needs nft (nftables) for the blackhole"
	cut_server_host nft
}

@test "with -Z on three hosts: the daemons follow the leader through ZooKeeper, also when it is killed; the same answer" {
	[ -f /usr/share/java/zookeeper.jar ] || skip "no ZooKeeper: scripts/deps --tests"
	hosts 3
	# Long enough to outlast the leader's 2 s session on a fast machine:
	# the workers must be there to register with the standby.
	LONG=(-e 0 -m 20000)
	zk_start "$BATS_TEST_TMPDIR/zk" "$BRIDGE_IP"
	train_bg -Z "$BRIDGE_IP:$ZK_PORT/pskit/hosts" "${LONG[@]}"
	running_at 100
	[ "$(tr ',' '\n' <"$JOB/coordinator" | wc -l)" -eq 2 ]
	kill -KILL "$(cat "$JOB/coordinator.pid")"
	train_end
	grep -Eq "^ps-train: coordinator 0 killed by SIGKILL at [0-9.]+ s; recovered in" \
	    "$JOB.tsv.err"
	# Servers on the hosts' addresses; the workers, who know the leader
	# only through ZooKeeper, registered with the standby once it led.
	for k in 0 1 2; do
		eval "ip=\$IP_$((k + 1))"
		grep -q "^listening ${ip//./\\.}:[0-9]*$" "$JOB/server-$k.out"
	done
	grep -q "worker 0 registered from ${IP_1//./\\.}:" "$JOB/coordinator-1.err"
	grep -q "worker 1 registered from ${IP_2//./\\.}:" "$JOB/coordinator-1.err"
	same_answer -s 3
	[ -z "$(remote_left)" ]
	# The job's znodes are gone (ps-train forgot them).
	run ps-ring forget -Z "$BRIDGE_IP:$ZK_PORT/pskit/hosts"
	assert_success
	assert_output "forgot	$BRIDGE_IP:$ZK_PORT/pskit/hosts	0"
}

@test "through a remote shell that runs here: the same answer; kill -9 of ps-train leaves nothing" {
	printf '#!/bin/sh\n# rsh HOST COMMAND...: run COMMAND here\nshift\nexec "$@"\n' \
	    >"$BATS_TEST_TMPDIR/rsh"
	chmod +x "$BATS_TEST_TMPDIR/rsh"
	export PSKIT_RSH="$BATS_TEST_TMPDIR/rsh"
	HOSTS="$BATS_TEST_TMPDIR/hosts"
	printf 'a 127.0.0.1\nb 127.0.0.1\nc 127.0.0.1\n' >"$HOSTS"
	train_bg --coordinator-address 127.0.0.1 "${LONG[@]}"
	train_end
	same_answer -s 3
	[ -z "$(remote_left)" ]
	# Killed outright mid-job: its daemons and the hosts' directories go.
	JOB="$BATS_TEST_TMPDIR/job2"
	train_bg -C 127.0.0.1 "${LONG[@]}"
	running_at 100
	[ "$(remote_left | wc -l)" -eq 3 ]
	for d in "$PSKIT_REMOTE_DIR"/*; do
		[ "$(stat -c %a "$d")" = 700 ]
		[ "$(stat -c %a "$d/secret")" = 600 ]
	done
	kill -KILL "$(cat "$JOB/ps-train.pid")"
	for f in "$JOB"/server-*.pid "$JOB"/worker-*.pid "$JOB/coordinator.pid"; do
		gone_within 5 "$(cat "$f")"
	done
	for _ in $(seq 100); do [ -z "$(remote_left)" ] && break; sleep 0.1; done
	[ -z "$(remote_left)" ]
}
