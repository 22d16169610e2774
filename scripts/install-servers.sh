#!/usr/bin/env bash
# Installs the web servers that the redirect tests load compiled maps into
# (crates/urlkey-redirects/tests/real_servers.rs): Debian's nginx-light and apache2 (with
# mod_rewrite). Idempotent: nothing happens when both are there. apt-get update runs once,
# and only when something is missing. Two callers at once (scripts/test.sh and CI's
# background install) take turns on a lock, and apt waits for dpkg's own lock (another
# layer may be installing chromium). The tests fail, never skip, without the servers.
set -euo pipefail

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

have() {
  [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || return 1
  [ -x /usr/sbin/apache2 ] || command -v apache2 >/dev/null || return 1
  [ -f /usr/lib/apache2/modules/mod_rewrite.so ] || return 1
}

lock="${TMPDIR:-/tmp}/urlkey-install-servers.lock"
exec 9>"$lock"
flock 9

if have; then
  echo "install-servers: nginx and apache2 are installed"
  exit 0
fi
echo "install-servers: installing Debian's nginx-light and apache2 with apt-get..."
apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
as_root "${apt[@]}" update >/dev/null
as_root "${apt[@]}" install -y --no-install-recommends nginx-light apache2 >/dev/null
as_root apt-get clean || true
have || { echo "install-servers: nginx or apache2 is still missing after apt-get install" >&2; exit 1; }
echo "install-servers: nginx and apache2 are installed"
