# tests/bench/lib.sh: shell helpers shared by the benchmark drivers in
# tests/bench (sourced, POSIX sh): clocks, medians, peak memory, and finding
# pskit's programs in a build tree.
#
# Peak RSS is measured in one of two ways, and the drivers say which:
#  - GNU time (/usr/bin/time -f %M, Debian package `time`): the kernel's
#    ru_maxrss from wait4(2) for the command, which is the largest peak RSS
#    of any single process in its tree that was waited for (the command
#    itself or a descendant), not the sum over the tree;
#  - otherwise polling VmHWM in /proc/PID/status every 0.1 s, which sees
#    only that process and misses growth in its last 0.1 s.

# bench_die MESSAGE...: print "PROG: MESSAGE" on stderr and exit 1 (or
# $bench_status when set).
bench_die() {
	echo "${prog:-bench}: $*" >&2
	exit "${bench_status:-1}"
}

# bench_now: seconds since the epoch with nanoseconds.
bench_now() {
	date +%s.%N
}

# bench_elapsed START END: END - START in seconds, 3 decimals.
bench_elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'
}

# bench_median: the median of the numbers on stdin, one a line (the mean of
# the middle two for an even count) with 12 significant digits; "-" when
# there are none; lines that are not numbers (e.g. "never") are ignored.
bench_median() {
	awk '$1 ~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ { print $1 }' |
	    sort -g | awk '{ v[NR] = $1 }
	END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) m = v[(NR + 1) / 2]
		else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.12g\n", m
	}'
}

# bench_have_gnu_time: true when /usr/bin/time understands -f %M.
bench_have_gnu_time() {
	[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1
}

# bench_hwm PID: VmHWM of PID in KiB, or nothing if it is gone.
bench_hwm() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# bench_tree PID: PID and all its descendants, one a line.
bench_tree() {
	ps -e -o pid=,ppid= | awk -v r="$1" '{ par[$1] = $2 }
	END {
		print r
		for (p in par) {
			for (q = p; q in par && q != r && q > 1; q = par[q])
				;
			if (q == r && p != r) print p
		}
	}'
}

# bench_poll_tree PID OUT: until PID exits, every 0.1 s append "name kib"
# (VmHWM) for PID and each of its descendants to OUT.  Run it in the
# background; it stops by itself.
bench_poll_tree() {
	_root=$1 _out=$2
	while kill -0 "$_root" 2>/dev/null; do
		for _p in $(bench_tree "$_root"); do
			awk '/^Name:/ { n = $2 } /^VmHWM:/ { print n, $2 }' \
			    "/proc/$_p/status" 2>/dev/null
		done >>"$_out"
		sleep 0.1
	done
}

# bench_peak_by_name FILE NAME: the largest kib recorded for NAME in a
# bench_poll_tree file; "-" when none.
bench_peak_by_name() {
	awk -v n="$2" '$1 == n && $2 > m { m = $2 } END { print m ? m : "-" }' "$1"
}

# bench_run OUT CMD...: run CMD with stdout to OUT.out and stderr to
# OUT.err; write its wall time in seconds to OUT.secs and its peak RSS in
# KiB to OUT.rss (GNU time, or VmHWM polling of CMD itself), and a
# per-process-name peak record to OUT.tree (polled).  Returns CMD's status.
# With bench_poll=0 and GNU time there is no polling (OUT.tree stays
# empty): the poller starts a few processes every 0.1 s, which on two
# cores takes time from a job of several processes, so timed runs go
# without it.
bench_run() {
	_o=$1
	shift
	: >"$_o.tree"
	_t0=$(bench_now)
	if bench_have_gnu_time; then
		/usr/bin/time -f %M -o "$_o.rss" "$@" >"$_o.out" 2>"$_o.err" &
	else
		"$@" >"$_o.out" 2>"$_o.err" &
	fi
	_pid=$!
	_poller=
	if [ "${bench_poll:-1}" != 0 ] || ! bench_have_gnu_time; then
		bench_poll_tree "$_pid" "$_o.tree" &
		_poller=$!
	fi
	wait "$_pid"
	_st=$?
	_t1=$(bench_now)
	[ -z "$_poller" ] || wait "$_poller"
	bench_elapsed "$_t0" "$_t1" >"$_o.secs"
	if ! bench_have_gnu_time; then
		awk '$2 > m { m = $2 } END { print m ? m : "-" }' "$_o.tree" >"$_o.rss"
	fi
	# GNU time prints "Command exited with non-zero status N" first.
	tail -n 1 "$_o.rss" >"$_o.rss.tmp" && mv "$_o.rss.tmp" "$_o.rss"
	return $_st
}

# bench_find_prog NAME [SUBDIR]: print the path of pskit program NAME,
# looking in $PSKIT_BUILDDIR[/SUBDIR], ./[SUBDIR], then PATH; fail if absent.
bench_find_prog() {
	for _d in ${PSKIT_BUILDDIR:+"$PSKIT_BUILDDIR/${2:-.}"} "./${2:-.}"; do
		if [ -x "$_d/$1" ]; then
			echo "$_d/$1"
			return 0
		fi
	done
	command -v "$1" 2>/dev/null
}

# bench_file_bytes FILE: its size in bytes.
bench_file_bytes() {
	wc -c <"$1" | tr -d ' '
}

# bench_last_of TSV NAME: NAME's column on the last line of a progress TSV
# (ps-train's progress.tsv, a ps-worker's output).
bench_last_of() {
	awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { v = $c[n] } END { print v }' "$1"
}

# bench_auc TEST PRED: the AUC (ties count half) of liblinear-predict -b 1
# output PRED against the labels of TEST (positive: label > 0).
bench_auc() {
	awk 'FNR == NR { y[FNR] = ($1 + 0 > 0); next }
	FNR == 1 { col = ($2 + 0 > 0) ? 2 : 3; next }
	{ print $col, y[FNR - 1] }' "$1" "$2" | sort -g | awk '
	{ s[NR] = $1; y[NR] = $2 }
	END {
		for (i = 1; i <= NR; i = j + 1) {
			for (j = i; j < NR && s[j + 1] == s[i]; j++)
				;
			for (k = i; k <= j; k++)
				if (y[k]) { sum += (i + j) / 2; np++ }
		}
		printf "%.6f\n", (sum - np * (np + 1) / 2) / (np * (NR - np))
	}'
}

# bench_runs_train ARG...: the command line [-r runs] train.libsvm of a
# driver: set runs (else its default) and train; exit 64 with a usage
# line naming $prog for another, 66 when train cannot be read.
bench_runs_train() {
	OPTIND=1
	while getopts r: _o; do
		case $_o in
		r) runs=$OPTARG ;;
		*) echo "usage: $prog [-r runs] train.libsvm" >&2; exit 64 ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 1 ] ||
		{ echo "usage: $prog [-r runs] train.libsvm" >&2; exit 64; }
	train=$1
	[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
}

