#!/usr/bin/env bash
# Sums the test results in artifacts/test-results/*.trx over every test project, prints each skipped
# test with its reason, then one plain line: "N passed, N failed, N skipped".
#   build/test-summary.sh [--line-only] [exit status of the test run]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
line_only=false; [[ "${1:-}" == --line-only ]] && { line_only=true; shift; }
status=${1:-0}

passed=0 failed=0 skipped=0
for trx in artifacts/test-results/*.trx; do
  [[ -f "$trx" ]] || continue
  count() { grep '<UnitTestResult ' "$trx" | grep -c "outcome=\"$1\""; }
  passed=$((passed + $(count Passed)))
  failed=$((failed + $(count Failed) + $(count Error) + $(count Timeout) + $(count Aborted)))
  skipped=$((skipped + $(count NotExecuted)))
  $line_only && continue
  awk '/<UnitTestResult / && /outcome="NotExecuted"/ { match($0, /testName="[^"]*"/); name = substr($0, RSTART + 10, RLENGTH - 11); want = 1 }
       want && /<Message>/ { sub(/.*<Message>/, ""); sub(/<\/Message>.*/, ""); print "skipped: " name "\n  reason: " $0; want = 0 }' "$trx" \
    | sed 's/&quot;/"/g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g'
done
# A run that broke before reporting a failure is still a failure.
if (( status != 0 && failed == 0 )); then failed=1; fi
echo "$passed passed, $failed failed, $skipped skipped"
