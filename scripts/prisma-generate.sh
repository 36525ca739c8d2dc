#!/usr/bin/env bash
# Generates the Prisma client offline (see prisma/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PRISMA_SCHEMA_ENGINE_BINARY="$PWD/scripts/no-schema-engine.sh"
export CHECKPOINT_DISABLE=1
export PRISMA_HIDE_UPDATE_MESSAGE=1
pnpm exec prisma generate --no-hints
