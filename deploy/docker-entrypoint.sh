#!/bin/sh
# Entrypoint of the docfleet image: runs one service in the foreground as this process (exec), so
# SIGTERM reaches it directly and its own drain logic decides when to exit.
#
#   <image> gateway | parse-worker | index-worker | workflow-worker | webhook-worker | billing a long-running service
#   <image> migrate                                                             apply prisma/migrations, exit
#   <image> cli admin create-org --name Acme --json                             the admin CLI (one-off)
#
# SERVICE=<name> in the environment selects the service instead; then every argument goes to it
# (`docker compose run --rm cli admin …`). Any folder of services/ with src/main.ts is a service.
set -eu
cd "${DOCFLEET_APP_DIR:-/app}"

usage() {
  echo "docfleet: $1" >&2
  echo "usage: <image> gateway|parse-worker|index-worker|workflow-worker|webhook-worker|billing|migrate|cli [args…] (or set SERVICE)" >&2
  exit 64
}

if [ -n "${SERVICE:-}" ]; then
  service="$SERVICE"
elif [ "$#" -gt 0 ]; then
  service="$1"
  shift
else
  usage "no service given"
fi

case "$service" in
  migrate) main=libs/db/src/migrate-cli.ts ;;
  *[!a-z0-9-]*) usage "invalid service name '$service'" ;;
  *) main="services/$service/src/main.ts" ;;
esac
[ -f "$main" ] || usage "unknown service '$service' ($main is missing)"

exec node --import tsx "$main" "$@"
