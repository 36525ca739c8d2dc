#!/usr/bin/env bash
# The whole suite: typecheck, OpenAPI lint, jest (integration tests on real PostgreSQL and Redis).
# Ends with one line "N passed, N failed" for CI.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
# One whole-suite run at a time per machine: several checkouts (worktrees, CI beside a working tree)
# running the suite at once on 2 cores turn every timing margin into a spurious failure.
if [ $# -eq 0 ] && [ -z "${DOCFLEET_SUITE_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  lock=/tmp/docfleet-whole-suite.lock
  exec 9>>"$lock"
  if ! flock -n 9; then
    echo "== waiting for another whole-suite run on this machine to finish ($lock)"
    flock 9
  fi
  export DOCFLEET_SUITE_LOCKED=1
fi
export OMP_THREAD_LIMIT=1
status=0
failed_steps=()
echo "== typecheck"
pnpm exec tsc -p tsconfig.json --noEmit || { status=1; failed_steps+=(typecheck); }
pnpm exec tsc -p services/console/tsconfig.json --noEmit || { status=1; failed_steps+=(typecheck-console); }
echo "== format (prettier, 120 columns)"
pnpm exec prettier --check --log-level warn "**/*.{ts,tsx,mjs,cjs,js}" || { status=1; failed_steps+=(format); }
echo "== openapi lint"
pnpm --silent lint:openapi || { status=1; failed_steps+=(openapi-lint); }
echo "== jest"
mkdir -p .tmp
rm -f .tmp/jest-results.json
# Steps before jest that failed are named here, before the count, so a green count never hides them.
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "== steps failed before jest: ${failed_steps[*]}"
fi
pnpm exec jest --ci --json --outputFile=.tmp/jest-results.json "$@" || status=1
# Said again just above the count line (which stays last, for CI), so a green count never hides them.
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "FAILED STEPS: ${failed_steps[*]} (the suite fails whatever the count below says)"
fi
if [ -s .tmp/jest-results.json ]; then
  node -e '
    const r = require("./.tmp/jest-results.json");
    const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    console.log(`${r.numPassedTests} passed, ${failed} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));'
else
  echo "0 passed, 1 failed"
  status=1
fi
exit $status
