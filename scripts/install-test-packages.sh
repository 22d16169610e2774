#!/usr/bin/env bash
# Installs the Debian packages that layer 1's tests drive: the web servers the redirect
# tests load compiled maps into (crates/urlkey-redirects/tests/real_servers.rs): nginx-light
# and apache2 (with mod_rewrite); and the zsh and fish shells that load the completion
# scripts of `urlkey completions` (crates/urlkey-cli/tests/help.rs). Idempotent: nothing
# happens when all are there. apt-get update runs once,
# and only when something is missing. Two callers at once (scripts/test.sh and CI's
# background install) take turns on a lock, and apt waits for dpkg's own lock (another
# layer may be installing chromium). The tests fail, never skip, without them.
set -euo pipefail

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

have() {
  [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || return 1
  [ -x /usr/sbin/apache2 ] || command -v apache2 >/dev/null || return 1
  [ -f /usr/lib/apache2/modules/mod_rewrite.so ] || return 1
  command -v zsh >/dev/null || return 1
  command -v fish >/dev/null || return 1
}

lock="${TMPDIR:-/tmp}/urlkey-install-test-packages.lock"
exec 9>"$lock"
flock 9

if have; then
  echo "install-test-packages: nginx, apache2, zsh and fish are installed"
  exit 0
fi
echo "install-test-packages: installing Debian's nginx-light, apache2, zsh and fish with apt-get..."
apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
as_root "${apt[@]}" update >/dev/null
as_root "${apt[@]}" install -y --no-install-recommends nginx-light apache2 zsh fish >/dev/null
as_root apt-get clean || true
have || { echo "install-test-packages: nginx, apache2, zsh or fish is still missing after apt-get install" >&2; exit 1; }
echo "install-test-packages: nginx, apache2, zsh and fish are installed"
