"""Pixar's USD reads a clip-set bake: every attribute of every prim of the single-layer
bake of the same frames has, at every frame, the same value through the clips.

Usage: python3 clips_pxr.py CLIPS.usda SINGLE.usda FRAMES
Prints `compared N values`; exits 1 naming the first mismatch."""
import sys

from pxr import Usd

clips, single, frames = Usd.Stage.Open(sys.argv[1]), Usd.Stage.Open(sys.argv[2]), int(sys.argv[3])
assert clips.GetEndTimeCode() == single.GetEndTimeCode(), (clips.GetEndTimeCode(), single.GetEndTimeCode())
compared = 0
for prim in single.Traverse():
    other = clips.GetPrimAtPath(prim.GetPath())
    for attribute in prim.GetAttributes():
        theirs = other.GetAttribute(attribute.GetName())
        # A value held over the whole bake may be a constant default in a clip set.
        sampled = attribute.GetNumTimeSamples() > 1
        if sampled and theirs.GetNumTimeSamples() == 0:
            sys.exit(f"{prim.GetPath()}.{attribute.GetName()}: no samples through the clips")
        for t in range(frames + 1):
            if attribute.Get(t) != theirs.Get(t):
                sys.exit(f"{prim.GetPath()}.{attribute.GetName()} differs at time {t}")
            compared += 1
print(f"compared {compared} values")
