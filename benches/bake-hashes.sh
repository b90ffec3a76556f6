#!/usr/bin/env bash
# Bakes every scene of testdata/ and the six common benchmark scenes and prints one
# "sha256  name" line per bake, so that a change meant to keep behaviour (a refactor, a
# move) can be shown to keep the bytes: run it before and after and diff the two lists.
#
# Usage: benches/bake-hashes.sh [OUT.txt]        # print (and write) the list
#        benches/bake-hashes.sh --check OLD.txt  # bake again and diff against OLD.txt
#
# testdata scenes bake 48 frames to .usda, bench scenes 60 frames to .usdc, all with
# --threads 2 (results do not depend on it, but the issue fixed the flags). Every scene
# is copied into a scratch folder first (none names another file), so the lists of two
# checkouts in different places compare. A scene
# whose run fails (on purpose: bad input) is listed as "FAILED  name" with its exit code,
# so a change in what fails shows up too.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${USDSIM_BENCH_SCENES:-$here/../shared/bench-scenes}
check=""
if [ "${1:-}" = "--check" ]; then check=$2; shift 2; fi
# From the checkout: cargo reads .cargo/config.toml (the x86-64-v3 target) from the working
# directory, not from the manifest's, so building from elsewhere measured another binary.
(cd "$here" && cargo build --release --ignore-rust-version --quiet)
bin=$here/target/release/usdsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
list=$out/hashes.txt
bake() { # name input frames extension
  local name=$1 input=$2 frames=$3 ext=$4 rc=0
  mkdir -p "$out/$name"
  # The bake sublayers its input by a path relative to the output, so the input is
  # copied beside it: the bytes then depend neither on $out nor on the checkout's place.
  cp "$input" "$out/$name/scene.usda"
  "$bin" "$out/$name/scene.usda" --frames "$frames" --threads 2 --quiet -o "$out/$name/bake.$ext" || rc=$?
  if [ "$rc" = 0 ]; then
    printf '%s  %s\n' "$(sha256sum < "$out/$name/bake.$ext" | cut -d' ' -f1)" "$name" >> "$list"
  else
    printf 'FAILED(rc=%s)  %s\n' "$rc" "$name" >> "$list"
  fi
}
for scene in "$here"/testdata/*.usda; do
  case "$scene" in *.sim.usda) continue ;; esac
  bake "testdata/$(basename "$scene" .usda)" "$scene" 48 usda
done
for scene in "$bench"/cloth_32.usda "$bench"/cloth_64.usda "$bench"/cloth_128.usda \
             "$bench"/jelly_4.usda "$bench"/jelly_8.usda "$bench"/jelly_16.usda; do
  bake "bench/$(basename "$scene" .usda)" "$scene" 60 usdc
done
if [ -n "$check" ]; then
  diff -u "$check" "$list" && echo "all $(wc -l < "$list") bakes byte-identical"
else
  cat "$list"
  [ -z "${1:-}" ] || cp "$list" "$1"
fi
