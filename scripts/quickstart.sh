#!/usr/bin/env bash
# One command on a fresh machine: install what is missing, migrate, create a local organisation with
# credits (once; kept in .data/quickstart.json), print its API key, and run the whole service.
set -euo pipefail
cd "$(dirname "$0")/.."
DOCFLEET_NO_BROWSER=1 bash scripts/setup.sh
pnpm --silent db:migrate
mkdir -p .data
if [ ! -s .data/quickstart.json ]; then
  pnpm --silent docfleet admin create-org --name "Local" --credits 1000 --json > .data/quickstart.json.tmp
  mv .data/quickstart.json.tmp .data/quickstart.json
fi
key=$(node -e 'process.stdout.write(require("./.data/quickstart.json").api_key)')
port=${PORT:-8080}
cat <<TXT

  docfleet is starting on http://127.0.0.1:${port}  (Ctrl-C stops everything)
  console: http://127.0.0.1:${port}/  (sign in with the API key)
  API key: ${key}
  try:     curl -s -H "x-api-key: ${key}" http://127.0.0.1:${port}/v1/billing/credits

TXT
exec pnpm --silent start
