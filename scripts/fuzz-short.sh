#!/usr/bin/env bash
# Runs every Go fuzz target for a short time (FUZZTIME, default 2s), as `make
# test` does. For a longer run of one target:
#   go test -fuzz=FuzzEmail -fuzztime=60s ./internal/rules
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
count=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 500ms "$pkg" >/tmp/guichet-fuzz.log 2>&1 || { cat /tmp/guichet-fuzz.log; exit 1; }
		count=$((count + 1))
	done
done
echo "fuzz: $count targets ran for $fuzztime each"
