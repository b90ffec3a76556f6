"""usdsim's rules inside Pixar's ``UsdValidation``: the plugin, the suite, the fixer."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from pxr import Sdf, Usd, UsdValidation

import usdsim
import usdsim.validation
from conftest import TESTDATA

INVALID = sorted((TESTDATA / "invalid").glob("*.usda"))
VALID = sorted(TESTDATA.glob("*.usda"))


def suite():
    found = UsdValidation.ValidationRegistry().GetOrLoadValidatorSuiteByName(usdsim.validation.SUITE)
    assert found is not None, "the usdsim:deformables suite is registered"
    return found


def pixar_findings(path: pathlib.Path) -> list:
    """The suite's errors on ``path`` as (code, severity, prim, attribute, message)."""
    stage = Usd.Stage.Open(str(path))
    assert stage, path
    kinds = {UsdValidation.ValidationErrorType.Error: "error", UsdValidation.ValidationErrorType.Warn: "warning"}
    found = []
    for e in UsdValidation.ValidationContext([suite()]).Validate(stage):
        assert e.GetValidator().GetMetadata().name == f"usdsim:{e.GetName()}"
        assert e.GetIdentifier() == f"usdsim:{e.GetName()}.{e.GetName()}"
        (site,) = e.GetSites()
        prim, attribute = "", ""
        if site.IsProperty():
            prop = site.GetProperty()
            prim, attribute = str(prop.GetPrim().GetPath()), prop.GetName()
        elif site.IsPrim() and str(site.GetPrim().GetPath()) != "/":
            prim = str(site.GetPrim().GetPath())
        found.append((e.GetName(), kinds[e.GetType()], prim, attribute, e.GetMessage()))
    return sorted(found)


def cli_codes(cli, path):
    """``usdsim validate --json``'s findings on ``path``, in the form of :func:`pixar_findings`."""
    out = subprocess.run([cli, "validate", "--json", str(path)], capture_output=True, text=True, check=False)
    report = json.loads(out.stdout)["files"][0]
    stage = Usd.Stage.Open(str(path))
    found = []
    for d in report.get("diagnostics", []):
        prim = d.get("prim") or ""
        prim = "" if prim == "/" else prim
        attribute = (d.get("property") or "") if prim else ""
        message = d["message"]
        if attribute and not (stage.GetPrimAtPath(prim) and stage.GetPrimAtPath(prim).HasProperty(attribute)):
            # Not on the stage, so not a site: the plugin names it in the message.
            attribute, message = "", f"{attribute}: {message}"
        found.append((d["code"], d["severity"], prim, attribute, message))
    return sorted(found)


def test_the_plugin_declares_every_rule_from_the_one_catalogue():
    declared = json.loads((pathlib.Path(usdsim.validation.PLUGIN_DIR) / "plugInfo.json").read_text())
    assert declared == usdsim.validation.plug_info(), "regenerate: python -m usdsim.validation > python/usdsim/plugInfo.json"
    codes = [r["code"] for r in usdsim.rules()]
    registry = UsdValidation.ValidationRegistry()
    for code in codes:
        metadata = registry.GetValidatorMetadata(f"usdsim:{code}")
        assert metadata is not None, code
        assert "usdsim" in metadata.GetKeywords()
    contained = [v.GetMetadata().name for v in suite().GetContainedValidators()]
    assert contained == [f"usdsim:{c}" for c in codes]


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_every_invalid_file_gives_the_commands_findings(cli, path):
    expected = cli_codes(cli, path)
    assert expected, f"{path.name} has no finding by the command"
    assert pixar_findings(path) == expected


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_every_valid_scene_gives_the_commands_findings_and_no_error(cli, path):
    found = pixar_findings(path)
    assert found == cli_codes(cli, path)
    assert not [f for f in found if f[1] == "error"]


