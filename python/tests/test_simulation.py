"""``usdsim.Simulation``: stepping in process against the bake, kinematic targets from Python."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import threading
from typing import Tuple

import numpy as np
import pytest
from pxr import Sdf, Usd, UsdGeom

import usdsim
from conftest import TESTDATA, run_cli


def baked_world_points(stage: Usd.Stage, path: str, frame: float) -> np.ndarray:
    """A bake's ``points`` of ``path`` at ``frame``, in world space."""
    prim = stage.GetPrimAtPath(path)
    local = np.array(prim.GetAttribute("points").Get(frame), dtype=np.float64)
    m = np.array(UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(frame), dtype=np.float64)
    return local @ m[:3, :3] + m[3, :3]


def test_stepping_48_frames_gives_the_bakes_points_and_saves_the_bake(cli, tmp_path):
    scene = tmp_path / "cloth_on_sphere.usda"
    shutil.copy(TESTDATA / "cloth_on_sphere.usda", scene)
    by_cli = tmp_path / "cli.usda"
    done = run_cli(cli, scene, "-o", by_cli, "--frames", 48, "-q")
    assert done.returncode == 0, done.stderr
    baked = Usd.Stage.Open(str(by_cli))

    sim = usdsim.Simulation(scene)
    assert sim.bodies == ["/World/Cloth"] and sim.frame == 0 and sim.time == 0.0
    for frame in range(1, 49):
        sim.step()
        points = sim.points("/World/Cloth")
        assert points.dtype == np.float32 and points.shape[1] == 3
        expected = baked_world_points(baked, "/World/Cloth", frame)
        np.testing.assert_allclose(points, expected, rtol=0, atol=1e-5)
    assert sim.frame == 48 and sim.time == pytest.approx(48 / baked.GetTimeCodesPerSecond())
    # The cloth fell: not a bake that holds still.
    assert sim.points("/World/Cloth")[:, 2].max() < baked_world_points(baked, "/World/Cloth", 0)[:, 2].max() - 0.1
    saved = tmp_path / "saved.usda"
    sim.save(saved)
    assert saved.read_bytes() == by_cli.read_bytes()


def cube_scene(tmp_path: pathlib.Path) -> Tuple[pathlib.Path, str]:
    """The tet cube made kinematic (``omniphysics:kinematicEnabled``), with no animation."""
    scene = tmp_path / "kinematic_cube.usda"
    shutil.copy(TESTDATA / "tet_cube_on_ground.usda", scene)
    stage = Usd.Stage.Open(str(scene))
    body = next(p for p in stage.Traverse() if p.GetTypeName() == "TetMesh")
    body.CreateAttribute("omniphysics:kinematicEnabled", Sdf.ValueTypeNames.Bool).Set(True)
    stage.GetRootLayer().Save()
    return scene, str(body.GetPath())


def test_a_kinematic_target_set_from_python_moves_the_body(tmp_path):
    scene, path = cube_scene(tmp_path)
    sim = usdsim.Simulation(scene)
    start = sim.points(path)
    sim.step(2)
    np.testing.assert_array_equal(sim.points(path), start)  # kinematic: holds still without a target
    lift = np.array([0.0, 0.0, 0.25], dtype=np.float32)
    sim.set_kinematic_target(path, start + lift)
    sim.step()
    np.testing.assert_allclose(sim.points(path), start + lift, atol=1e-6)
    fps = 1.0 / (sim.time / sim.frame)
    np.testing.assert_allclose(sim.velocities(path), np.tile(lift * fps, (len(start), 1)), rtol=1e-4, atol=1e-4)
    sim.step()  # held at the latest target
    np.testing.assert_allclose(sim.points(path), start + lift, atol=1e-6)
    saved = tmp_path / "driven.usda"
    sim.save(saved)
    stage = Usd.Stage.Open(str(saved))
    np.testing.assert_allclose(baked_world_points(stage, path, 3), start + lift, atol=1e-5)


def test_kinematic_targets_take_float64_arrays_and_lists(tmp_path):
    scene, path = cube_scene(tmp_path)
    sim = usdsim.Simulation(scene)
    start = sim.points(path).astype(np.float64)
    sim.set_kinematic_target(path, start + [0.0, 0.1, 0.0])  # float64, converted once
    sim.step()
    np.testing.assert_allclose(sim.points(path), start + [0.0, 0.1, 0.0], atol=1e-6)
    sim.set_kinematic_target(path, (start + [0.0, 0.2, 0.0]).tolist())  # nested lists
    sim.step()
    np.testing.assert_allclose(sim.points(path), start + [0.0, 0.2, 0.0], atol=1e-6)
    with pytest.raises(ValueError, match=path):
        sim.set_kinematic_target(path, start[:, 0])  # one-dimensional
    with pytest.raises(ValueError, match=path):
        sim.set_kinematic_target(path, [["a", "b", "c"]] * len(start))


def test_bad_targets_and_paths_are_refused_with_their_names(tmp_path):
    scene, path = cube_scene(tmp_path)
    sim = usdsim.Simulation(scene)
    with pytest.raises(KeyError, match="/World/Nowhere"):
        sim.points("/World/Nowhere")
    with pytest.raises(ValueError, match=path):
        sim.set_kinematic_target(path, np.zeros((3, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        sim.set_kinematic_target(path, np.zeros((4, 2), dtype=np.float32))
    cloth = usdsim.Simulation(TESTDATA / "cloth_on_sphere.usda")
    with pytest.raises(ValueError, match="kinematic"):
        cloth.set_kinematic_target("/World/Cloth", cloth.points("/World/Cloth"))
    with pytest.raises(usdsim.OutputError):
        cloth.save(TESTDATA / "cloth_on_sphere.usda")


def test_ctrl_c_while_stepping_raises_keyboard_interrupt_and_keeps_the_frames(tmp_path):
    sim = usdsim.Simulation(TESTDATA / "cloth_on_sphere.usda")
    sim.step()
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        sim.step(100_000)
    kept = sim.frame
    assert 1 < kept < 100_000
    saved = tmp_path / "kept.usda"
    sim.save(saved)
    assert Usd.Stage.Open(str(saved)).GetEndTimeCode() == kept
    sim.step()  # still usable
    assert sim.frame == kept + 1


def test_points_are_a_copy_the_next_step_does_not_change(tmp_path):
    sim = usdsim.Simulation(TESTDATA / "cloth_on_sphere.usda")
    before = sim.points("/World/Cloth")
    kept = before.copy()
    sim.step(3)
    np.testing.assert_array_equal(before, kept)
    assert not np.array_equal(sim.points("/World/Cloth"), kept)
