#!/usr/bin/env bats
# worker-fault.bats: any single fault of a worker is survived, sgd and
# dbpg.  A worker killed (kill -9 from outside ps-train, by the pid in the
# job directory) or stopped (SIGSTOP, no TCP close) mid-job is started
# again by ps-train, which says when and how long the recovery took; the
# job exits 0 with the answer of a fault-free run: sgd's test AUC within
# 0.005, dbpg's objective within 1e-3, worker 0's progress one table.  A
# hung sgd worker that runs again after the servers fenced it changes
# nothing: each server applies each mini-batch once.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
	ps_data a9a.t >/dev/null
	export PS_TRAIN_WORKER_SILENCE=2
}

teardown() {
	ps_reap
}

# sgd's job: mini-batches of 10 rows, so that 5 epochs last about 2 s.
SGD=(-A sgd -W '--epochs 5 --batch 10')
# dbpg's: 1500 iterations, about 1 s (its default stop on a9a, 358
# iterations in 0.47 s, could come before a fault at line 300 seen).
DBPG=(-A dbpg -e 0 -m 1500)

# train RUN [OPTION...]: ps-train on a9a with the test set, in the
# background, job files in $BATS_TEST_TMPDIR/RUN, its stderr in RUN.err;
# sets TRAIN.
train() {
	local run=$1
	shift
	rm -rf "$BATS_TEST_TMPDIR/$run"
	ps_start_daemon "$BATS_TEST_TMPDIR/$run.out" timeout 60 \
	    ps-train -q -j "$BATS_TEST_TMPDIR/$run" -T "$BATS_FILE_TMPDIR/a9a.t" \
	    -o "$BATS_TEST_TMPDIR/$run.model" "$@" "$BATS_FILE_TMPDIR/a9a"
	TRAIN=$PS_LAST_PID
}

# finish RUN: ps-train exits 0; print its stderr.
finish() {
	ps_wait_pid "$TRAIN" 60 || { echo "ps-train still runs"; return 1; }
	cat "$BATS_TEST_TMPDIR/$1.out.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
}

# at_line RUN LINES: wait until worker 0 of job RUN printed LINES lines.
at_line() {
	ps_wait_lines "$BATS_TEST_TMPDIR/$1/worker-0.tsv" "$2" 30
}

# fault RUN K LINES SIGNAL: once worker 0 printed LINES lines, send
# SIGNAL to worker K of job RUN, by the pid in the job directory; sets
# VICTIM.
fault() {
	at_line "$1" "$3" || return 1
	VICTIM=$(cat "$BATS_TEST_TMPDIR/$1/worker-$2.pid")
	echo "kill -$4 worker $2 (pid $VICTIM) at line $3"
	kill "-$4" "$VICTIM"
}

# recovered RUN K HOW: ps-train's one line for worker K, and its figures.
recovered() {
	local line
	line=$(grep -E "^ps-train: worker $2 $3 at [0-9]+\.[0-9]{2} s; recovered in [0-9]+\.[0-9]{2} s \((killed, )?started again\)$" \
	    "$BATS_TEST_TMPDIR/$1.out.err") || { echo "no recovery line"; return 1; }
	echo "$line"
	[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ]
}

# one_table TSV KEY: one header, then KEY (a column number) strictly
# increasing, but for sgd's last line (the final model's, with the
# mini-batches of the last epoch's line), and secs (column 2 for dbpg, 3
# for sgd) never decreasing.
one_table() {
	awk -F'\t' -v key="$2" -v secs=$(($2 + 1)) '
	    NR == 1 { if ($1 != "iter" && $1 != "epoch") exit 1; k = s = -1; next }
	    $key + 0 < k || (eq && $key + 0 == k) || $secs + 0 < s {
		print "line " NR ": " $key " after " k ", secs " $secs " after " s
		bad = 1; exit 1 }
	    $key + 0 == k { eq = NR }
	    { k = $key + 0; s = $secs + 0 }
	    END { if (bad || (eq && eq != NR) || (eq && key != 2)) exit 1 }' "$1"
}

# near A B TOL: |A - B| <= TOL, else say so.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
	    d = a - b; if (d < 0) d = -d
	    if (d > t) { print a " and " b " differ by " d ", over " t; exit 1 } }'
}

# clean ALG: the fault-free run of ALG, once per file: its test AUC (sgd)
# or objective (dbpg).
clean() {
	local f="$BATS_FILE_TMPDIR/clean-$1" opts=()
	if [ ! -f "$f" ]; then
		[ "$1" = sgd ] && opts=("${SGD[@]}") || opts=("${DBPG[@]}")
		train "clean-$1" "${opts[@]}"
		finish "clean-$1" >/dev/null || return 1
		if [ "$1" = sgd ]; then
			tsv_last "$BATS_TEST_TMPDIR/clean-$1.model/progress.tsv" \
			    test_auc >"$f"
		else
			final_objective "$BATS_TEST_TMPDIR/clean-$1.model/progress.tsv" >"$f"
		fi
	fi
	cat "$f"
}

@test "sgd: worker 0 killed mid-job is started again; test AUC within 0.005, its progress one table" {
	want=$(clean sgd)
	train killed "${SGD[@]}"
	fault killed 0 20 9
	finish killed
	recovered killed 0 'killed by SIGKILL'
	tsv="$BATS_TEST_TMPDIR/killed.model/progress.tsv"
	got=$(tsv_last "$tsv" test_auc)
	echo "test AUC: fault-free $want, killed $got"
	near "$got" "$want" 0.005
	one_table "$tsv" 2
	grep -q 'came back to the job: gone .*; recovered in ' \
	    "$BATS_TEST_TMPDIR/killed/worker-0.err"
}

