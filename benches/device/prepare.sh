#!/usr/bin/env bash
# Build the release binaries here and strip them into .dev/ (ignored through .git/info/exclude),
# so that `benches/device/check.sh` can run them on a lent GPU machine, which has no Rust.
set -euo pipefail
cargo build --release -p grains-cli
mkdir -p .dev
strip -o .dev/grains target/release/grains
for t in $(cargo test --release --workspace --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("executable") and m["target"]["name"] in ("all", "grains_gpu"):
        print(m["target"]["name"] + ":" + m["executable"])'); do
    strip -o ".dev/${t%%:*}" "${t#*:}"
done
ls -la .dev
