#!/usr/bin/env bash
# stage.sh NAME CMD...: runs CMD; when GUICHET_CI_TIMINGS names a file (.ci/run
# sets it), appends "NAME WALL_SECONDS CPU_SECONDS STATUS" to it, so CI can
# print where its time went (issue 27). CPU is the user and system time of
# CMD and every process it waited for (bash's `times`); CPU ÷ wall is how
# many of the machine's cores the stage kept busy. The command's exit status
# is the script's.
set -uo pipefail
name=$1
shift
start=$(date +%s.%N)
"$@"
status=$?
if [ -n "${GUICHET_CI_TIMINGS:-}" ]; then
	# The second line of `times` (run here, not in a subshell, which has no
	# children): the children's user and system time, as 1m2.345s.
	times_file=$(mktemp)
	times >"$times_file"
	cpu=$(sed -n 2p "$times_file" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } print t }')
	rm -f "$times_file"
	printf '%s %.1f %.1f %s\n' "$name" "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')" "$cpu" \
		"$([ $status = 0 ] && echo ok || echo FAILED)" >>"$GUICHET_CI_TIMINGS"
fi
exit $status
