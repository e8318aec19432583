#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the analytics bench, on 127.0.0.1 only, with its data
# under <repo>/.services/postgres. Installs Debian's postgresql when it is missing.
#
# Usage: bench/support/postgres.sh up|down|status
#   BENCH_POSTGRES_PORT (55432)
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
DIR="$ROOT/.services/postgres"
PORT="${BENCH_POSTGRES_PORT:-55432}"

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

# Root runs the server as the postgres user (it refuses to run as root); anyone else as themselves.
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

up() {
  local bin
  bin="$(find_bin)"
  if [ -z "$bin" ]; then
    echo "[postgres] installing Debian's postgresql" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin="$(find_bin)"
  fi
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
  if [ ! -f "$DIR/data/PG_VERSION" ]; then
    as_owner "'$bin/initdb' -D '$DIR/data' -U postgres --auth=trust -E UTF8 --no-locale" >"$DIR/initdb.log"
  fi
  if ! as_owner "'$bin/pg_ctl' -D '$DIR/data' status" >/dev/null 2>&1; then
    # Settings a team would give a small analytics box: room for sorts, the data set in cache.
    as_owner "'$bin/pg_ctl' -D '$DIR/data' -l '$DIR/server.log' -w -t 60 start -o \"-c listen_addresses=127.0.0.1 -p $PORT -k '$DIR' -c shared_buffers=1GB -c work_mem=64MB -c max_parallel_workers_per_gather=2 -c fsync=off -c synchronous_commit=off\"" >/dev/null
  fi
  echo "[postgres] running on 127.0.0.1:$PORT (data $DIR/data)" >&2
}

down() {
  local bin
  bin="$(find_bin)"
  if [ -n "$bin" ] && [ -f "$DIR/data/PG_VERSION" ]; then
    as_owner "'$bin/pg_ctl' -D '$DIR/data' -m fast -w stop" >/dev/null 2>&1 || true
  fi
  echo "[postgres] stopped" >&2
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) as_owner "'$(find_bin)/pg_ctl' -D '$DIR/data' status" || true ;;
  *) sed -n '2,8p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
esac
