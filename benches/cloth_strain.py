#!/usr/bin/env python3
"""Over-stretching of a bench cloth at usdsim's defaults against its converged reference
(issue 10): the 99th-percentile edge strain |e| / |e_rest| - 1 at one frame.

Runs `usdsim SCENE --frames F` at its defaults and at 100 substeps x 20 iterations (the
reference compare.py uses; cached under target/compare-cache by binary hash), reads both
bakes with Pixar's USD and prints both strains and their ratio. The goal is a ratio of at
most 2 on cloth_128 at frame 120.

Needs a release build and Python with usd-core and numpy.

usage: python3 benches/cloth_strain.py [--scene cloth_128] [--frames 120] [--threads 2]
           [--reference FILE] [--extra "--flags for the default run"]
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
ap.add_argument("--bench-scenes", default=os.path.join(ROOT, "..", "shared", "bench-scenes"))
ap.add_argument("--scene", default="cloth_128")
ap.add_argument("--frames", type=int, default=120)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reference", default="", help="an existing reference bake to use instead of running one")
ap.add_argument("--extra", default="")
ap.add_argument("--cache", default=os.path.join(ROOT, "target/compare-cache"))
a = ap.parse_args()
os.makedirs(a.cache, exist_ok=True)
scene = os.path.join(a.bench_scenes, a.scene + ".usda")


def bake(out, flags):
    cmd = [a.usdsim, scene, "--frames", str(a.frames), "--threads", str(a.threads), "-o", out, "--json"] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"usdsim failed: {' '.join(cmd)}: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout)


def p99_strain(path):
    stage = Usd.Stage.Open(path)
    mesh = stage.GetPrimAtPath("/World/Cloth")
    rest = np.array(mesh.GetAttribute("omniphysics:restShapePoints").Get(), dtype=float)
    pts = np.array(mesh.GetAttribute("points").Get(a.frames), dtype=float)
    idx = np.array(mesh.GetAttribute("faceVertexIndices").Get()).reshape(-1, 3)
    edges = np.unique(np.sort(np.concatenate([idx[:, [0, 1]], idx[:, [1, 2]], idx[:, [2, 0]]]), axis=1), axis=0)
    length = lambda p: np.linalg.norm(p[edges[:, 0]] - p[edges[:, 1]], axis=1)
    strain = length(pts) / length(rest) - 1.0
    return float(np.percentile(strain, 99)), float(strain.max())


tag = hashlib.sha1(open(a.usdsim, "rb").read()).hexdigest()[:12]
ref = a.reference or os.path.join(a.cache, f"strain_ref_{a.scene}_{a.frames}_{tag}.usdc")
if not os.path.exists(ref):
    bake(ref, ["--substeps", "100", "--iterations", "20"])
out = os.path.join(a.cache, f"strain_{a.scene}.usdc")
run = bake(out, a.extra.split())
(p_def, m_def), (p_ref, m_ref) = p99_strain(out), p99_strain(ref)
print(f"{a.scene} frame {a.frames}: defaults ({run['substeps']} substeps x {run['iterations']} iterations, "
      f"{run['ms_per_frame']:.1f} ms/frame) p99 strain {p_def:.4f} (max {m_def:.4f}); "
      f"reference 100 x 20 p99 {p_ref:.4f} (max {m_ref:.4f}); ratio {p_def / p_ref:.2f}")