@test "sgd: worker 1 stopped past the silence limit is fenced, killed and started again; test AUC within 0.005" {
	want=$(clean sgd)
	train hung "${SGD[@]}"
	fault hung 1 15 STOP
	finish hung
	recovered hung 1 hung
	# ps-train killed the stopped process: it is gone, not left stopped.
	gone_within 5 "$VICTIM"
	grep -q '^ps-server: worker 1 (.*) is hung: idle: no whole message in 2000 ms; its connection is closed (fenced)' \
	    "$BATS_TEST_TMPDIR"/hung/server-0.err
	got=$(tsv_last "$BATS_TEST_TMPDIR/hung.model/progress.tsv" test_auc)
	echo "test AUC: fault-free $want, hung $got"
	near "$got" "$want" 0.005
	one_table "$BATS_TEST_TMPDIR/hung.model/progress.tsv" 2
}

@test "dbpg: worker 1 killed mid-job is started again; the fault-free objective within 1e-3" {
	want=$(clean dbpg)
	train killed "${DBPG[@]}"
	fault killed 1 300 9
	finish killed
	recovered killed 1 'killed by SIGKILL'
	got=$(final_objective "$BATS_TEST_TMPDIR/killed.model/progress.tsv")
	echo "objective: fault-free $want, killed $got"
	near "$(rel_gap "$got" "$want")" 0 1e-3
	one_table "$BATS_TEST_TMPDIR/killed.model/progress.tsv" 1
}

@test "dbpg: worker 0 stopped past the silence limit is fenced, killed and started again; the fault-free objective within 1e-3" {
	want=$(clean dbpg)
	train hung "${DBPG[@]}"
	fault hung 0 300 STOP
	finish hung
	recovered hung 0 hung
	gone_within 5 "$VICTIM"
	got=$(final_objective "$BATS_TEST_TMPDIR/hung.model/progress.tsv")
	echo "objective: fault-free $want, hung $got"
	near "$(rel_gap "$got" "$want")" 0 1e-3
	one_table "$BATS_TEST_TMPDIR/hung.model/progress.tsv" 1
}

# server_stat ADDR NAME: a server's statistic.
server_stat() {
	printf 'stats\r\nquit\r\n' | timeout 5 nc -N "${1%:*}" "${1##*:}" |
	    tr -d '\r' | awk -v n="$2" '$1 == "STAT" && $2 == n { print $3 }'
}

# pushes: the pushes every server applied so far, summed.
pushes() {
	local a n=0
	for a in $SERVER_ADDRS; do
		n=$((n + $(server_stat "$a" pushes)))
	done
	echo "$n"
}

# sgd_worker OUT K CHANNEL [OPTION...]: an sgd worker of the hand-made job.
sgd_worker() {
	local out=$1 k=$2 ch=$3
	shift 3
	ps_start_daemon "$BATS_TEST_TMPDIR/$out" ps-worker -A sgd \
	    --epochs 5 --batch 10 -r "$BATS_TEST_TMPDIR/ring" -c "$ch" -i "$k" \
	    -n 2 "$@" "$BATS_TEST_TMPDIR/train-$k.pss"
}

@test "sgd: a hung worker that runs again after it was fenced changes nothing: each server applies each mini-batch once" {
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	start_servers 2
	# Fault-free, on channel 0: the pushes each job makes the servers apply.
	sgd_worker c0.tsv 0 0; c0=$PS_LAST_PID
	sgd_worker c1.tsv 1 0; c1=$PS_LAST_PID
	ps_wait_pid "$c0" 30
	[ "$PS_WAIT_STATUS" -eq 0 ]
	ps_wait_pid "$c1" 30
	[ "$PS_WAIT_STATUS" -eq 0 ]
	before=$(pushes)
	# On channel 1: worker 1 stops; the servers fence it after 1 s.
	sgd_worker w0.tsv 0 1 --rejoin 30 --silence-limit 1; w0=$PS_LAST_PID
	sgd_worker w1.tsv 1 1 --rejoin 30 --silence-limit 1; w1=$PS_LAST_PID
	# Stopped mid-job: after its own first epochs, not its partner's (on
	# a loaded machine one worker may run epochs ahead of the other).
	ps_wait_line "$BATS_TEST_TMPDIR/w1.tsv" '^2	' 30
	kill -STOP "$w1"
	cat "$BATS_TEST_TMPDIR/w1.tsv"
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" 'worker 1 .* is hung' 10
	ps_wait_line "$BATS_TEST_TMPDIR/server-1.out.err" 'worker 1 .* is hung' 10
	# Its replacement comes back; then the fenced one runs again.
	sgd_worker w1b.tsv 1 1 --rejoin 30 --silence-limit 1; w1b=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w1b.tsv.err" 'recovered in' 15
	kill -CONT "$w1"
	ps_wait_pid "$w1" 15
	echo "the fenced worker 1 exited with status $PS_WAIT_STATUS"
	cat "$BATS_TEST_TMPDIR/w1.tsv.err"
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -q 'went away' "$BATS_TEST_TMPDIR/w1.tsv.err"
	ps_wait_pid "$w0" 30
	cat "$BATS_TEST_TMPDIR/w0.tsv.err" "$BATS_TEST_TMPDIR"/server-*.out.err
	[ "$PS_WAIT_STATUS" -eq 0 ]
	ps_wait_pid "$w1b" 30
	cat "$BATS_TEST_TMPDIR/w1b.tsv.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
	after=$(pushes)
	echo "pushes applied: fault-free $before, with the fault $((after - before))"
	[ $((after - before)) -eq "$before" ]
}
