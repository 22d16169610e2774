#!/usr/bin/env bash
# End-to-end test of `urlkey serve` in a real headless Chromium (Debian's, driven by the npm
# package playwright-core; no browser is ever downloaded).
#
#   crates/urlkey-serve/e2e/run.sh
#
# Builds the release binary (cargo decides whether anything changed), installs Debian's
# chromium with apt-get when /usr/bin/chromium is missing, installs playwright-core from
# package-lock.json when missing, starts `urlkey serve` on a free loopback port, runs
# e2e.mjs, and stops the server. Artifacts go to target/e2e/ (serve.png, compare.png, diff.png, ledger.png, the
# exported CSVs). The server also serves a ledger made from the ledger tests' fixture
# (--ledger), for the ledger page's checks. scale.mjs (run by e2e.mjs) makes a
# 50,000-citation ledger with the binary, serves it on a second server and checks the pages
# at that size in a 1400 px window (screenshots target/e2e/scale-*.png). redirects.mjs (run
# by e2e.mjs) checks the Redirects view: upload, decisions, the exported MAP read back, and
# 50,000 OLD rows (screenshot target/e2e/redirects.png).
# The last line is always `N passed, M failed`; the exit code is non-zero on any failure.
#
# Environment: URLKEY_BIN (use this binary, no build), CHROMIUM (default /usr/bin/chromium),
# E2E_LINES (default 100000), E2E_DATASETS (the folder with kasztp.txt and userbait.txt),
# UPDATE_DOCS_SCREENSHOT=1 (also copy the screenshots to docs/serve.png, docs/serve-compare.png and
# docs/serve-diff.png).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/e2e"
lines="${E2E_LINES:-100000}"
datasets="${E2E_DATASETS:-$root/../shared/datasets/ada-url-various-datasets/others}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
mkdir -p "$out"
rm -f "$out/e2e-result.json" "$out/serve.png" "$out/ledger.png" "$out/compare.png" "$out/diff.png" "$out/redirects.png"

pre_passed=0
pre_failed=0
server_pid=""
node_rc=""

