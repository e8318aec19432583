# shellcheck shell=bash
# The commands of scripts/services.sh, for any registered service: up, down, status, env, logs.

stop_service() {
  local svc="$1" pid grace i
  is_daemon "$svc" || return 0
  if ! pid="$(find_pid "$svc")"; then
    rm -f "$(pidfile_of "$svc")"
    log "$svc: not running"
    return 0
  fi
  grace="$(hook_or "$svc" stop_grace 30)"
  log "$svc: stopping (pid $pid)"
  kill -"$(hook_or "$svc" stop_signal TERM)" "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    pid_alive "$pid" || break
    sleep 0.2
  done
  if pid_alive "$pid"; then
    log "$svc: still running after ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_alive "$pid" || break
      sleep 0.2
    done
  fi
  pid_alive "$pid" && die "$svc: could not stop pid $pid"
  rm -f "$(pidfile_of "$svc")" "$(portfile_of "$svc")"
  log "$svc: stopped"
}

# Put a start marker in the file that collects a service's raw stdout/stderr,
# so log tails after a failed start are not mistaken for older runs.
mark_start() {
  local f
  f="$("$1_stdout_log")"
  mkdir -p "$(dirname "$f")"
  printf '==== %s: start requested by scripts/services.sh ====\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" >>"$f"
}

# Start svc unless it is already running. Sets STARTED[svc]=1 when it launched it.
declare -A STARTED=()
launch_service() {
  local svc="$1" pid port recorded
  is_daemon "$svc" || return 0
  if pid="$(find_pid "$svc")"; then
    recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
    if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then
      log "$svc: running with ports $recorded, configured $(ports_of "$svc"); restarting"
      stop_service "$svc"
    else
      return 0
    fi
  fi
  rm -f "$(pidfile_of "$svc")"
  for port in $(ports_of "$svc"); do
    if port_in_use "$port"; then
      describe_port_owner "$port"
      die "$svc: port $port on $HOST is already in use by a process not managed by this script. Stop that process, or choose another port with $("${svc}_port_var" "$port")=<port>."
    fi
  done
  log "$svc: starting on $HOST port(s) $(ports_of "$svc")"
  mkdir -p "$(dir_of "$svc")"
  mark_start "$svc"
  "${svc}_start"
  ports_of "$svc" >"$(portfile_of "$svc")"
  STARTED[$svc]=1
}

wait_ready() {
  local svc="$1" start=$SECONDS pid="" gone_since=""
  if ! is_daemon "$svc"; then
    "${svc}_probe" || die "$svc: '$("${svc}_program" || echo "$svc") --version' does not answer"
    log "$svc: installed ($("${svc}_program"))"
    return 0
  fi
  while :; do
    if "${svc}_probe"; then
      if has_hook "$svc" after_ready; then "${svc}_after_ready"; fi
      if [ -n "${STARTED[$svc]:-}" ]; then
        log "$svc: ready after $((SECONDS - start))s (pid $(find_pid "$svc" || echo '?'))"
      else
        log "$svc: already running (pid $(find_pid "$svc" || echo '?'))"
      fi
      return 0
    fi
    if pid="$(find_pid "$svc")"; then
      gone_since=""
    else
      # redis daemonizes and writes its pid file a moment later; allow a few seconds.
      [ -n "$gone_since" ] || gone_since=$SECONDS
      if ((SECONDS - gone_since >= 5)); then
        show_log_tail "$svc"
        die "$svc: process exited during startup (logs above; directory $(dir_of "$svc"))"
      fi
    fi
    if ((SECONDS - start >= START_TIMEOUT)); then
      show_log_tail "$svc"
      die "$svc: did not answer within ${START_TIMEOUT}s (pid ${pid:-none}); logs above. Try 'scripts/services.sh down $svc' then 'up $svc'."
    fi
    sleep 1
  done
}

