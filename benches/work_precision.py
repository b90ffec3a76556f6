#!/usr/bin/env python3
"""Work-precision curves: usdsim's cost (ms/frame) against its self-convergence error over a
sweep of (substeps, iterations), with the rapier peer's default and converged points.

The error is the one `../shared/peers/compare.py` uses: the RMS distance, at the last frame,
of a run from the same solver's reference run at 100 substeps x 20 iterations. The cheapest
setting at a given error is what the defaults should be chosen from (Macklin et al., "Small
Steps in Physics Simulation", 2019: more substeps and fewer iterations).

Needs: a release build (`cargo build --release --ignore-rust-version`), the peer built as its
README says, Python with usd-core, numpy and (for --plot) matplotlib. Runs one process at a
time; run it on an otherwise idle machine and say so next to any figure.

usage: python3 benches/work_precision.py [--scenes cloth_32,cloth_64,jelly_8]
           [--frames 40] [--threads 2] [--substeps 5,10,20] [--iterations 2,4,10]
           [--rounds 3] [--json target/work-precision.json] [--plot docs/img/work-precision.png]
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
from pxr import Usd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ap = argparse.ArgumentParser()
ap.add_argument("--usdsim", default=os.path.join(ROOT, "target/release/usdsim"))
ap.add_argument("--peer", default=os.path.join(ROOT, "target/peer-rapier/release/peer_rapier"))
ap.add_argument("--bench-scenes", default=os.path.join(ROOT, "..", "shared", "bench-scenes"))
ap.add_argument("--scenes", default="cloth_32,cloth_64,jelly_8")
ap.add_argument("--frames", type=int, default=40)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--substeps", default="5,10,20")
ap.add_argument("--iterations", default="2,4,10")
ap.add_argument("--rounds", type=int, default=1, help="runs per point; the fastest counts (the machine is noisy)")
ap.add_argument("--extra", default="", help="more usdsim flags for every sweep point, e.g. --self-contact")
ap.add_argument("--cache", default=os.path.join(ROOT, "target/compare-cache"))
ap.add_argument("--json", default=os.path.join(ROOT, "target/work-precision.json"))
ap.add_argument("--plot", default="")
a = ap.parse_args()
os.makedirs(a.cache, exist_ok=True)


def tag(path):
    return hashlib.sha1(open(path, "rb").read()).hexdigest()[:12]


def usdsim(scene, out, flags, rounds=1):
    """The fastest of `rounds` runs: ms/frame and the substeps used."""
    runs = [usdsim_once(scene, out, flags) for _ in range(rounds)]
    return min(r[0] for r in runs), runs[0][1]


def usdsim_once(scene, out, flags):
    cmd = [a.usdsim, scene, "--frames", str(a.frames), "--threads", str(a.threads), "-o", out, "--json"] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"usdsim failed: {' '.join(cmd)}: {r.stderr.strip()[-300:]}")
    j = json.loads(r.stdout)
    return j["ms_per_frame"], j.get("substeps")


def peer(scene, dump, flags, rounds=1):
    """The fastest of `rounds` runs' ms/frame."""
    return min(peer_once(scene, dump, flags) for _ in range(rounds))


def peer_once(scene, dump, flags):
    cmd = [a.peer, scene, "--frames", str(a.frames), "--threads", str(a.threads), "--dump", dump] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"peer failed: {' '.join(cmd)}: {r.stderr.strip()[-300:]}")
    kv = dict(x.split("=", 1) for x in r.stdout.split() if "=" in x)
    return float(kv["ms_per_frame"])


def points(path, prim):
    if path.endswith(".txt"):
        return np.loadtxt(path)
    stage = Usd.Stage.Open(path)
    return np.array(stage.GetPrimAtPath(prim).GetAttribute("points").Get(a.frames), dtype=float)


def rms(x, y):
    return float(np.sqrt((np.linalg.norm(x - y, axis=1) ** 2).mean()))


