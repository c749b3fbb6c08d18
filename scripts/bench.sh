#!/usr/bin/env bash
# `make bench`: the budgets of docs/benchmarks.md, measured on this machine in
# one run. Not part of CI (timings depend on the machine).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${BENCH_PORT:-18080}
data=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT

# serve_ready starts bin/guichet serve --dev on $data (its pid in $pid) and
# sets $ready to the milliseconds it took to answer /readyz.
serve_ready() {
	local start
	start=$(date +%s%N)
	GUICHET_ADDR=127.0.0.1:$port GUICHET_ADMIN_ADDR=127.0.0.1:0 GUICHET_DATA_DIR=$data bin/guichet serve --dev 2>"$data/log" &
	pid=$!
	until curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do sleep 0.005; done
	ready=$(( ($(date +%s%N) - start) / 1000000 ))
}

echo "== start to ready, idle memory (bin/guichet serve --dev, SQLite)"
serve_ready
echo "start to ready (first start: migrations and demo data): ${ready} ms (budget 300 ms; no argon2id runs: the demo hashes are made once, issue 34)"
sleep 3
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "resident memory after the first start: $((rss / 1024)) MB (budget 40 MB)"
kill "$pid"; wait "$pid" 2>/dev/null || true
serve_ready
echo "start to ready (warm start): ${ready} ms (budget 300 ms)"
for h in belair bna intact scotia servus; do curl -fs -o /dev/null "http://127.0.0.1:$port/" -H "Host: $h.localhost"; done
sleep 3
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "idle resident memory: $((rss / 1024)) MB (budget 40 MB)"

echo "== entry pages' JavaScript on the wire (precompressed, as Chromium receives it; en and fr): brotli budget 90 KB, gzip 100 KB (issue 32)"
echo "   and everything each page downloads until the network is quiet (login: 110 KB with the headers, brotli and gzip; issue 32)"
bytes_failed=0
for path in / /forgot /registration/identification /create-an-account/identification/account-type /email-undo; do
  all=""
  [ "$path" = / ] && all=110
  (cd web && node bench/route-js.mjs "http://belair.localhost:$port$path" 90 $all) || bytes_failed=1
  (cd web && BENCH_ACCEPT_ENCODING=gzip node bench/route-js.mjs "http://belair.localhost:$port$path" 100 $all) || bytes_failed=1
done
[ "$bytes_failed" = 1 ] && echo "(a byte budget was missed: see the lines above)"

echo "== what a browser test pays per screen (docs/ci.md: CI is CPU-bound)"
(cd web && node bench/browser-costs.mjs "http://belair.localhost:$port/?lang=en" 10)

echo "== Lighthouse 12, mobile preset, median of \${BENCH_LH_RUNS:-3} runs per page, English and French (issues 12 and 32: performance >= 95, CLS <= 0.02, accessibility and best practices 100)"
# BENCH_LH_PATHS: the pages measured (a path this build does not have is
# skipped); BENCH_LH_LANGS: the languages (default "en fr"). /my-account is
# measured signed in as the demo policyholder, the roadblock as the web
# SSO's return reaches it (web/bench/lighthouse.mjs).
lighthouse_failed=0
(cd web/bench && node lighthouse.mjs "http://belair.localhost:$port" \
	${BENCH_LH_PATHS:-/ /forgot /registration/identification /create-an-account/identification/account-type /my-account /roadblock/forgot-password}) ||
	{ lighthouse_failed=1; echo "(a Lighthouse target was missed: see the lines above)"; }

echo "== growth: 1k, 100k and 1M generated accounts (GUICHET_BENCH_GROWTH), the cost of find, console search, audit export and purge at each size (issue 34)"
GUICHET_BENCH=1 go test -timeout 60m -run '^TestGrowth$' -count=1 -v ./internal/console | grep -v '^=== RUN' ||
	echo "(the growth section failed: see the lines above)"
if [ -n "${GUICHET_TEST_DATABASE_URL:-}" ]; then
	GUICHET_BENCH=1 GUICHET_BENCH_POSTGRES=1 go test -timeout 60m -run '^TestGrowth$' -count=1 -v ./internal/console | grep -v '^=== RUN' || true
fi

