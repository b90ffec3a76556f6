#!/usr/bin/env python3
"""Checks usdsim's baked layers with Pixar's USD (usd-core): the reference reader.

Usage: python3 tests/pxr_interop.py MANIFEST.json

The manifest is written by tests/pxr_interop.rs after it ran usdsim. It lists the
outputs and, for each body prim, what openusd read back from them: the sample times,
the point count and every point value. This script reads the same files with Pixar's
USD and checks that it sees exactly the same thing, that `points` is a schema attribute
(not custom), that the sublayer resolves so the composed stage holds every prim of the
input, and that the authored extents agree with UsdGeom's own computation.

Exits 0 when every check passes, 1 with one line per failure otherwise.
"""

import json
import os
import sys

from pxr import Tf, Usd, UsdGeom

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def prim_types(stage):
    """Path -> type name of every prim the default traversal visits."""
    return {str(p.GetPath()): p.GetTypeName() for p in stage.Traverse()}


def check_output(entry):
    path = entry["path"]
    name = os.path.basename(path)
    mark = Tf.Error.Mark()
    stage = Usd.Stage.Open(path)
    if not check(stage is not None, f"{name}: Pixar's USD cannot open it"):
        return
    check(mark.IsClean(), f"{name}: errors while opening: {[e.commentary for e in mark.GetErrors()]}")

    layer = stage.GetRootLayer()
    check(layer.GetFileFormat().formatId == entry["format"], f"{name}: format {layer.GetFileFormat().formatId}, expected {entry['format']}")
    sublayers = list(layer.subLayerPaths)
    check(sublayers == [entry["sublayer"]], f"{name}: subLayerPaths {sublayers}, expected [{entry['sublayer']!r}]")
    input_path = os.path.realpath(entry["input"])
    resolved = [os.path.realpath(l.realPath) for l in stage.GetLayerStack(includeSessionLayers=False)[1:]]
    check(input_path in resolved, f"{name}: the sublayer does not resolve to {input_path}; layer stack {resolved}")

    check(stage.GetStartTimeCode() == entry["start"], f"{name}: startTimeCode {stage.GetStartTimeCode()}")
    check(stage.GetEndTimeCode() == entry["end"], f"{name}: endTimeCode {stage.GetEndTimeCode()}")
    check(stage.GetTimeCodesPerSecond() == entry["tcps"], f"{name}: timeCodesPerSecond {stage.GetTimeCodesPerSecond()}")
    check(UsdGeom.GetStageUpAxis(stage) == entry["up_axis"], f"{name}: upAxis {UsdGeom.GetStageUpAxis(stage)}")

    # Composition: the bake alone shows the whole input scene, with the same types.
    source = prim_types(Usd.Stage.Open(input_path))
    composed = prim_types(stage)
    for prim_path, type_name in source.items():
        check(composed.get(prim_path) == type_name, f"{name}: input prim {prim_path} ({type_name}) composes as {composed.get(prim_path)!r}")

    for prim_path, body in entry["bodies"].items():
        prim = stage.GetPrimAtPath(prim_path)
        if not check(prim.IsValid(), f"{name}: no prim {prim_path}"):
            continue
        where = f"{name}: {prim_path}"
        points = UsdGeom.PointBased(prim).GetPointsAttr()
        # The spec in the bake itself: the composed IsCustom() answers from the schema
        # definition for a built-in attribute and would hide a `custom` spec.
        spec = layer.GetAttributeAtPath(f"{prim_path}.points")
        check(spec is not None and not spec.custom, f"{where}.points is authored as custom; it must be the schema attribute")
        check(not points.IsCustom(), f"{where}.points is custom on the composed stage")
        times = body["times"]
        for attr_name in ("points", "velocities", "extent"):
            attr = prim.GetAttribute(attr_name)
            got = list(attr.GetTimeSamples())
            check(got == times, f"{where}.{attr_name}: samples at {got}, expected {times}")
        for k, time in enumerate(times):
            value = points.Get(time)
            if not check(value is not None and len(value) == body["count"], f"{where}.points at {time}: {0 if value is None else len(value)} points, expected {body['count']}"):
                continue
            expected = body["points"][k]
            mismatches = [i for i, (p, q) in enumerate(zip(value, expected)) if tuple(p) != tuple(q)]
            check(not mismatches, f"{where}.points at {time}: {len(mismatches)} points differ from openusd's reading, first {mismatches[:1]}")
            velocities = prim.GetAttribute("velocities").Get(time)
            check(velocities is not None and len(velocities) == body["count"], f"{where}.velocities at {time}: wrong count")
            extent = prim.GetAttribute("extent").Get(time)
            computed = UsdGeom.PointBased.ComputeExtent(value)
            check(extent is not None and list(extent) == list(computed), f"{where}.extent at {time}: {extent}, UsdGeom computes {computed}")
        if body.get("frame0_is_input"):
            input_stage = Usd.Stage.Open(input_path)  # held: prims expire with their stage
            rest = input_stage.GetPrimAtPath(prim_path).GetAttribute("points").Get()
            first = points.Get(times[0])
            check(list(rest) == list(first), f"{where}: frame 0 differs from the input's points")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    for entry in manifest["outputs"]:
        check_output(entry)
    # Text and binary bakes of the same run must hold the same numbers.
    for a, b in manifest.get("same_values", []):
        sa, sb = Usd.Stage.Open(a), Usd.Stage.Open(b)
        for prim in sa.Traverse():
            attr = prim.GetAttribute("points")
            if not attr or not attr.GetNumTimeSamples():
                continue
            other = sb.GetPrimAtPath(prim.GetPath()).GetAttribute("points")
            for t in attr.GetTimeSamples():
                check(list(attr.Get(t)) == list(other.Get(t)), f"{os.path.basename(a)} vs {os.path.basename(b)}: {prim.GetPath()}.points differ at {t}")
    for failure in failures:
        print("FAIL:", failure)
    checked = sum(len(e["bodies"]) for e in manifest["outputs"])
    print(f"pxr {Usd.GetVersion()}: {len(manifest['outputs'])} outputs, {checked} bodies, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
