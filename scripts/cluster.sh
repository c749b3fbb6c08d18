#!/usr/bin/env bash
# make cluster: the cluster suites of issue 19 (docs/cluster.md). Builds
# bin/guichet; starts a PostgreSQL cluster of its own (initdb in a temporary
# directory, its own port: restarting it never disturbs the machine's server)
# and HAProxy with deploy/haproxy.cfg; then runs test/cluster, which starts
# the three `bin/guichet serve` instances and the SMTP sink and injects the
# faults. Everything started here is stopped on exit (trap).
#   CLUSTER_PORT_BASE   first of the ports used (default 27100): PostgreSQL
#                       +0, instances +1..+3, HAProxy +10 (stats +11),
#                       SMTP sink +20
#   CLUSTER_RUN         a -run pattern for the suites (default: all)
#   CLUSTER_KEEP=1      keep the temporary directory (logs) afterwards
#   CLUSTER_TIMEOUT     go test's -timeout (default 15m)
#   GUICHET_UPGRADE_FROM  the commit the upgrade test starts from
#                       (scripts/upgrade-from.sh: default, main just before
#                       HEAD's newest migration landed)
#   GUICHET_LOAD=1      make load: the load scenario (test/cluster/load_test.go,
#                       LOAD_* settings there) instead of the suites; its
#                       report is printed whole
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
base=${CLUSTER_PORT_BASE:-27100}
[ -x "$pgbin/initdb" ] || { echo "cluster: no PostgreSQL binaries in $pgbin (PGBIN)" >&2; exit 1; }
command -v haproxy >/dev/null || { echo "cluster: haproxy is missing: make deps" >&2; exit 1; }

make --no-print-directory build
# The upgrade test's old binary (scripts/upgrade-from.sh: built once per
# commit and machine, then cached). make load does not need it.
upgrade_bin=
if [ "${GUICHET_LOAD:-}" != 1 ]; then
	upgrade_bin=$(scripts/upgrade-from.sh)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/guichet-cluster.XXXXXX")
pgdata=$tmp/pg
haproxy_pid=
cleanup() {
	status=$?
	set +e
	if [ -n "$haproxy_pid" ]; then kill "$haproxy_pid" 2>/dev/null; wait "$haproxy_pid" 2>/dev/null; fi
	if [ -f "$pgdata/postmaster.pid" ]; then "$tmp/pg_ctl" -m immediate stop >/dev/null 2>&1; fi
	if [ "${CLUSTER_KEEP:-}" = 1 ] || [ $status -ne 0 ]; then
		echo "cluster: logs kept in $tmp"
	else
		rm -rf "$tmp"
	fi
	exit $status
}
trap cleanup EXIT INT TERM

# PostgreSQL refuses to run as root: as root, its cluster belongs to the
# postgres user (Debian's package creates it), through a pg_ctl wrapper the
# suites use too (they stop and start it).
pgrun=()
mkdir -p "$tmp/sock"
if [ "$(id -u)" = 0 ]; then
	pgrun=(runuser -u postgres --)
	chmod 0755 "$tmp"
	mkdir -p "$pgdata" "$tmp/sock" && chown postgres "$pgdata" "$tmp/sock"
	touch "$tmp/postgres.log" && chown postgres "$tmp/postgres.log"
fi
cat >"$tmp/pg_ctl" <<WRAP
#!/bin/sh
exec ${pgrun[*]} "$pgbin/pg_ctl" -D "$pgdata" -l "$tmp/postgres.log" "\$@"
WRAP
chmod +x "$tmp/pg_ctl"

pgport=$base
"${pgrun[@]}" "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust --no-sync -E UTF8 >"$tmp/initdb.log" 2>&1
cat >>"$pgdata/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pgport
unix_socket_directories = '$tmp/sock'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
"$tmp/pg_ctl" -w start >/dev/null
"$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres guichet

export GUICHET_CLUSTER=1
export GUICHET_CLUSTER_BIN=$root/bin/guichet
export GUICHET_UPGRADE_BIN=$upgrade_bin
export GUICHET_CLUSTER_DATABASE_URL="postgres://postgres@127.0.0.1:$pgport/guichet?sslmode=disable"
export GUICHET_CLUSTER_PG_CTL=$tmp/pg_ctl
export GUICHET_CLUSTER_LOGS=$tmp
export GUICHET_CLUSTER_SMTP=127.0.0.1:$((base + 20))
export GUICHET_APP1=127.0.0.1:$((base + 1)) GUICHET_APP2=127.0.0.1:$((base + 2)) GUICHET_APP3=127.0.0.1:$((base + 3))
export GUICHET_LB_BIND=127.0.0.1:$((base + 10)) GUICHET_LB_STATS=127.0.0.1:$((base + 11))
export GUICHET_LB_SOCKET=$tmp/haproxy.sock

# Migrations once, as a deployment does before starting instances (they
# would also run at each start, under the advisory lock).
"$GUICHET_CLUSTER_BIN" migrate --database-url "$GUICHET_CLUSTER_DATABASE_URL"

haproxy -c -q -f deploy/haproxy.cfg
haproxy -W -db -f deploy/haproxy.cfg >"$tmp/haproxy.log" 2>&1 &
haproxy_pid=$!

start=$(date +%s)
set +e
if [ "${GUICHET_LOAD:-}" = 1 ]; then
	CLUSTER_RUN='^TestLoad$'
	show=(cat)
else
	show=(grep --line-buffered -E '^(=== RUN|--- |\s+---|PASS|FAIL|ok|\s+\w+_test\.go:)')
fi
go test -count=1 -timeout "${CLUSTER_TIMEOUT:-15m}" -v ${CLUSTER_RUN:+-run "$CLUSTER_RUN"} ./test/cluster 2>&1 | tee "$tmp/suites.log" |
	"${show[@]}"
status=${PIPESTATUS[0]}
set -e
echo "cluster: suites took $(( $(date +%s) - start )) s (exit $status)"
exit "$status"
