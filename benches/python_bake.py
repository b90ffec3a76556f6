#!/usr/bin/env python3
"""The Python module's overhead, side by side with the command (issue 44).

1. A 48-frame bake of the bench cloth_64 by ``usdsim.bake`` against the ``usdsim``
   command on the same file, settings and threads, alternating, several rounds: the
   ratio of their median wall times (the command's includes starting its process).
2. ``Simulation.points`` and ``velocities`` on a 100,489-point cloth
   (``benches/big_cloth.py``): the cost of one call, best and median of many.

Run with the Python that has the wheel installed (``target/py-venv`` after the tests)
and a release command built from the same sources::

    cargo build --release --ignore-rust-version --target-dir target/py --bin usdsim
    target/py-venv/bin/python benches/python_bake.py --cli target/py/release/usdsim

Nothing else should run on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import usdsim

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=str(ROOT / "target" / "py" / "release" / "usdsim"))
    parser.add_argument("--scene", default=str(ROOT.parent / "shared" / "bench-scenes" / "cloth_64.usda"))
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()

    work = pathlib.Path(tempfile.mkdtemp(prefix="usdsim-pybench-"))
    cli_s, py_s = [], []
    for round_ in range(args.rounds):
        out_cli, out_py = work / "cli.usdc", work / "py.usdc"
        t = time.perf_counter()
        subprocess.run(
            [args.cli, args.scene, "-o", str(out_cli), "--frames", str(args.frames), "-q", "-j", str(args.threads)],
            check=True,
        )
        cli_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        usdsim.bake(args.scene, out_py, args.frames, threads=args.threads)
        py_s.append(time.perf_counter() - t)
        same = out_cli.read_bytes() == out_py.read_bytes()
        print(f"round {round_ + 1}: command {cli_s[-1]:.3f} s, Python {py_s[-1]:.3f} s, identical bytes: {same}")
    c, p = statistics.median(cli_s), statistics.median(py_s)
    print(
        f"bake of {pathlib.Path(args.scene).name}, {args.frames} frames, {args.threads} threads: "
        f"median command {c:.3f} s (best {min(cli_s):.3f}), Python {p:.3f} s (best {min(py_s):.3f}); "
        f"Python / command = {p / c:.3f} (best against best {min(py_s) / min(cli_s):.3f})"
    )

    big = work / "big_cloth.usda"
    subprocess.run([sys.executable, str(ROOT / "benches" / "big_cloth.py"), str(big)], check=True)
    sim = usdsim.Simulation(big, threads=args.threads)
    (body,) = sim.bodies
    sim.step()
    for name in ("points", "velocities"):
        call = getattr(sim, name)
        times = []
        for _ in range(args.calls):
            t = time.perf_counter()
            array = call(body)
            times.append(time.perf_counter() - t)
        print(
            f"{name}() on {array.shape[0]:,} points ({array.nbytes / 1e6:.1f} MB float32): "
            f"median {1e6 * statistics.median(times):.0f} µs, best {1e6 * min(times):.0f} µs over {args.calls} calls"
        )
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