utag = tag(a.usdsim)
results = {"frames": a.frames, "threads": a.threads, "extra": a.extra, "scenes": {}}
print(f"frames={a.frames} threads={a.threads} rounds={a.rounds} extra='{a.extra}'")
print("| scene | solver | substeps x iterations | ms/frame | self-error (mm) |")
print("|---|---|---|---|---|")
for name in a.scenes.split(","):
    scene = os.path.join(a.bench_scenes, name + ".usda")
    prim = "/World/Cloth" if name.startswith("cloth") else "/World/Jelly"
    # The same reference files compare.py caches, so both scripts agree on the error.
    uref = os.path.join(a.cache, f"usdsim_ref_{name}_{a.frames}_{utag}.usdc")
    pref = os.path.join(a.cache, f"peer_ref_{name}_{a.frames}.txt")
    if not os.path.exists(uref):
        usdsim(scene, uref, ["--substeps", "100", "--iterations", "20"])
    if not os.path.exists(pref):
        peer(scene, pref, ["--substeps", "100", "--iterations", "20"])
    ref_u, ref_p = points(uref, prim), points(pref, prim)
    rows = []
    out = os.path.join(a.cache, f"wp_{name}.usdc")
    for s in [int(x) for x in a.substeps.split(",")]:
        for i in [int(x) for x in a.iterations.split(",")]:
            ms, used = usdsim(scene, out, ["--substeps", str(s), "--iterations", str(i)] + a.extra.split(), a.rounds)
            err = rms(points(out, prim), ref_u)
            rows.append({"substeps": s, "substeps_used": used, "iterations": i, "ms": ms, "error_mm": err * 1000})
            print(f"| {name} | usdsim | {s} x {i} | {ms:.1f} | {err * 1000:.2f} |", flush=True)
    ms_default, _ = usdsim(scene, out, a.extra.split(), a.rounds)
    err_default = rms(points(out, prim), ref_u)
    print(f"| {name} | usdsim default | | {ms_default:.1f} | {err_default * 1000:.2f} |", flush=True)
    dump = os.path.join(a.cache, f"wp_peer_{name}.txt")
    pms = peer(scene, dump, [], a.rounds)
    perr = rms(points(dump, prim), ref_p)
    print(f"| {name} | rapier default | 10 x 4 | {pms:.1f} | {perr * 1000:.2f} |", flush=True)
    results["scenes"][name] = {
        "usdsim": rows,
        "usdsim_default": {"ms": ms_default, "error_mm": err_default * 1000},
        "peer_default": {"ms": pms, "error_mm": perr * 1000},
    }

os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
with open(a.json, "w") as f:
    json.dump(results, f, indent=1)

if a.plot:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results["scenes"])
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4.2), squeeze=False)
    for ax, name in zip(axes[0], names):
        r = results["scenes"][name]
        for i in sorted({row["iterations"] for row in r["usdsim"]}):
            pts = sorted((row["error_mm"], row["ms"], row["substeps"]) for row in r["usdsim"] if row["iterations"] == i)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"usdsim, {i} iterations")
            for e, ms, s in pts:
                ax.annotate(f"{s}", (e, ms), textcoords="offset points", xytext=(3, 3), fontsize=7)
        d = r["usdsim_default"]
        ax.plot([d["error_mm"]], [d["ms"]], "k*", markersize=12, label="usdsim default")
        p = r["peer_default"]
        ax.plot([p["error_mm"]], [p["ms"]], "rs", markersize=9, label="rapier 0.36 default")
        ax.axhline(p["ms"] / 2, color="r", lw=0.8, ls="--", label="half the peer's time")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("self-convergence error at the last frame (mm)")
        ax.set_ylabel("ms per frame")
        ax.set_title(f"{name}, {a.frames} frames, {a.threads} threads")
        ax.grid(True, which="both", lw=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.plot)), exist_ok=True)
    fig.savefig(a.plot, dpi=110)
    print(f"wrote {a.plot}")
