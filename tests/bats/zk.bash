# tests/bats/zk.bash: a private ZooKeeper server for the tests of
# ps-ring serve -Z (zk.bats): Debian's zookeeper package, started
# standalone on a free loopback port with its own data directory and a
# 100 ms tick (so sessions of 200 ms to 2 s), and reaped at the end.
#
# zk_start DIR [ADDR]: start it with its files in DIR, listening on ADDR
# (default 127.0.0.1); sets ZK_ADDR, ZK_PORT, ZK_PID.
# zk_stop: kill it (by PID) and wait.
# zk_ensemble DIR: three servers on loopback as one ensemble, each with
# its own directory under DIR; sets ZK_ENSEMBLE (their client addresses,
# comma-separated) and ZK_EPIDS; zk_ensemble_stop kills them.

ZK_CLASSPATH=/etc/zookeeper/conf:/usr/share/java/zookeeper.jar

# zk_free_port: a loopback TCP port nobody listens on, below the kernel's
# range of ephemeral ports (the first of ip_local_port_range, 32768 by
# default): one inside it may be taken as the source port of a connection
# before the server that is to listen there starts, as an ensemble's
# servers connect to each other while they come up.
zk_free_port() {
	local port lo=32768
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	[ "$lo" -gt 12000 ] || lo=32768
	while :; do
		port=$((10000 + RANDOM % (lo - 10000)))
		ss -Htln "sport = :$port" | grep -q . || { echo "$port"; return; }
	done
}

# zk_ok: does the server at ZK_ADDR:ZK_PORT answer "ruok"?
zk_ok() {
	[ "$(echo ruok | timeout 2 nc -q1 "$ZK_ADDR" "$ZK_PORT" 2>/dev/null)" = imok ]
}

zk_start() {
	local dir=$1 i=0
	ZK_ADDR=${2:-127.0.0.1}
	[ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null || {
		echo "no ZooKeeper server: run scripts/deps --tests" >&2
		return 1
	}
	mkdir -p "$dir/data"
	ZK_PORT=$(zk_free_port)
	cat >"$dir/zoo.cfg" <<-EOF
	tickTime=100
	maxSessionTimeout=8000
	initLimit=10
	syncLimit=5
	dataDir=$dir/data
	clientPort=$ZK_PORT
	clientPortAddress=$ZK_ADDR
	admin.enableServer=false
	4lw.commands.whitelist=ruok,stat,dump
	EOF
	zk_java "$dir/zoo.cfg" "$dir/zk.log"
	ZK_PID=$ZK_LAST
	until zk_ok; do
		kill -0 "$ZK_PID" 2>/dev/null && [ "$i" -lt 600 ] || {
			echo "ZooKeeper did not start on port $ZK_PORT:" >&2
			tail -n 20 "$dir/zk.log" >&2
			return 1
		}
		sleep 0.05
		i=$((i + 1))
	done
}

zk_stop() {
	[ -n "${ZK_PID:-}" ] || return 0
	kill -CONT "$ZK_PID" 2>/dev/null || true
	kill -TERM "$ZK_PID" 2>/dev/null || true
	wait "$ZK_PID" 2>/dev/null || true
	ZK_PID=
}

# zk_java CFG LOG: a ZooKeeper server on CFG in the background; sets
# ZK_LAST.
zk_java() {
	java -Xmx128m -cp "$ZK_CLASSPATH" \
	    -Dzookeeper.log.dir="$(dirname "$2")" \
	    -Dzookeeper.root.logger=WARN,CONSOLE \
	    org.apache.zookeeper.server.quorum.QuorumPeerMain "$1" \
	    >"$2" 2>&1 3>&- &
	ZK_LAST=$!
}

zk_ensemble() {
	local dir=$1 i j ports=() peers= mode deadline
	for i in 1 2 3; do
		ports[$i]="$(zk_free_port) $(zk_free_port) $(zk_free_port)"
	done
	for i in 1 2 3; do
		set -- ${ports[$i]}
		peers="${peers}server.$i=127.0.0.1:$2:$3
"
	done
	ZK_ENSEMBLE= ZK_EPIDS=
	for i in 1 2 3; do
		set -- ${ports[$i]}
		mkdir -p "$dir/$i/data"
		echo "$i" >"$dir/$i/data/myid"
		printf '%s\n' "tickTime=100" "initLimit=50" "syncLimit=20" \
		    "dataDir=$dir/$i/data" "clientPort=$1" \
		    "clientPortAddress=127.0.0.1" "admin.enableServer=false" \
		    "4lw.commands.whitelist=ruok,srvr" >"$dir/$i/zoo.cfg"
		printf '%s' "$peers" >>"$dir/$i/zoo.cfg"
		zk_java "$dir/$i/zoo.cfg" "$dir/$i/zk.log"
		ZK_EPIDS="$ZK_EPIDS $ZK_LAST"
		ZK_ENSEMBLE="$ZK_ENSEMBLE${ZK_ENSEMBLE:+,}127.0.0.1:$1"
	done
	# Until one leads and both others follow: 60 s at most, however long
	# each look takes (up to 2 s at a server that does not answer), and
	# no longer once one of them exited (ZooKeeper's own log says nothing
	# here: it has no logger binding).
	deadline=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$deadline" ]; do
		for j in $ZK_EPIDS; do
			kill -0 "$j" 2>/dev/null || {
				echo "a ZooKeeper server of the ensemble exited" \
				    "(ports: ${ports[*]})" >&2
				return 1
			}
		done
		mode=
		for j in $(echo "$ZK_ENSEMBLE" | tr ',' ' '); do
			mode="$mode $(echo srvr | timeout 2 nc -q1 127.0.0.1 \
			    "${j##*:}" 2>/dev/null | sed -n 's/^Mode: //p')"
		done
		case $mode in *leader*follower*follower* | *follower*leader*follower* | \
		    *follower*follower*leader*) return 0 ;; esac
		sleep 0.05
	done
	echo "the ZooKeeper ensemble did not form in 60 s:$mode" >&2
	return 1
}

zk_ensemble_stop() {
	local p
	for p in ${ZK_EPIDS:-}; do
		kill -CONT "$p" 2>/dev/null || true
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in ${ZK_EPIDS:-}; do wait "$p" 2>/dev/null || true; done
	ZK_EPIDS=
}
