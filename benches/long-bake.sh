#!/usr/bin/env bash
# Long bakes: peak memory and export time over growing frame counts, to show that a
# streamed bake (value clips, --chunk) keeps memory flat and export linear in frames.
#
# Usage: benches/long-bake.sh [BENCH_SCENES_DIR] [FRAMES...]
#   default: ../shared/bench-scenes, 1000 10000 20000 frames of jelly_4, then
#   cloth_128 (16k points) over CLOTH_FRAMES (default "240 2400") frames with the default
#   chunk, then a 100k-point cloth (benches/big_cloth.py) over BIG_FRAMES (default 24)
#   frames in 8-frame chunks.
# Prints one line per bake: scene, frames, clips written, seconds simulate / export (from
# --report), peak resident memory (GNU time), total bytes written, files written.
# Run it on an idle machine and say what the machine was doing beside any figure.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-$here/../shared/bench-scenes}
shift || true
frames_list=("${@:-1000 10000 20000}")
read -r -a frames_list <<< "${frames_list[*]}"
# From the checkout: cargo reads .cargo/config.toml (the x86-64-v3 target) from the working
# directory, not from the manifest's, so building from elsewhere measured another binary.
(cd "$here" && cargo build --release --ignore-rust-version --quiet)
bin=$here/target/release/usdsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-10s %7s %6s %9s %9s %9s %10s %6s\n' scene frames clips sim_s export_s peak_MB bytes files
run() { # scene frames [extra args]
  local scene=$1 frames=$2; shift 2
  local dir=$out/$scene-$frames
  mkdir -p "$dir"
  if [ -f "$bench/$scene.usda" ]; then cp "$bench/$scene.usda" "$dir/scene.usda"; else python3 "$here/benches/big_cloth.py" "$dir/scene.usda"; fi
  /usr/bin/time -f '%M' -o "$dir/rss" "$bin" "$dir/scene.usda" --frames "$frames" -q \
    --report "$dir/report.json" -o "$dir/bake.usdc" "$@" > /dev/null
  python3 - "$dir" "$scene" "$frames" <<'PY'
import json, os, sys
d, scene, frames = sys.argv[1:]
r = json.load(open(os.path.join(d, "report.json")))
rss_kb = int(open(os.path.join(d, "rss")).read().split()[-1])
files = r["files"]
clips = [f for f in files if "/clip." in f]
print(f"{scene:<10} {frames:>7} {len(clips):>6} {r['seconds']['simulate']:9.2f} {r['seconds']['export']:9.2f} "
      f"{rss_kb / 1024:9.1f} {r['output_bytes']:10d} {len(files):6d}")
PY
  rm -rf "$dir"
}
for frames in "${frames_list[@]}"; do
  run jelly_4 "$frames" --chunk 500
done
for frames in ${CLOTH_FRAMES:-240 2400}; do
  run cloth_128 "$frames"
done
for frames in ${BIG_FRAMES:-24}; do
  run cloth_100k "$frames" --chunk 8
done
