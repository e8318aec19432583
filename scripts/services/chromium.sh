# shellcheck shell=bash
# Debian's Chromium, for script runtimes and the console tests, and its headless shell (the old
# headless mode, Playwright's own choice for headless runs), which BROWSER checks drive: programs,
# never started here.
register_service chromium program

chromium_program() {
  command -v chromium 2>/dev/null && return 0
  [ -x /usr/bin/chromium ] && echo /usr/bin/chromium
}
# The binary itself: Debian's /usr/bin/chromium-headless-shell is a shell script that forks it.
chromium_shell_program() {
  [ -x /usr/lib/chromium/chromium-headless-shell ] && echo /usr/lib/chromium/chromium-headless-shell
}
chromium_env() {
  printf 'CHROMIUM_PATH=%s\n' "$(chromium_program || echo /usr/bin/chromium)"
  printf 'CHROMIUM_HEADLESS_SHELL_PATH=%s\n' \
    "$(chromium_shell_program || echo /usr/lib/chromium/chromium-headless-shell)"
}
chromium_packages() {
  chromium_program >/dev/null 2>&1 || echo chromium
  chromium_shell_program >/dev/null 2>&1 || echo chromium-headless-shell
}

# Both run and print a Chromium version; either one missing or broken fails the probe.
chromium_probe() {
  local bin shell out
  bin="$(chromium_program)" || return 1
  shell="$(chromium_shell_program)" || return 1
  out="$(timeout 30 "$bin" --version 2>/dev/null)" || return 1
  [[ "$out" == *Chromium* ]] || return 1
  out="$(timeout 30 "$shell" --version 2>/dev/null)" || return 1
  [[ "$out" == *Chromium* ]]
}