finish() {
  local code=$?
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  local p=0 f=0
  if [ -f "$out/e2e-result.json" ]; then
    p=$(node -e 'const r=require(process.argv[1]);console.log(r.passed)' "$out/e2e-result.json" 2>/dev/null || echo 0)
    f=$(node -e 'const r=require(process.argv[1]);console.log(r.failed)' "$out/e2e-result.json" 2>/dev/null || echo 1)
  fi
  p=$((p + pre_passed))
  f=$((f + pre_failed))
  # The browser test ran but crashed before counting: that is a failure too.
  if [ -n "$node_rc" ] && [ "$node_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -eq 0 ] && [ "$code" -ne 0 ]; then f=1; fi
  echo "$p passed, $f failed"
  if [ "$f" -ne 0 ]; then exit 1; fi
  exit 0
}
trap finish EXIT

pass() { pre_passed=$((pre_passed + 1)); echo "ok    $1"; }
fail_now() { pre_failed=$((pre_failed + 1)); echo "FAIL  $1"; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# 1. The browser: Debian's chromium, never a downloaded one.
if [ ! -x "$CHROMIUM" ]; then
  echo "installing Debian's chromium with apt-get..."
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null && { as_root apt-get clean || true; } ||
    fail_now "apt-get install chromium"
fi
[ -x "$CHROMIUM" ] || fail_now "chromium at $CHROMIUM"
pass "chromium ($("$CHROMIUM" --version 2>/dev/null | head -n1))"

# 2. playwright-core, from the lock file.
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
  echo "installing playwright-core (npm ci)..."
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || fail_now "npm ci"
fi
pass "playwright-core $(node -p 'require(process.argv[1]).version' "$here/node_modules/playwright-core/package.json")"

# 3. The binary (after the installs: URLKEY_INSTALL_ONLY=1 stops before it).
[ "${URLKEY_INSTALL_ONLY:-}" = 1 ] && exit 0
if [ -n "${URLKEY_BIN:-}" ]; then
  bin="$URLKEY_BIN"
else
  echo "building the release binary (cargo build --release -p urlkey-cli)..."
  (cd "$root" && cargo build --release -p urlkey-cli --quiet) || fail_now "release build"
  bin="$target/release/urlkey"
fi
[ -x "$bin" ] || fail_now "binary $bin"
pass "urlkey binary ($bin)"

# 4. The 100,000-line input: the ada-url corpus files, repeated as needed.
big="$out/lines-$lines.txt"
if [ -f "$datasets/kasztp.txt" ] && [ -f "$datasets/userbait.txt" ]; then
  # kasztp.txt starts with a UTF-8 BOM and has no final newline: strip one, add the other.
  corpus="$( { sed '1s/^\xEF\xBB\xBF//' "$datasets/kasztp.txt"; echo; sed '1s/^\xEF\xBB\xBF//' "$datasets/userbait.txt"; echo; } )"
  src="ada-url datasets kasztp.txt + userbait.txt"
else
  corpus="$(for i in $(seq 1 1000); do echo "https://example.com/p$((i % 300))?id=$((i % 7))&utm_source=n$i"; done)"
  src="synthetic URLs ($datasets not found)"
fi
corpus="$(printf '%s\n' "$corpus" | grep -v '^[[:space:]]*$' | grep -v '^[[:space:]]*#')"
n=$(printf '%s\n' "$corpus" | wc -l)
reps=$(( (lines + n - 1) / n ))
for _ in $(seq 1 "$reps"); do printf '%s\n' "$corpus"; done | head -n "$lines" > "$big"
[ "$(wc -l < "$big")" -eq "$lines" ] || fail_now "generate $lines lines"
pass "$lines input lines from $src"

# 5. A citation ledger for the ledger page: the ledger tests' synthetic fixture (its
# figures are worked out by hand in crates/urlkey-ledger/tests/fixtures/README.md).
ledger_db="$out/ledger.sqlite"
rm -f "$ledger_db" "$ledger_db-wal" "$ledger_db-shm"
"$bin" ledger --db "$ledger_db" ingest "$root/crates/urlkey-ledger/tests/fixtures/synthetic-citations.csv" > "$out/ledger-ingest.log" 2>&1 ||
  { cat "$out/ledger-ingest.log"; fail_now "ledger ingest"; }
pass "ledger from tests/fixtures/synthetic-citations.csv"

# 6. The server, on a free loopback port (port 0: the server prints the one it got).
log="$out/server.log"
"$bin" serve --addr 127.0.0.1:0 --ledger "$ledger_db" > "$log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$log" | head -n1)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { cat "$log"; fail_now "server start"; }
pass "server at $url"

# 7. The browser test.
node "$here/e2e.mjs" "$url" "$bin" "$out" "$big"
node_rc=$?

if [ -f "$out/serve.png" ]; then
  echo "screenshot: $out/serve.png"
  if [ "${UPDATE_DOCS_SCREENSHOT:-}" = 1 ]; then
    cp "$out/serve.png" "$root/docs/serve.png" && echo "copied to docs/serve.png"
  fi
fi
if [ -f "$out/compare.png" ]; then
  echo "compare view screenshot: $out/compare.png"
  if [ "${UPDATE_DOCS_SCREENSHOT:-}" = 1 ]; then
    cp "$out/compare.png" "$root/docs/serve-compare.png" && echo "copied to docs/serve-compare.png"
  fi
fi
if [ -f "$out/diff.png" ]; then
  echo "policy change screenshot: $out/diff.png"
  if [ "${UPDATE_DOCS_SCREENSHOT:-}" = 1 ]; then
    cp "$out/diff.png" "$root/docs/serve-diff.png" && echo "copied to docs/serve-diff.png"
  fi
fi
[ -f "$out/ledger.png" ] && echo "ledger page screenshot: $out/ledger.png"
[ -f "$out/redirects.png" ] && echo "redirects view screenshot: $out/redirects.png"
