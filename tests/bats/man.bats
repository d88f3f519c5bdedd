#!/usr/bin/env bats
# man.bats: every man page is clean mdoc, and each program's SYNOPSIS says
# what its usage() says.

load helper

@test "man pages lint clean at warning level" {
	run mandoc -Tlint -Wwarning "$PSKIT_SRCDIR"/man/*.[157]
	assert_success
	assert_output ''
}

# synopsis PAGE: the rendered SYNOPSIS section, whitespace folded.
synopsis() {
	MANWIDTH=200 mandoc -Tutf8 -Owidth=200 "$PSKIT_SRCDIR/man/$1" | col -b |
	    awk '/^SYNOPSIS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' | tr -s ' \n' '  '
}

# usage_of PROG: its usage text, whitespace folded, "usage: " dropped.
usage_of() {
	"$1" --help 2>&1 | sed -n '/^usage:/,/^$/p' | sed 's/^usage: //' | tr -s ' \n' '  '
}

@test "SYNOPSIS matches usage() for every program" {
	for prog in ps-server ps-worker ps-train ps-plot ps-retrain ps-shard-data ps-ring ps-ckpt; do
		[ -f "$PSKIT_SRCDIR/man/$prog.1" ] || { echo "no man page for $prog"; return 1; }
		u=$(usage_of "$prog" | sed 's/^ *//; s/ *$//')
		s=$(synopsis "$prog.1" | sed 's/^ *//; s/ *$//')
		echo "usage:    $u"
		echo "synopsis: $s"
		[ -n "$u" ]
		# Every option letter and argument name in usage appears in SYNOPSIS.
		for word in $(echo "$u" | tr '[]|' '   '); do
			case "$s" in *"$word"*) ;; *) echo "'$word' missing from $prog.1"; return 1 ;; esac
		done
	done
}

@test "the help of each program describes each option once" {
	for prog in ps-server ps-worker ps-train ps-plot ps-retrain ps-shard-data; do
		twice=$("$prog" --help | sed '1,/^$/d' |
		    grep -oE '^ +(-[A-Za-z0-9]|--[a-z0-9-]+)' | sort | uniq -d)
		echo "$prog: ${twice:-ok}"
		[ -z "$twice" ]
	done
}