def test_the_sites_are_the_prim_and_attribute_the_command_names():
    path = TESTDATA / "invalid" / "DB304_negative_density.usda"
    stage = Usd.Stage.Open(str(path))
    validator = UsdValidation.ValidationRegistry().GetOrLoadValidatorByName("usdsim:DB304")
    errors = validator.Validate(stage)
    assert len(errors) == 1
    (site,) = errors[0].GetSites()
    assert site.IsProperty() and str(site.GetProperty().GetPath()) == "/World/Jelly.omniphysics:density"
    assert errors[0].GetType() == UsdValidation.ValidationErrorType.Error


def test_the_filter_distance_fixer_fixes_and_the_fix_validates_clean(cli, tmp_path):
    scene = tmp_path / "cube.usda"
    shutil.copy(TESTDATA / "tet_cube_on_ground.usda", scene)
    stage = Usd.Stage.Open(str(scene))
    body = next(p for p in stage.Traverse() if p.GetTypeName() == "TetMesh")
    attr = body.CreateAttribute("physxDeformableBody:selfCollisionFilterDistance", Sdf.ValueTypeNames.Float)
    attr.Set(-0.01)
    stage.GetRootLayer().Save()
    assert [c for c, *_ in cli_codes(cli, scene)] == ["DB304"]

    validator = UsdValidation.ValidationRegistry().GetOrLoadValidatorByName("usdsim:DB304")
    (error,) = validator.Validate(stage)
    fixer = error.GetFixerByName(usdsim.validation.FILTER_DISTANCE_FIXER)
    assert fixer is not None and [f.name for f in error.GetFixers()] == [usdsim.validation.FILTER_DISTANCE_FIXER]
    target = stage.GetEditTarget()
    assert fixer.CanApplyFix(error, target, Usd.TimeCode.Default())
    assert fixer.ApplyFix(error, target, Usd.TimeCode.Default())
    # ApplyFix saved the layer; both validators now find it clean.
    assert cli_codes(cli, scene) == []
    assert validator.Validate(Usd.Stage.Open(str(scene))) == []
    # A DB304 on a density offers the fixer but it cannot apply there.
    (density,) = validator.Validate(Usd.Stage.Open(str(TESTDATA / "invalid" / "DB304_negative_density.usda")))
    assert not density.GetFixerByName(usdsim.validation.FILTER_DISTANCE_FIXER).CanApplyFix(
        density, target, Usd.TimeCode.Default()
    )


def test_an_edited_in_memory_stage_is_validated_as_edited(tmp_path):
    stage = Usd.Stage.Open(str(TESTDATA / "tet_cube_on_ground.usda"))
    validator = UsdValidation.ValidationRegistry().GetOrLoadValidatorByName("usdsim:DB304")
    assert validator.Validate(stage) == []
    material = next(p for p in stage.Traverse() if p.HasAttribute("omniphysics:density"))
    material.GetAttribute("omniphysics:density").Set(-5.0)
    (error,) = validator.Validate(stage)
    assert "-5" in error.GetMessage()
    # The file on disk is untouched and the temporary copy is gone.
    assert not list((TESTDATA).glob(".usdsim-layer-*"))


def test_pixars_plugin_system_loads_the_plugin_from_the_path_alone(tmp_path):
    # A fresh Python that never imports usdsim itself: Plug finds plugInfo.json on
    # PXR_PLUGINPATH_NAME and imports usdsim when the suite is asked for.
    script = f"""
import sys
from pxr import Sdf, Usd, UsdValidation
assert "usdsim" not in sys.modules
suite = UsdValidation.ValidationRegistry().GetOrLoadValidatorSuiteByName("usdsim:deformables")
assert suite is not None and "usdsim" in sys.modules
stage = Usd.Stage.Open({str(TESTDATA / "invalid" / "DB902_joint_axis.usda")!r})
print(sorted({{e.GetIdentifier() for e in UsdValidation.ValidationContext([suite]).Validate(stage)}}))
"""
    env = dict(os.environ, PXR_PLUGINPATH_NAME=usdsim.validation.PLUGIN_DIR)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "usdsim:DB902.DB902" in out.stdout, out.stdout
