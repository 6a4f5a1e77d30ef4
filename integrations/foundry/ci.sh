#!/usr/bin/env bash
# The Foundry module's CI: install from the lockfile, type-check against foundry-vtt-types, build, package,
# and run its tests (the end-to-end one starts a real `tabletrail serve`: the repository's .venv must exist,
# or TABLETRAIL must name the tabletrail command). Called by .ci/run after the Python venv is made.
set -euo pipefail
cd "$(dirname "$0")"
export TABLETRAIL="${TABLETRAIL:-$(cd ../.. && pwd)/.venv/bin/tabletrail}"
npm ci --no-audit --no-fund
npx tsc --noEmit
npm run build
npm run package
npx vitest run
