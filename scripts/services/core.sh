# shellcheck shell=bash
# The shared core of scripts/services.sh: process bookkeeping, installing Debian packages,
# and the up/down/status/env/logs commands. Each server lives in its own file beside this
# one (see README.md here) and plugs in through functions named <service>_<hook>.

HOST=127.0.0.1
START_TIMEOUT="${VIGIL_SERVICES_TIMEOUT:-120}"
# Resolved, so that a checkout whose .services is a link to another's shares that one's servers.
SERVICES_DIR="$(cd -- "$REPO_ROOT/.services" 2>/dev/null && pwd -P || echo "$REPO_ROOT/.services")"
LOCK_FILE="$SERVICES_DIR/.lock"

log() { printf '[services] %s\n' "$*" >&2; }
die() {
  printf '[services] ERROR: %s\n' "$*" >&2
  exit 1
}

# A port or a count from the environment must be a number; the message names the variable.
require_number() {
  [[ "$2" =~ ^[0-9]+$ ]] || die "not a number: $1='$2'"
}
require_number VIGIL_SERVICES_TIMEOUT "$START_TIMEOUT"

# ------------------------------------------------------------ the registry --

# Services in start order (stopped in reverse). Filled by register_service from each file.
ALL_SERVICES=()
declare -A KIND_OF=()

# register_service <name> daemon|program: a daemon is a server started and stopped here;
# a program (Chromium, bubblewrap) is only installed and checked, the apps launch it.
register_service() {
  ALL_SERVICES+=("$1")
  KIND_OF[$1]="$2"
}

valid_service() { [ -n "${KIND_OF[$1]:-}" ]; }
is_daemon() { [ "${KIND_OF[$1]}" = daemon ]; }
has_hook() { declare -F "$1_$2" >/dev/null; }
# Calls <service>_<hook> when the service defines it; otherwise prints the default, if one is given.
hook_or() {
  local svc="$1" hook="$2" fallback="$3"
  shift 3
  if has_hook "$svc" "$hook"; then "${svc}_$hook" "$@"; else [ -z "$fallback" ] || echo "$fallback"; fi
}

dir_of() { hook_or "$1" dir "$SERVICES_DIR/$1"; }
pidfile_of() { echo "$(dir_of "$1")/$1.pid"; }
portfile_of() { echo "$(dir_of "$1")/.port"; }
ports_of() { "$1_ports"; }

# --------------------------------------------------------------- processes --

# True if the process exists and is not a zombie (orphans may never be reaped here).
pid_alive() {
  local pid="$1" state
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/stat" ] || return 1
  state="$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

# Is pid one of *our* instances of the service (not some other redis/java)?
pid_is_ours() {
  pid_alive "$2" || return 1
  "$1_is_ours" "$2" "$(cmdline_of "$2")"
}

# Print the pid of our running instance of svc (from its pid file, or adopted by
# scanning /proc if the pid file was lost). Returns 1 if not running.
find_pid() {
  local svc="$1" pidfile pid p
  pidfile="$(pidfile_of "$svc")"
  if [ -f "$pidfile" ]; then
    pid="$(tr -dc '0-9' <"$pidfile" 2>/dev/null || true)"
    if [ -n "$pid" ] && pid_is_ours "$svc" "$pid"; then
      echo "$pid"
      return 0
    fi
  fi
  for p in /proc/[0-9]*; do
    pid="${p#/proc/}"
    [ "$pid" = "$$" ] && continue
    if pid_is_ours "$svc" "$pid"; then
      if [ -d "$(dirname "$pidfile")" ]; then echo "$pid" >"$pidfile"; fi
      echo "$pid"
      return 0
    fi
  done
  return 1
}

port_in_use() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" >/dev/null 2>&1
}

describe_port_owner() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltnp "sport = :$1" 2>/dev/null | sed 's/^/    /' >&2 || true
  fi
}

# Runs a server in its own session, detached from this shell, with its output appended to
# a log; records its pid. fd 9 is the lock, which the server must not inherit.
spawn_detached() {
  local svc="$1" log_file="$2"
  shift 2
  (
    cd "$(dir_of "$svc")"
    exec setsid nohup "$@" </dev/null >>"$log_file" 2>&1 9>&-
  ) &
  echo "$!" >"$(pidfile_of "$svc")"
}

show_log_tail() {
  local svc="$1" lines="${2:-40}" f
  for f in $(hook_or "$svc" logs ""); do
    if [ -s "$f" ]; then
      printf '[services] ---- last %s lines of %s ----\n' "$lines" "$f" >&2
      tail -n "$lines" "$f" >&2 || true
    fi
  done
}

# ---------------------------------------------------------- Debian packages --

POLICY_RC_D_CREATED=0
cleanup() {
  if [ "$POLICY_RC_D_CREATED" = 1 ]; then
    rm -f /usr/sbin/policy-rc.d
  fi
}
trap cleanup EXIT

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to install packages: $*"
  fi
}

# Installs, in one apt run, the packages each service's <service>_packages says it lacks.
ensure_packages() {
  local svc pkgs=()
  for svc in "$@"; do
    # shellcheck disable=SC2207 # package names have no spaces
    pkgs+=($("${svc}_packages"))
  done
  [ "${#pkgs[@]}" -eq 0 ] && return 0
  # The rest of the script needs these, whatever subset is requested.
  command -v curl >/dev/null 2>&1 || pkgs+=(curl)
  command -v flock >/dev/null 2>&1 || pkgs+=(util-linux)
  [ -e /etc/ssl/certs/ca-certificates.crt ] || pkgs+=(ca-certificates)
  log "installing Debian packages: ${pkgs[*]}"

  # Keep package maintainer scripts from starting system-wide redis/clickhouse
  # instances (they would grab our ports): deny every service start while installing.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    POLICY_RC_D_CREATED=1
  fi
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q)
  as_root "${apt[@]}" update >&2 || die "apt-get update failed"
  as_root "${apt[@]}" install -y --no-install-recommends "${pkgs[@]}" >&2 ||
    die "apt-get install failed for: ${pkgs[*]}"
  if [ "$POLICY_RC_D_CREATED" = 1 ]; then
    as_root rm -f /usr/sbin/policy-rc.d
    POLICY_RC_D_CREATED=0
  fi
  # Belt and braces: if an init system did start the packaged daemons anyway,
  # stop them so they don't hold our ports.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    for svc in "${pkgs[@]}"; do
      case "$svc" in
        redis-server | clickhouse-server | postgresql)
          as_root systemctl disable --now "$svc" >/dev/null 2>&1 || true
          ;;
      esac
    done
  fi
}
