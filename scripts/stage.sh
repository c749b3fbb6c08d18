#!/usr/bin/env bash
# stage.sh NAME CMD...: runs CMD; when GUICHET_CI_TIMINGS names a file (.ci/run
# sets it), appends "NAME SECONDS STATUS" to it, so CI can print where its
# time went (issue 27). The command's exit status is the script's.
set -uo pipefail
name=$1
shift
start=$(date +%s.%N)
"$@"
status=$?
if [ -n "${GUICHET_CI_TIMINGS:-}" ]; then
	printf '%s %.1f %s\n' "$name" "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')" "$([ $status = 0 ] && echo ok || echo FAILED)" >>"$GUICHET_CI_TIMINGS"
fi
exit $status
