# shellcheck shell=bash
# PostgreSQL (Debian's, newest /usr/lib/postgresql/*/bin): an event store and analytics engine.
# It trusts connections from 127.0.0.1; run as root, the server runs as the `postgres` user.
register_service postgres daemon

POSTGRES_PORT="${VIGIL_POSTGRES_PORT:-54329}"
require_number VIGIL_POSTGRES_PORT "$POSTGRES_PORT"
# Not .services/postgres: bench/support/postgres.sh keeps its own throwaway cluster there.
PG_DIR="$SERVICES_DIR/postgresql"

postgres_dir() { echo "$PG_DIR"; }
postgres_ports() { echo "$POSTGRES_PORT"; }
postgres_port_var() { echo VIGIL_POSTGRES_PORT; }
postgres_env() { printf 'POSTGRES_URL=postgres://postgres@%s:%s/vigil\n' "$HOST" "$POSTGRES_PORT"; }
postgres_logs() { echo "$PG_DIR/server.log $PG_DIR/initdb.log"; }
postgres_stdout_log() { echo "$PG_DIR/server.log"; }
# SIGINT is the "fast" shutdown (TERM would wait for every client to leave).
postgres_stop_signal() { echo INT; }

postgres_bin_dir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$d" ] && [ -x "$d/postgres" ] && echo "$d"
}

postgres_packages() {
  postgres_bin_dir >/dev/null 2>&1 || echo postgresql
  command -v setpriv >/dev/null 2>&1 || echo util-linux
}

postgres_probe() {
  local bin out
  bin="$(postgres_bin_dir)" || return 1
  out="$(PGCONNECT_TIMEOUT=5 timeout 10 "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres \
    -XtAc 'SELECT 1' 2>/dev/null)" || return 1
  [ "$out" = 1 ]
}

# The postmaster keeps its command line; its children rename themselves ("postgres: checkpointer").
postgres_is_ours() { [[ "$2" == *bin/postgres\ * && "$2" == *"-D $PG_DIR/data "* ]]; }

# Run a command as the server's owner: PostgreSQL refuses to run as root, so root
# uses the `postgres` account the Debian package creates.
as_pg_owner() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

postgres_prepare() {
  local bin="$1"
  mkdir -p "$PG_DIR"
  if [ "$(id -u)" = 0 ]; then
    getent passwd postgres >/dev/null || die "postgres: the 'postgres' user is missing (reinstall the postgresql package)"
    chown postgres:postgres "$PG_DIR"
    # A checkout under a private home (/root is 0700) cannot be reached by the server's user.
    setpriv --reuid=postgres --regid=postgres --init-groups -- test -w "$PG_DIR" ||
      die "postgres: the 'postgres' user cannot reach $PG_DIR; make its parent directories traversable (chmod o+x) or move the checkout"
    [ -d "$PG_DIR/data" ] && chown -R postgres:postgres "$PG_DIR/data"
    touch "$PG_DIR/server.log" && chown postgres:postgres "$PG_DIR/server.log"
  fi
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    log "postgres: initdb in $PG_DIR/data"
    rm -rf "$PG_DIR/data"
    as_pg_owner "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-locale \
      >"$PG_DIR/initdb.log" 2>&1 9>&- || {
      show_log_tail postgres
      die "postgres: initdb failed"
    }
  fi
  return 0
}

postgres_start() {
  local bin
  bin="$(postgres_bin_dir)" || die "postgres binaries not found under /usr/lib/postgresql"
  postgres_prepare "$bin"
  rm -f "$PG_DIR/postgres.pid"
  local run=()
  [ "$(id -u)" = 0 ] && run=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  # A local test server: loopback only (initdb --auth=trust), no fsync.
  spawn_detached postgres "$PG_DIR/server.log" "${run[@]}" "$bin/postgres" -D "$PG_DIR/data" -p "$POSTGRES_PORT" \
    -k "$PG_DIR" -c listen_addresses="$HOST" -c max_connections=200 -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off
}

# The database the apps use; created once the server answers.
postgres_after_ready() {
  local bin
  bin="$(postgres_bin_dir)"
  "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres -XtAc \
    "SELECT 1 FROM pg_database WHERE datname = 'vigil'" 2>/dev/null | grep -q 1 && return 0
  "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres -Xqc 'CREATE DATABASE vigil' >&2 ||
    die "postgres: could not create the database vigil"
  log "postgres: created database vigil"
}
