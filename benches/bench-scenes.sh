#!/usr/bin/env bash
# Runs the release CLI on the common benchmark scenes (../shared/bench-scenes by default)
# and prints a markdown table: sizes, median solver ms/frame and whole-process ms/frame
# over RUNS runs, and the final state (lowest point, centre of mass height) so a speed
# figure never hides a different answer.
#
# Usage: benches/bench-scenes.sh [SCENE_DIR] [FRAMES] [RUNS]
# Extra solver flags go in USDSIM_FLAGS, e.g. USDSIM_FLAGS="--substeps 20 --iterations 5".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/../shared/bench-scenes}
frames=${2:-60}
runs=${3:-3}
# From the checkout: cargo reads .cargo/config.toml (the x86-64-v3 target) from the working
# directory, not from the manifest's, so building from elsewhere measured another binary.
(cd "$here" && cargo build --release --ignore-rust-version --quiet)
bin=$here/target/release/usdsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| scene | vertices | elements | substeps x iterations | solver ms/frame (median of $runs) | process ms/frame | lowest z | centre z |"
echo "|---|---|---|---|---|---|---|---|"
for scene in "$dir"/cloth_32.usda "$dir"/cloth_64.usda "$dir"/cloth_128.usda "$dir"/jelly_4.usda "$dir"/jelly_8.usda "$dir"/jelly_16.usda; do
  [ -f "$scene" ] || continue
  name=$(basename "$scene" .usda)
  for r in $(seq "$runs"); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin" "$scene" --frames "$frames" --json -o "$out/$name.usdc" ${USDSIM_FLAGS:-} > "$out/$name.$r.json"
    end=$(date +%s.%N)
    echo "$start $end" > "$out/$name.$r.time"
  done
  python3 - "$out" "$name" "$runs" "$frames" <<'PY'
import json, statistics, sys
out, name, runs, frames = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
docs = [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, runs + 1)]
walls = []
for r in range(1, runs + 1):
    a, b = map(float, open(f"{out}/{name}.{r}.time").read().split())
    walls.append(1e3 * (b - a) / frames)
d = docs[0]
body = d["final"][0]
elements = d["tetrahedra"] + d["triangles"]
print(f"| {name} | {d['vertices']} | {elements} | {d['substeps']} x {d['iterations']} | "
      f"{statistics.median(x['ms_per_frame'] for x in docs):.1f} | {statistics.median(walls):.1f} | "
      f"{body['lowest']:.3f} | {body['centre_of_mass'][2]:.3f} |")
PY
done
