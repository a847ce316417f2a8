#!/usr/bin/env bash
# The conformance step of action.yml: gcv conform on the implementation, with both reports.
#
# Reads the action's inputs from INPUT_* (see action.yml), runs gcv from GCV_BIN (default:
# the one on PATH), writes conformance.xml, conformance.json and the printed summary
# (summary.txt) into REPORT_DIR, appends exit-code and report-dir to GITHUB_OUTPUT and the
# summary's last lines to GITHUB_STEP_SUMMARY when they are set, and exits as gcv conform
# did, so the job fails exactly when the run does not conform (or could not run).
set -uo pipefail

: "${INPUT_COMMAND:?the input command, the implementation command line, is empty}"
reports=${REPORT_DIR:-gcv-conformance}
mkdir -p "$reports"
if [[ -n ${GCV_BIN:-} ]]; then
    gcv=$GCV_BIN/gcv
    # Last on PATH: the command finds gcv (gcv serve) without shadowing the job's own tools.
    export PATH=$PATH:$GCV_BIN
else
    gcv=gcv
fi

options=(
    --profile "${INPUT_PROFILE:-paper}"
    --junit "$reports/conformance.xml"
    --json "$reports/conformance.json"
)
[[ -n ${INPUT_VECTORS:-} ]] && options+=(--vectors "$INPUT_VECTORS")
[[ -n ${INPUT_VECTORS_VERSION:-} ]] && options+=(--vectors-version "$INPUT_VECTORS_VERSION")
[[ -n ${INPUT_KNOWN_FAILURES:-} ]] && options+=(--known-failures "$INPUT_KNOWN_FAILURES")
IFS=$' \t\n,' read -r -d '' -a features <<<"${INPUT_FEATURES:-}"
for feature in "${features[@]}"; do
    options+=(--feature "$feature")
done

"$gcv" conform "${options[@]}" -- bash -c "$INPUT_COMMAND" | tee "$reports/summary.txt"
code=${PIPESTATUS[0]}
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    printf 'exit-code=%s\nreport-dir=%s\n' "$code" "$reports" >>"$GITHUB_OUTPUT"
fi
if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    # The run's closing lines (the verdict, the profiles, what was not run) on the job's page.
    {
        printf '### gcv conform: exit %s\n\n```text\n' "$code"
        tail -n 12 "$reports/summary.txt"
        printf '```\n'
    } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$code"