LOCK_HELD=0
acquire_lock() {
  [ "$LOCK_HELD" = 1 ] && return 0
  mkdir -p "$SERVICES_DIR"
  exec 9>"$LOCK_FILE"
  if ! flock -n 9; then
    log "waiting for another scripts/services.sh run to finish (lock $LOCK_FILE)..."
    flock -w 1800 9 || die "timed out waiting for $LOCK_FILE"
  fi
  LOCK_HELD=1
}

parse_services() {
  SERVICES=()
  local s
  if [ "$#" -eq 0 ]; then
    SERVICES=("${ALL_SERVICES[@]}")
    return
  fi
  for s in "$@"; do
    valid_service "$s" || die "unknown service '$s' (expected: ${ALL_SERVICES[*]})"
    SERVICES+=("$s")
  done
}

# Answers now: a daemon must also be our process (not some other server on the port).
answers() { { ! is_daemon "$1" || find_pid "$1" >/dev/null; } && "$1_probe"; }

cmd_up() {
  parse_services "$@"
  acquire_lock
  local svc need_install=() quick=1 recorded
  # Fast path: everything requested already answers, on the configured ports.
  for svc in "${SERVICES[@]}"; do
    answers "$svc" || quick=0
    if [ "$quick" = 1 ] && is_daemon "$svc"; then
      recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
      if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then quick=0; fi
    fi
    [ "$quick" = 1 ] || break
  done
  if [ "$quick" = 1 ]; then
    log "already running: ${SERVICES[*]}"
    return 0
  fi
  for svc in "${SERVICES[@]}"; do
    if is_daemon "$svc"; then
      find_pid "$svc" >/dev/null || need_install+=("$svc")
    else
      "${svc}_probe" || need_install+=("$svc")
    fi
  done
  [ "${#need_install[@]}" -gt 0 ] && ensure_packages "${need_install[@]}"
  # Start everything first, then wait, so the services boot in parallel.
  for svc in "${SERVICES[@]}"; do
    launch_service "$svc"
  done
  for svc in "${SERVICES[@]}"; do
    wait_ready "$svc"
  done
}

cmd_down() {
  parse_services "$@"
  acquire_lock
  local i svc
  # Reverse start order, so what depends on a server stops before it.
  for ((i = ${#ALL_SERVICES[@]} - 1; i >= 0; i--)); do
    svc="${ALL_SERVICES[$i]}"
    [[ " ${SERVICES[*]} " == *" $svc "* ]] && stop_service "$svc"
  done
  return 0
}

cmd_status() {
  parse_services "$@"
  local svc pid state ports recorded
  for svc in "${SERVICES[@]}"; do
    if ! is_daemon "$svc"; then
      if "${svc}_probe"; then state=installed; else state=missing; fi
      printf '%-11s %-13s %s\n' "$svc" "$state" "$("${svc}_program" || echo '-')"
      continue
    fi
    ports="$(ports_of "$svc" | sed "s/\([0-9]\+\)/$HOST:\1/g; s/ /,/g")"
    if pid="$(find_pid "$svc")"; then
      recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
      if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then
        # Started with other VIGIL_*_PORT values than the current environment's.
        ports="$(sed "s/\([0-9]\+\)/$HOST:\1/g; s/ /,/g" <<<"$recorded")"
        printf '%-11s %-13s %-32s pid %s (other ports than configured)\n' "$svc" running "$ports" "$pid"
        continue
      fi
      if "${svc}_probe"; then state=running; else state=unresponsive; fi
      printf '%-11s %-13s %-32s pid %s\n' "$svc" "$state" "$ports" "$pid"
    else
      printf '%-11s %-13s %s\n' "$svc" stopped "$ports"
    fi
  done
}

cmd_env() {
  local svc
  for svc in "${ALL_SERVICES[@]}"; do
    if has_hook "$svc" env; then "${svc}_env"; fi
  done
}

cmd_logs() {
  [ "$#" -ge 1 ] || die "usage: scripts/services.sh logs <service> [lines]"
  valid_service "$1" || die "unknown service '$1'"
  local f lines="${2:-100}"
  for f in $(hook_or "$1" logs ""); do
    [ -s "$f" ] || continue
    printf '==> %s <==\n' "$f"
    tail -n "$lines" "$f"
  done
}
