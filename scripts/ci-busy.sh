#!/usr/bin/env bash
# make ci-busy: CI (.ci/run) while two other processes keep both cores busy
# (issue 27: CI must stay green on a busy machine). The load is two shell
# loops at nice 0, as another user's work would be; they stop with CI.
set -euo pipefail
cd "$(dirname "$0")/.."
burners=()
stop() {
	for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop EXIT INT TERM
for _ in 1 2; do
	yes >/dev/null &
	burners+=($!)
done
echo "ci-busy: two busy loops (pids ${burners[*]}) while CI runs"
bash .ci/run
