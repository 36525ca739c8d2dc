#!/usr/bin/env bash
# Installs and starts whatever this machine is missing, then installs the workspace. Idempotent and
# quick when everything is already there. Used by quickstart.sh, test.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'setup: %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

need_apt=()
command -v tesseract >/dev/null 2>&1 || need_apt+=(tesseract-ocr)
# OCR languages (libs/pdf/src/ocr/ocr-language.ts): eng, osd (orientation and script detection), and
# the right-to-left scripts a page's text layer or OSD can call for (Arabic, Hebrew). Checked one by one
# against what Tesseract lists, so a machine that has them installs nothing.
tess_langs=$(tesseract --list-langs 2>/dev/null | tail -n +2 || true)
for lang in eng osd ara heb; do
  grep -qx "$lang" <<<"$tess_langs" || need_apt+=("tesseract-ocr-$lang")
done
command -v pdftoppm >/dev/null 2>&1 || need_apt+=(poppler-utils)
command -v pg_ctlcluster >/dev/null 2>&1 || need_apt+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# Peer extractors that `pnpm eval:text` scores beside docfleet (never runtime dependencies).
/usr/bin/python3 -c 'import fitz' >/dev/null 2>&1 || need_apt+=(python3-fitz)
/usr/bin/python3 -c 'import pypdf' >/dev/null 2>&1 || need_apt+=(python3-pypdf)
# Headless Chromium drives the web console's end-to-end tests (playwright-core, no browser download).
# DOCFLEET_NO_BROWSER=1 (the quickstart) skips it.
if [ -z "${DOCFLEET_NO_BROWSER:-}" ]; then
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium fonts-dejavu-core)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]} (apt)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! command -v pnpm >/dev/null 2>&1; then
  log "installing pnpm"
  npm install -g pnpm@10.34.9 >/dev/null 2>&1 || $SUDO npm install -g pnpm@10.34.9 >/dev/null
fi

# PostgreSQL: start the local cluster unless something already answers on 5432.
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1 || true)
  if [ -n "$ver" ]; then
    log "starting PostgreSQL $ver"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
    # Fresh Debian clusters use peer auth; the project's contract is trust on loopback.
    hba="/etc/postgresql/$ver/main/pg_hba.conf"
    if [ -f "$hba" ] && ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
      log "allowing trust auth on loopback for local development"
      $SUDO sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
      $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main reload || true
    fi
  fi
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  pg_isready -h 127.0.0.1 -p 5432 -q || { echo "setup: PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }
fi

# Redis: start a non-persistent local server unless one answers.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  mkdir -p /tmp/docfleet-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp/docfleet-redis --logfile /tmp/docfleet-redis/redis.log
  for _ in $(seq 1 20); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "setup: Redis is not reachable on 127.0.0.1:6379" >&2; exit 1; }
fi

if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  log "installing workspace packages"
  CI=true pnpm install --frozen-lockfile --reporter=append-only >/dev/null || { echo "setup: pnpm install failed:" >&2; CI=true pnpm install --frozen-lockfile 2>&1 | tail -n 20 >&2; exit 1; }
fi
gen_log=$(bash scripts/prisma-generate.sh 2>&1) || { echo "setup: prisma generate failed:" >&2; echo "$gen_log" >&2; exit 1; }

# The web console's build (services/console/dist), which the gateway serves at /: rebuilt when its
# sources, the SDK it bundles or the lockfile changed since the last build.
stamp=services/console/dist/index.html
if [ ! -f "$stamp" ] || [ -n "$(find services/console/src services/console/public services/console/index.html services/console/vite.config.ts libs/sdk/src pnpm-lock.yaml -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  log "building the web console"
  build_log=$(cd services/console && pnpm exec vite build --logLevel warn 2>&1) || { echo "setup: web console build failed:" >&2; echo "$build_log" >&2; exit 1; }
fi