# bench_use_pstrain SRCDIR: put the build tree ($PSKIT_BUILDDIR, or the
# current directory when it holds ps-server) first on PATH, set $pstrain
# to ps-train (PATH, else SRCDIR/scripts), and exit 69 naming the first
# program ps-train needs that is missing.
bench_use_pstrain() {
	[ -n "${PSKIT_BUILDDIR:-}" ] && PATH=$PSKIT_BUILDDIR:$PATH
	[ -x ./ps-server ] && PATH=$(pwd):$PATH
	pstrain=$(command -v ps-train) || pstrain=$1/scripts/ps-train
	for _p in ps-shard-data ps-server ps-worker ps-ring; do
		command -v $_p >/dev/null || bench_status=69 bench_die \
		    "$_p not found (needed by ps-train): run from the build" \
		    "directory or set PSKIT_BUILDDIR"
	done
}

# Daemons a driver starts (failover.sh, join.sh): their PIDs go in
# $bench_pids; bench_daemons_cleanup kills them and removes (or, with
# keep=1, names) the work directory $work.  Set it as the EXIT trap.
bench_pids=
bench_daemons_cleanup() {
	for _p in $bench_pids; do kill -9 "$_p" 2>/dev/null; done
	wait 2>/dev/null
	if [ "${keep:-0}" -eq 1 ]; then
		echo "${prog:-bench}: work files kept in $work" >&2
	else
		rm -rf "$work"
	fi
}

# bench_wait_lines FILE N PID WHAT: wait until FILE has N lines; give up
# with bench_die if PID (the job writing it) ends first, naming WHAT.
bench_wait_lines() {
	until [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; do
		kill -0 "$3" 2>/dev/null || bench_die "ps-train ended early in $4"
		sleep 0.01
	done
}

# bench_wait_line FILE PATTERN [SECONDS]: wait (default 120 s) for a line
# of FILE matching PATTERN (grep -E); give up with bench_die.
bench_wait_line() {
	_i=0
	while ! grep -qE "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt $((${3:-120} * 20)) ] &&
			bench_die "timed out waiting for '$2' in $1"
		sleep 0.05
	done
}

# bench_listening FILE: the address a daemon printed as "listening ADDR".
bench_listening() {
	bench_wait_line "$1" '^listening ' 30
	sed -n 's/^listening //p' "$1"
}

# bench_stat ADDR NAME: one counter of a server's STAT lines.
bench_stat() {
	printf 'stats\r\nquit\r\n' | nc -N "${1%:*}" "${1##*:}" |
	    awk -v n="$2" '$1 == "STAT" && $2 == n { print $3 }' | tr -d '\r'
}
