#!/bin/sh
# framefuzz-min.sh: shrink the frames ps-framefuzz wrote when a daemon went
# away to a shortest list that still kills a fresh daemon.
#
#   framefuzz-min.sh FRAMES DAEMON [ARG...]
#
# FRAMES holds "conn=C seq=S HEX" lines (ps-framefuzz -o).  For each try a
# new DAEMON is started in an empty directory (so a relative file such as
# ps-ring serve's ring starts afresh); it must print "listening HOST:PORT"
# on stdout.  The frames are replayed with ps-framefuzz -r and the try
# counts when the daemon process died.  First the shortest tail of the
# list that kills it is kept, then every line is dropped in turn if the
# rest still does.  The result goes to standard output.  PS_FRAMEFUZZ
# names the tool (default: ps-framefuzz on PATH).
set -u

[ $# -ge 2 ] || { echo "usage: framefuzz-min.sh frames daemon [arg ...]" >&2; exit 64; }
frames=$1; shift
tool=${PS_FRAMEFUZZ:-ps-framefuzz}
work=$(mktemp -d) || exit 73
trap 'rm -rf "$work"' EXIT

# kills FILE: 0 if replaying FILE makes a fresh daemon go away.
kills() {
	dir=$(mktemp -d -p "$work") || return 2
	(cd "$dir" && exec "$@" >out 2>err 3>&-) &
	pid=$!
	w=0
	while ! grep -q '^listening ' "$dir/out" 2>/dev/null; do
		w=$((w + 1))
		[ $w -gt 200 ] && { kill $pid; wait $pid; return 2; }
		sleep 0.05
	done
	addr=$(sed -n 's/^listening //p' "$dir/out" | head -n 1)
	"$tool" -r "$TRY" "$addr" >/dev/null 2>&1
	# The daemon's own death counts, not what the replay concluded.
	if kill -0 $pid 2>/dev/null; then
		kill -TERM $pid
		wait $pid 2>/dev/null
		return 1
	fi
	wait $pid 2>/dev/null
	return 0
}

n=$(wc -l <"$frames")
TRY=$work/try
keep=1
while [ "$keep" -le "$n" ]; do
	tail -n "$keep" "$frames" >"$TRY"
	kills "$@" && break
	keep=$((keep * 2))
done
[ "$keep" -gt "$n" ] && { tail -n "$n" "$frames" >"$TRY"; kills "$@" ||
    { echo "framefuzz-min.sh: the frames do not kill the daemon" >&2; exit 1; }; }
cp "$TRY" "$work/best"
i=1
while [ "$i" -le "$(wc -l <"$work/best")" ]; do
	sed "${i}d" "$work/best" >"$TRY"
	if [ -s "$TRY" ] && kills "$@"; then
		cp "$TRY" "$work/best"
	else
		i=$((i + 1))
	fi
done
cat "$work/best"
