"""``usdsim.bake`` against the ``usdsim`` command, and its progress, interrupt and errors."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import threading

import pytest
from pxr import Usd

import usdsim
from conftest import TESTDATA, run_cli

SCENE = TESTDATA / "cloth_on_sphere.usda"


def copy_scene(tmp_path: pathlib.Path, name: str = "cloth_on_sphere.usda") -> pathlib.Path:
    scene = tmp_path / name
    shutil.copy(TESTDATA / name, scene)
    return scene


def test_bake_writes_the_commands_bytes(cli, tmp_path):
    scene = copy_scene(tmp_path)
    by_cli, by_python = tmp_path / "cli.usda", tmp_path / "python.usda"
    done = run_cli(cli, scene, "-o", by_cli, "--frames", 12, "-q")
    assert done.returncode == 0, done.stderr
    report = usdsim.bake(scene, by_python, 12)
    assert by_cli.read_bytes() == by_python.read_bytes()
    assert report.output == str(by_python) and report.files == [str(by_python)]
    assert report.frames == 12 and report.json["ok"] is True
    assert report.json["bodies"] == 1 and report.ms_per_frame > 0


def test_bake_settings_are_the_commands_options(cli, tmp_path):
    scene = copy_scene(tmp_path)
    by_cli, by_python = tmp_path / "cli.usdc", tmp_path / "python.usdc"
    options = ["--substeps", 12, "--iterations", 3, "--time-scheme", "euler", "--self-contact", "-j", 1]
    done = run_cli(cli, scene, "-o", by_cli, "--frames", 6, "-q", *options)
    assert done.returncode == 0, done.stderr
    report = usdsim.bake(
        scene, by_python, 6, substeps=12, iterations=3, time_scheme="euler", self_contact=True, threads=1
    )
    assert by_cli.read_bytes() == by_python.read_bytes()
    assert (report.json["substeps"], report.json["iterations"], report.json["threads"]) == (12, 3, 1)


def test_the_progress_callback_is_called_once_per_frame(tmp_path):
    scene = copy_scene(tmp_path)
    calls = []
    usdsim.bake(scene, tmp_path / "out.usda", 7, progress=lambda frame, frames: calls.append((frame, frames)))
    assert calls == [(k, 7) for k in range(1, 8)]


def end_time(path: pathlib.Path) -> float:
    stage = Usd.Stage.Open(str(path))
    assert stage, path
    return stage.GetEndTimeCode()


def test_ctrl_c_stops_after_the_frame_and_keeps_the_frames(tmp_path):
    scene = copy_scene(tmp_path)
    out = tmp_path / "out.usda"
    seen = []

    def progress(frame, frames):
        seen.append(frame)
        if frame == 3:
            # Ctrl-C as the terminal sends it: SIGINT to this process, while Rust runs.
            threading.Timer(0.0, os.kill, (os.getpid(), signal.SIGINT)).start()

    with pytest.raises(KeyboardInterrupt):
        usdsim.bake(scene, out, 200, progress=progress)
    assert 3 <= seen[-1] < 200
    # The output is playable and ends at the last frame the bake finished.
    assert end_time(out) == seen[-1]
    stage = Usd.Stage.Open(str(out))
    points = stage.GetPrimAtPath("/World/Cloth").GetAttribute("points")
    assert points.Get(seen[-1]) is not None


def test_an_exception_in_the_callback_stops_the_bake_and_is_raised(tmp_path):
    scene = copy_scene(tmp_path)
    out = tmp_path / "out.usda"

    def progress(frame, frames):
        if frame == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        usdsim.bake(scene, out, 50, progress=progress)
    assert end_time(out) == 2


def test_bad_input_raises_input_error_naming_file_prim_and_attribute(tmp_path):
    bad = TESTDATA / "invalid" / "DB304_negative_density.usda"
    with pytest.raises(usdsim.InputError) as caught:
        usdsim.bake(bad, tmp_path / "out.usda", 2)
    err = caught.value
    assert (err.code, err.prim, err.attribute, err.exit_code) == ("DB304", "/World/Jelly", "omniphysics:density", 1)
    assert err.file.endswith("DB304_negative_density.usda") and "non-negative" in str(err)
    assert not (tmp_path / "out.usda").exists()
    with pytest.raises(usdsim.InputError) as caught:
        usdsim.bake(tmp_path / "missing.usda", tmp_path / "out.usda", 2)
    assert caught.value.code == "unreadable"


def test_bad_settings_raise_usage_error(tmp_path):
    scene = copy_scene(tmp_path)
    with pytest.raises(usdsim.UsageError) as caught:
        usdsim.bake(scene, tmp_path / "out.usda", 2, substeps=0)
    assert caught.value.exit_code == 2 and "substeps" in str(caught.value)
    with pytest.raises(usdsim.UsageError, match="no_such_setting|no-such-setting"):
        usdsim.bake(scene, tmp_path / "out.usda", 2, no_such_setting=1)
    with pytest.raises(usdsim.UsageError, match="/World/Nowhere"):
        usdsim.bake(scene, tmp_path / "out.usda", 2, set=["/World/Nowhere.omniphysics:density=1"])


def test_an_unwritable_output_raises_output_error(tmp_path):
    scene = copy_scene(tmp_path)
    with pytest.raises(usdsim.OutputError) as caught:
        usdsim.bake(scene, tmp_path / "no" / "such" / "dir" / "out.usda", 2)
    assert caught.value.exit_code == 4
    with pytest.raises(usdsim.OutputError):
        usdsim.bake(scene, scene, 2)
    assert scene.read_bytes() == (TESTDATA / "cloth_on_sphere.usda").read_bytes()


def test_a_diverging_bake_raises_diverged_error_and_keeps_the_frames_before(tmp_path):
    # Explicit Euler on stiff springs at one substep blows up within a few frames.
    scene = copy_scene(tmp_path)
    out = tmp_path / "out.usda"
    with pytest.raises(usdsim.DivergedError) as caught:
        usdsim.bake(scene, out, 48, substeps=1, model="springs", spring_stiffness=1e7, integrator="euler")
    err = caught.value
    assert err.exit_code == 3 and err.prim == "/World/Cloth" and err.attribute
    assert 0 <= end_time(out) < 48


def test_an_in_memory_stage_round_trips_through_its_text(tmp_path):
    stage = Usd.Stage.Open(str(SCENE))
    stage.GetRootLayer().startTimeCode = 0
    text = stage.GetRootLayer().ExportToString()
    path = usdsim.layer_path(text, tmp_path)
    out = tmp_path / "baked.usda"
    usdsim.bake(path, out, 4)
    baked = Usd.Stage.Open(str(out))
    points = baked.GetPrimAtPath("/World/Cloth").GetAttribute("points")
    assert len(points.GetTimeSamples()) == 5
