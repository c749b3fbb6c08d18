#!/usr/bin/env bash
# lanes.sh NAME=COMMAND...: runs each COMMAND (a shell command line) at the
# same time, every line of its output prefixed with [NAME], and waits for
# all of them; fails when any fails, naming which (issue 27: `make test` runs
# the CPU-bound stages in one lane while the browser tests, which mostly wait
# on pages and servers, run in another).
set -uo pipefail
pids=()
names=()
for lane in "$@"; do
	name=${lane%%=*}
	command=${lane#*=}
	# sed -u: each line as it comes, so a lane's progress shows live.
	(
		set -o pipefail
		bash -c "$command" 2>&1 | sed -u "s/^/[$name] /"
	) &
	pids+=($!)
	names+=("$name")
done
failed=()
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		failed+=("${names[$i]}")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "lanes: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "lanes: all passed (${names[*]})"