echo "== sign-in throughput (find + authentication + session) against the argon2id bound: returning browsers (issue 34)"
GUICHET_BENCH=1 go test -timeout 30m -run '^TestSignInThroughput$' -count=1 -v ./internal/app | grep -v '^=== RUN' ||
	echo "(a sign-in target was missed: see the lines above)"
echo "== the same with new browsers (a known-devices row and a new-device email each; for information)"
GUICHET_BENCH=1 GUICHET_BENCH_NEW_BROWSERS=1 go test -timeout 30m -run '^TestSignInThroughput$' -count=1 -v ./internal/app | grep -v '^=== RUN' || true
if [ -n "${GUICHET_TEST_DATABASE_URL:-}" ]; then
	echo "== the same on PostgreSQL (its server shares the cores; for information)"
	GUICHET_BENCH=1 GUICHET_BENCH_POSTGRES=1 go test -timeout 30m -run '^TestSignInThroughput$' -count=1 -v ./internal/app | grep -v '^=== RUN' || true
fi

echo "== load shedding: wrong sign-ins from 1,000 concurrent clients, a burst then a sustained flood (issue 11)"
GUICHET_BENCH=1 go test -timeout 30m -run '^TestSignInFlood$' -count=1 -v ./internal/app | grep -v '^=== RUN' ||
	echo "(a load-shedding target was missed: see the lines above)"

echo "== authentication timing: wrong password, locked, unknown, temporary held (issue 11; CI counts the hashes instead)"
GUICHET_BENCH=1 go test -timeout 30m -run '^TestSignInTimingMedians$' -count=1 -v ./internal/app | grep -v '^=== RUN' ||
	echo "(the timing target was missed: see the lines above)"

# on_both_databases TESTS WHAT: the app benchmarks matching TESTS on SQLite,
# then on PostgreSQL when GUICHET_TEST_DATABASE_URL is set; WHAT names the
# target in the line printed when one is missed.
on_both_databases() {
	GUICHET_BENCH=1 go test -timeout 30m -run "$1" -count=1 -v ./internal/app | grep -v '^=== RUN' ||
		echo "(a $2 target was missed: see the lines above)"
	if [ -n "${GUICHET_TEST_DATABASE_URL:-}" ]; then
		echo "== the same on PostgreSQL"
		GUICHET_BENCH=1 GUICHET_BENCH_POSTGRES=1 go test -timeout 30m -run "$1" -count=1 -v ./internal/app | grep -v '^=== RUN' ||
			echo "(a $2 target was missed: see the lines above)"
	fi
}

echo "== live chat: 5,000 idle visitor sockets (resident memory per socket, target 20 KB) and agent-to-visitor latency with 500 active conversations (target p99 50 ms), SQLite"
on_both_databases '^TestChatIdleSockets$|^TestChatLatency$' chat

echo "== OpenID provider: authorization-code exchanges and refreshes per second through the token endpoint, p99 at half rate (issue 30: 500/s each, p99 20 ms), SQLite"
on_both_databases '^TestOIDCThroughput$' 'token endpoint'

echo "== argon2id at design.md's parameters: internal/argon2id (memory reused) against golang.org/x/crypto/argon2"
go test -timeout 30m -run '^$' -bench . -benchtime 40x -count 3 ./internal/argon2id | grep Benchmark

echo "== notification delivery throughput to a local SMTP server (1 and 2 workers; PostgreSQL too when GUICHET_TEST_DATABASE_URL is set)"
go test -timeout 30m -run '^$' -bench BenchmarkDelivery -benchtime 2000x ./internal/notify

echo "== policy import: 100,000 rows into a fresh SQLite database, one transaction (issue 13: under 30 s)"
go test -timeout 30m -run '^$' -bench BenchmarkImport100k -benchtime 1x -count 2 ./internal/policy | grep Benchmark
if [ "$bytes_failed" = 1 ]; then
	echo "bench: a byte budget was missed" >&2
fi
if [ "$lighthouse_failed" = 1 ]; then
	echo "bench: a Lighthouse target was missed" >&2
fi
if [ "$bytes_failed" = 1 ] || [ "$lighthouse_failed" = 1 ]; then
	exit 1
fi
