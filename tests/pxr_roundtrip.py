"""Pixar's USD edits every kind of layer usdsim writes and saves it in place, with
nothing lost: what a user does with a bake in usdview, Houdini or a script.

Usage: python3 pxr_roundtrip.py MANIFEST.json

The manifest lists files (`{"files": [{"path": ..., "kind": ...}]}`). For each file,
each step in a fresh Python process so that no layer is served from Sdf's registry:
1. read it: `ExportToString()`, time range, sublayers and the usdsim fingerprint;
2. open it with `Sdf.Layer.FindOrOpen`, make three edits (the layer comment, a new
   attribute, a new time sample on `points` or, where the layer has none, on the first
   time-sampled attribute), and `Save()` in place; any Tf error fails the file;
3. reopen it and compare: its `ExportToString()` must be the first text with the same
   three edits applied in memory, and the time range, sublayers and fingerprint the same.

Prints one line per file and `N files, 0 failures`; exits 1 on any failure."""
import json
import shutil
import subprocess
import sys
import tempfile

FINGERPRINT = "usdsimFingerprint"
COMMENT = "edited and saved by Pixar's USD (pxr_roundtrip.py)"
NOTE = "pxrRoundTripNote"


def facts(layer):
    """What must survive any edit: the time range, sublayers and fingerprint."""
    root = layer.pseudoRoot
    return {
        "start": layer.startTimeCode if layer.HasStartTimeCode() else None,
        "end": layer.endTimeCode if layer.HasEndTimeCode() else None,
        "tcps": layer.timeCodesPerSecond if layer.HasTimeCodesPerSecond() else None,
        "sublayers": list(layer.subLayerPaths),
        "offsets": [(o.offset, o.scale) for o in layer.subLayerOffsets],
        "fingerprint": dict(layer.customLayerData).get(FINGERPRINT),
        "root_fields": sorted(root.ListInfoKeys()),
    }


def sampled_attribute(layer):
    """The path of the attribute the time-sample edit goes to: the first `points` with
    samples, else the first time-sampled attribute, else the first `points`."""
    from pxr import Sdf

    found = {"points": None, "any": None, "declared": None}

    def visit(path):
        if not path.IsPropertyPath():
            return
        spec = layer.GetAttributeAtPath(path)
        if spec is None:
            return
        sampled = layer.GetNumTimeSamplesForPath(path) > 0
        if spec.name == "points" and sampled and found["points"] is None:
            found["points"] = path
        if sampled and found["any"] is None:
            found["any"] = path
        if spec.name == "points" and found["declared"] is None:
            found["declared"] = path

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return found["points"] or found["any"] or found["declared"]


def first_prim(layer):
    children = layer.pseudoRoot.nameChildren
    return children[0] if len(children) else None


def edit(layer):
    """The three edits, in memory. Returns what was edited."""
    from pxr import Sdf, Vt

    done = ["comment"]
    layer.comment = COMMENT
    prim = first_prim(layer)
    if prim is not None:
        attr = Sdf.AttributeSpec(prim, NOTE, Sdf.ValueTypeNames.String)
        attr.default = "a new attribute"
        done.append(f"attribute {attr.path}")
    path = sampled_attribute(layer)
    if path is not None:
        times = layer.ListTimeSamplesForPath(path)
        if times:
            value = layer.QueryTimeSample(path, times[0])
            at = times[-1] + 0.5
        else:
            value = Vt.Vec3fArray([(0.0, 0.0, 0.0)])
            at = 0.5
        layer.SetTimeSample(path, at, value)
        done.append(f"sample {path}@{at}")
    return done


def step_read(path, out):
    from pxr import Sdf

    layer = Sdf.Layer.FindOrOpen(path)
    assert layer, f"cannot open {path}"
    json.dump({"text": layer.ExportToString(), "facts": facts(layer)}, open(out, "w"))


def step_edit_save(path, out):
    from pxr import Sdf, Tf

    mark = Tf.Error.Mark()
    layer = Sdf.Layer.FindOrOpen(path)
    assert layer, f"cannot open {path}"
    done = edit(layer)
    saved = layer.Save()
    errors = [e.commentary for e in mark.GetErrors()]
    json.dump({"saved": saved, "errors": errors, "edits": done}, open(out, "w"))


def step_expected(copy, out):
    """The untouched copy with the same edits made in memory, never saved."""
    from pxr import Sdf

    layer = Sdf.Layer.OpenAsAnonymous(copy)
    assert layer, f"cannot open {copy}"
    edit(layer)
    json.dump({"text": layer.ExportToString()}, open(out, "w"))


def run(step, path, scratch):
    out = f"{scratch}/{step}.json"
    proc = subprocess.run([sys.executable, __file__, "--step", step, path, out], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{step}: {proc.stderr.strip()}")
    return json.load(open(out)), proc.stderr


def check(entry):
    path, kind = entry["path"], entry["kind"]
    with tempfile.TemporaryDirectory() as scratch:
        copy = f"{scratch}/original{path[path.rindex('.'):]}"
        shutil.copyfile(path, copy)
        before, _ = run("read", path, scratch)
        saved, stderr = run("edit_save", path, scratch)
        if not saved["saved"] or saved["errors"] or "Failed verification" in stderr:
            return f"{kind}: {path}: Save() failed: {saved['errors']} {stderr.strip()}"
        after, _ = run("read", path, scratch)
        expected, _ = run("expected", copy, scratch)
    for key, value in before["facts"].items():
        want = value if key != "root_fields" else sorted(set(value) | {"comment"})
        if after["facts"][key] != want:
            return f"{kind}: {path}: {key} was {want}, after the save {after['facts'][key]}"
    if after["text"] != expected["text"]:
        a, b = expected["text"].splitlines(), after["text"].splitlines()
        line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        shown = lambda lines: lines[line] if line < len(lines) else "<end>"
        return f"{kind}: {path}: the saved layer differs at line {line + 1}: {shown(a)!r} became {shown(b)!r}"
    if len(saved["edits"]) < 2:
        return f"{kind}: {path}: only {saved['edits']} could be edited"
    print(f"ok {kind}: {path}: saved in place after {', '.join(saved['edits'])}; reopened, "
          f"{len(after['text'].splitlines())} lines of ExportToString identical but the edits; "
          f"range {after['facts']['start']}..{after['facts']['end']}, sublayers {after['facts']['sublayers']}, "
          f"fingerprint {after['facts']['fingerprint']}")
    return None


def main():
    if sys.argv[1] == "--step":
        step, path, out = sys.argv[2:5]
        {"read": step_read, "edit_save": step_edit_save, "expected": step_expected}[step](path, out)
        return
    files = json.load(open(sys.argv[1]))["files"]
    failures = []
    for entry in files:
        try:
            failure = check(entry)
        except RuntimeError as err:
            failure = f"{entry['kind']}: {entry['path']}: {str(err).strip().splitlines()[-1]}"
        if failure:
            failures.append(failure)
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{len(files)} files, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
