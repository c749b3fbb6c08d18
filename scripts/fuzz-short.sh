#!/usr/bin/env bash
# Runs every Go fuzz target for a short time (FUZZTIME, default 2s), as `make
# test` does. For a longer run of one target:
#   go test -fuzz=FuzzEmail -fuzztime=60s ./internal/rules
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
count=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The targets are read from the test files (func FuzzX(f *testing.F)), not by
# compiling every package with go test -list.
for dir in $(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' cmd internal | xargs -r -n1 dirname | sort -u); do
	pkg=./$dir
	for target in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(f \*testing\.F\).*/\1/p' "$dir"/*_test.go | sort -u); do
		echo "fuzz $pkg $target ($fuzztime)"
		# Go's fuzzer sometimes ends a time-bounded run with a bare "context
		# deadline exceeded" and no failing input; only a run that wrote a
		# failing input (or fails twice) is a failure.
		for attempt in 1 2; do
			if go test -timeout 5m -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 500ms "$pkg" >"$log" 2>&1; then
				break
			fi
			if grep -q 'Failing input written to' "$log" || [ "$attempt" = 2 ]; then
				cat "$log"
				exit 1
			fi
			echo "  $target: the fuzzer stopped without a failing input ($(grep -m1 -o 'context deadline exceeded' "$log" || echo 'no reason given')); running it again"
		done
		count=$((count + 1))
	done
done
[ "$count" -gt 0 ] || { echo "fuzz: no target found" >&2; exit 1; }
echo "fuzz: $count targets ran for $fuzztime each"
