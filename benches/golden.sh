#!/usr/bin/env bash
# MONWRITE md5s of the reference runs: an engine change that must not change
# results (a refactor, a speed change) prints the same table before and after.
#
#   benches/golden.sh [BINARY]     # BINARY: a build of examples/monwrite.rs
#                                  # (default: cargo build --release --example monwrite)
#
# Runs, seed 1 each: S1 (studies/paging-single-thread.toml), S2 before for 1 h,
# S2 after, S3, and benches/scenarios s1-peer, s2-like, resident-touch and
# large-lpar (180 s). Set GOLDEN_QUICK=1 to leave out s2-like (3 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [[ -z $bin ]]; then
    cargo build --release --quiet -p ztwin-engine --example monwrite
    bin=target/release/examples/monwrite
fi
out=$(mktemp -d /tmp/golden.XXXXXX)
trap 'rm -rf "$out"' EXIT
runs=(
    "s1 studies/paging-single-thread.toml"
    "s2-before-1h studies/undersized-lpar-before.toml --duration 3600"
    "s2-after studies/undersized-lpar-after.toml"
    "s3 studies/healthy-system.toml"
    "s1-peer benches/scenarios/s1-peer.toml"
    "s2-like benches/scenarios/s2-like.toml"
    "resident-touch benches/scenarios/resident-touch.toml"
    "large-lpar-180s benches/scenarios/large-lpar.toml --duration 180"
)
for r in "${runs[@]}"; do
    set -- $r
    name=$1 scen=$2
    shift 2
    if [[ -n ${GOLDEN_QUICK:-} && $name == s2-like ]]; then
        continue
    fi
    "$bin" "$scen" "$out/$name.monwrite" --seed 1 "$@" 2>"$out/$name.log"
    printf '%-16s %s  %s\n' "$name" "$(md5sum <"$out/$name.monwrite" | cut -c1-32)" \
        "$(sed -n 's/.*: wall \([0-9.]* s\).*/\1/p' "$out/$name.log")"
done
