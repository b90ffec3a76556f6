#!/bin/sh
# Rebuilds the broken clip sets in this folder from a short streamed bake of
# ../free_fall_z_up_meters.usda (12 frames in 4-frame clips), each broken one way:
#   truncated_clip/     clip.000004.usdc cut to half its bytes
#   missing_clip/       clip.000008.usdc deleted
#   foreign_clip/       clip.000004.usdc taken from a bake with other settings (--substeps 20)
#   manifest_mismatch/  manifest.usdc from a bake that also samples a second body
# Usage: sh testdata/broken/make.sh [path to usdsim]
set -e
here=$(cd "$(dirname "$0")" && pwd)
usdsim=${1:-usdsim}
scene="$here/../free_fall_z_up_meters.usda"
for case in truncated_clip missing_clip foreign_clip manifest_mismatch; do
    rm -rf "$here/$case"
    mkdir -p "$here/$case"
    "$usdsim" "$scene" -q --frames 12 --chunk 4 -o "$here/$case/bake.usda" >/dev/null
done
clip=truncated_clip/bake.clips/clip.000004.usdc
size=$(wc -c < "$here/$clip")
head -c $((size / 2)) "$here/$clip" > "$here/$clip.half" && mv "$here/$clip.half" "$here/$clip"
rm "$here/missing_clip/bake.clips/clip.000008.usdc"
tmp=$(mktemp -d)
"$usdsim" "$scene" -q --frames 12 --chunk 4 --substeps 20 -o "$tmp/bake.usda" >/dev/null
cp "$tmp/bake.clips/clip.000004.usdc" "$here/foreign_clip/bake.clips/clip.000004.usdc"
# A manifest declaring an attribute no clip samples (Pixar's USD writes it afresh).
python3 - "$here/manifest_mismatch/bake.clips/manifest.usdc" "$tmp/manifest.usdc" <<'PY'
import sys
from pxr import Sdf
layer = Sdf.Layer.FindOrOpen(sys.argv[1])
prim = layer.GetPrimAtPath("/World/Tet")
Sdf.AttributeSpec(prim, "accelerations", Sdf.ValueTypeNames.Float3Array)
layer.Export(sys.argv[2])
PY
mv "$tmp/manifest.usdc" "$here/manifest_mismatch/bake.clips/manifest.usdc"
rm -rf "$tmp"
# The validator's example files (testdata/invalid/DB70x_*.usda): the broken bakes' own
# layers, their paths rewritten to reach the clips from there.
for pair in DB701_missing_clip:missing_clip DB702_foreign_clip:foreign_clip DB703_manifest_mismatch:manifest_mismatch; do
    name=${pair%%:*}; case=${pair#*:}
    sed -e "s#@../../free_fall_z_up_meters.usda@#@../free_fall_z_up_meters.usda@#" \
        -e "s#@./bake.clips/#@../broken/$case/bake.clips/#g" \
        "$here/$case/bake.usda" > "$here/../invalid/$name.usda"
done
