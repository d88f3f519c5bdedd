# tests/bats/zk.bash: a private ZooKeeper server for the tests of
# ps-ring serve -Z (zk.bats): Debian's zookeeper package, started
# standalone on a free loopback port with its own data directory and a
# 100 ms tick (so sessions of 200 ms to 2 s), and reaped at the end.
#
# zk_start DIR: start it with its files in DIR; sets ZK_PORT, ZK_PID.
# zk_stop: kill it (by PID) and wait.

ZK_CLASSPATH=/etc/zookeeper/conf:/usr/share/java/zookeeper.jar

# zk_free_port: a loopback TCP port nobody listens on.
zk_free_port() {
	local port
	while :; do
		port=$((20000 + RANDOM % 30000))
		ss -Htln "sport = :$port" | grep -q . || { echo "$port"; return; }
	done
}

# zk_ok: does the server at ZK_PORT answer "ruok"?
zk_ok() {
	[ "$(echo ruok | timeout 2 nc -q1 127.0.0.1 "$ZK_PORT" 2>/dev/null)" = imok ]
}

zk_start() {
	local dir=$1 i=0
	[ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null || {
		echo "no ZooKeeper server: run scripts/deps --tests" >&2
		return 1
	}
	mkdir -p "$dir/data"
	ZK_PORT=$(zk_free_port)
	cat >"$dir/zoo.cfg" <<-EOF
	tickTime=100
	initLimit=10
	syncLimit=5
	dataDir=$dir/data
	clientPort=$ZK_PORT
	clientPortAddress=127.0.0.1
	admin.enableServer=false
	4lw.commands.whitelist=ruok,stat
	EOF
	java -Xmx128m -cp "$ZK_CLASSPATH" \
	    -Dzookeeper.log.dir="$dir" -Dzookeeper.root.logger=WARN,CONSOLE \
	    org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
	    >"$dir/zk.log" 2>&1 3>&- &
	ZK_PID=$!
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
