# shellcheck shell=bash
# Debian's Chromium, for BROWSER checks and script runtimes: a program, never started here.
register_service chromium program

chromium_program() {
  command -v chromium 2>/dev/null && return 0
  [ -x /usr/bin/chromium ] && echo /usr/bin/chromium
}
chromium_env() { printf 'CHROMIUM_PATH=%s\n' "$(chromium_program || echo /usr/bin/chromium)"; }
chromium_packages() { chromium_program >/dev/null 2>&1 || echo chromium; }

chromium_probe() {
  local bin out
  bin="$(chromium_program)" || return 1
  out="$(timeout 30 "$bin" --version 2>/dev/null)" || return 1
  [[ "$out" == *Chromium* ]]
}
