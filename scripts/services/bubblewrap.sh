# shellcheck shell=bash
# bubblewrap, the script sandbox's launcher (libs/sandbox): a program, never started here.
register_service bubblewrap program

bubblewrap_program() { [ -x /usr/bin/bwrap ] && echo /usr/bin/bwrap; }
bubblewrap_packages() { bubblewrap_program >/dev/null 2>&1 || echo bubblewrap; }

bubblewrap_probe() {
  local out
  out="$(timeout 10 /usr/bin/bwrap --version 2>/dev/null)" || return 1
  [[ "$out" == bubblewrap* ]]
}
