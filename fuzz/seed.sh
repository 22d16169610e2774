#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets under fuzz/corpus/<target>/ from the WPT
# URL tests (../shared/wpt), the URL datasets (../shared/datasets), the golden fixtures
# and the example policy files. The corpora are generated, not committed (.gitignore).
# Usage: bash fuzz/seed.sh   (from the repository root or from fuzz/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
shared="${SHARED:-$root/../shared}"
python3 - "$here" "$root" "$shared" <<'PY'
import hashlib, json, os, pathlib, random, sys

here, root, shared = map(pathlib.Path, sys.argv[1:4])
rng = random.Random(8)

def write(target, data):
    d = here / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)

# URL inputs: WPT urltestdata inputs, golden fixture inputs (unescaped), dataset lines.
urls = []
try:
    for case in json.loads((shared / "wpt/urltestdata.json").read_text()):
        if isinstance(case, dict):
            urls.append(case["input"])
except FileNotFoundError:
    print("no wpt/urltestdata.json under", shared, file=sys.stderr)

def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c); i += 1; continue
        n = s[i + 1]
        if n == "u":
            j = s.index("}", i)
            out.append(chr(int(s[i + 3:j], 16))); i = j + 1; continue
        out.append({"t": "\t", "n": "\n", "r": "\r"}.get(n, n)); i += 2
    return "".join(out)

for f in sorted((root / "crates/urlkey/tests/golden").glob("*.tsv")):
    for line in f.read_text().splitlines():
        if line and not line.startswith("#"):
            urls.append(unescape(line.split("\t", 1)[0]))

dataset = []
for f in sorted((shared / "datasets").rglob("*.txt")):
    dataset += [l for l in f.read_bytes().decode("utf-8", "replace").splitlines() if l]
# A sample of the datasets keeps the corpora small (a few MB at most).
urls += rng.sample(dataset, min(3000, len(dataset)))
urls = sorted(set(u for u in urls if len(u.encode("utf-8", "surrogatepass")) <= 4096))

for u in urls:
    write("policies", u)
    write("inspect", u)
    write("fast_path", u)

# Readers: byte 0 = format and limit, byte 1 = buffer size, byte 2 = batch size.
for i in range(300):
    chunk = rng.sample(urls, 5)
    fmt = i % 4
    if fmt == 0:
        body = "\n".join(chunk + ["", "# comment", "  "]) + ("\r\n" if i % 3 else "")
    elif fmt in (1, 2):
        sep = "," if fmt == 1 else "\t"
        body = "id" + sep + "url\n" + "".join(
            f"{n}{sep}\"{u.replace(chr(34), chr(34) * 2)}\"\n" for n, u in enumerate(chunk))
    else:
        body = "\n".join(json.dumps({"u": u}) for u in chunk) + "\n{\"u\":\"\\ud800\"}\n"
    head = bytes([fmt | ((i // 4) % 4) << 2 | (0x10 if i % 7 == 0 else 0), 1 + i % 200, i % 7])
    write("readers", head + body.encode("utf-8", "surrogatepass"))

# Policy files: the examples as text (mode byte 0) and random bytes for the generator.
for f in sorted((root / "crates/urlkey/tests/examples").glob("*.toml")):
    write("policy_file", b"\x00" + f.read_bytes())
for i in range(64):
    write("policy_file", b"\x01" + rng.randbytes(256))

# Ledger: the fixtures and CSV/JSONL bodies made of URL samples.
fix = root / "crates/urlkey-ledger/tests/fixtures"
for f in sorted(fix.glob("*.csv")) + sorted(fix.glob("*.jsonl")):
    mode = 0 if f.suffix == ".csv" else 2
    write("ledger_ingest", bytes([mode]) + f.read_bytes())
    write("ledger_ingest", bytes([mode | 3 << 2]) + f.read_bytes())
cols = "observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url"
for i in range(100):
    chunk = rng.sample(urls, 4)
    if i % 2:
        body = cols + "\n" + "".join(
            f"o{n},p,v1,sys,us,c,2026-11-01T00:00:00Z,\"{u.replace(chr(34), chr(34) * 2)}\"\n"
            for n, u in enumerate(chunk))
        mode = 0
    else:
        body = "".join(json.dumps({"observation_id": f"o{n}", "observed_url": u}) + "\n"
                       for n, u in enumerate(chunk))
        mode = 2 | 4 | 8
    write("ledger_ingest", bytes([mode]) + body.encode("utf-8", "surrogatepass"))

# Web API: byte 0 = endpoint, the rest is the JSON body.
for i, u in enumerate(rng.sample(urls, 300)):
    ep = i % 5
    if ep == 0:
        body = {"url": u, "policy": "webkey@1"}
    elif ep == 1:
        body = {"input": u}
    else:
        body = {"text": "\n".join(rng.sample(urls, 4))}
    write("serve_api", bytes([ep]) + json.dumps(body).encode())

for t in sorted(os.listdir(here / "corpus")):
    n = len(os.listdir(here / "corpus" / t))
    size = sum(p.stat().st_size for p in (here / "corpus" / t).iterdir())
    print(f"{t}: {n} seeds, {size // 1024} KiB")
PY
