"""usdsim's rules as validators of Pixar's ``UsdValidation`` framework.

Every rule of usdsim's catalogue (``usdsim.rules()``, the one table the CLI reads too)
is a stage validator named ``usdsim:<CODE>``; the suite ``usdsim:deformables`` holds
them all. They are declared in ``plugInfo.json`` beside this file, a Python plugin named
``usdsim``: Pixar's plugin system finds it on ``PXR_PLUGINPATH_NAME`` (set it to
:data:`PLUGIN_DIR` for ``usdchecker`` or a DCC) and imports ``usdsim`` when one of them
is asked for. Importing ``usdsim`` in a Python that has ``pxr`` registers them too.

>>> from pxr import Usd, UsdValidation                                  # doctest: +SKIP
>>> suite = UsdValidation.ValidationRegistry().GetOrLoadValidatorSuiteByName("usdsim:deformables")
>>> errors = UsdValidation.ValidationContext([suite]).Validate(Usd.Stage.Open("asset.usda"))

Each error is named after its rule's code (its identifier ``usdsim:DB304.DB304``), is an
``Error`` or ``Warn`` as the rule's severity, has the attribute at fault as its site (or
the prim, with the attribute's name before the CLI's message, when the attribute is not
on the stage), and carries the CLI's message. Errors of ``DB304`` on a self-collision filter
distance offer the fixer :data:`FILTER_DISTANCE_FIXER`.

Each validator reads what usdsim's validator reads: the stage's root layer as saved,
or, when it is anonymous or has unsaved edits, its current text (written to a hidden
temporary file beside it so relative asset paths still resolve, and removed after).
The whole catalogue runs once per stage state, however many validators ask.
"""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any, Dict, List, Tuple

from . import _usdsim

#: The folder holding usdsim's ``plugInfo.json``: the value for ``PXR_PLUGINPATH_NAME``.
PLUGIN_DIR = os.path.dirname(os.path.abspath(__file__))
#: The plugin's name, and so the prefix of every validator's name.
PLUGIN = "usdsim"
#: The suite of every usdsim rule.
SUITE = PLUGIN + ":deformables"
#: The keyword every usdsim validator carries.
KEYWORD = "usdsim"
#: The name of the fixer offered on ``DB304`` errors about a self-collision filter distance.
FILTER_DISTANCE_FIXER = "usdsimFilterDistanceToFallback"


def validator_name(code: str) -> str:
    """``usdsim:<code>``: the name of the validator of rule ``code``."""
    return f"{PLUGIN}:{code}"


def plug_info() -> Dict[str, Any]:
    """The ``plugInfo.json`` that declares every rule of the catalogue, generated from it.

    ``python -m usdsim.validation > python/usdsim/plugInfo.json`` writes it; a test
    checks the file in the package is this.
    """
    validators: Dict[str, Any] = {"keywords": [KEYWORD]}
    for rule in _usdsim.rules():
        validators[rule["code"]] = {
            "doc": f"{rule['statement']} ({rule['severity']}; docs/validation-rules.md)",
            "keywords": [f"{KEYWORD}{rule['severity'].capitalize()}s"],
        }
    validators["deformables"] = {
        "doc": "Every usdsim rule for OmniPhysics and AOUSD deformable bodies, their materials, "
        "attachments, filters, rigid bodies and joints.",
        "isSuite": True,
    }
    return {"Plugins": [{"Type": "python", "Name": PLUGIN, "Info": {"Validators": validators}}]}


_cache: Dict[Tuple[Any, ...], List[Dict[str, Any]]] = {}


def _findings(stage: Any) -> List[Dict[str, Any]]:
    """usdsim's findings on ``stage``, computed once per state of its root layer."""
    layer = stage.GetRootLayer()
    path = layer.realPath
    if path and not layer.dirty and os.path.exists(path):
        stat = os.stat(path)
        key: Tuple[Any, ...] = ("file", path, stat.st_mtime_ns, stat.st_size)
        text = None
    else:
        text = layer.ExportToString()
        key = ("text", layer.identifier, hash(text))
    if key in _cache:
        return _cache[key]
    if text is None:
        findings = _usdsim.validate([path])
    else:
        from . import layer_path

        suffix = ".usda"
        folder = os.path.dirname(path) if path and os.path.isdir(os.path.dirname(path)) else None
        temp = layer_path(text, folder, suffix)
        try:
            findings = _usdsim.validate([temp])
        finally:
            os.remove(temp)
            if folder is None:
                os.rmdir(os.path.dirname(temp))
        for f in findings:
            if f["file"] == temp:
                f["file"] = layer.identifier
    if len(_cache) > 8:
        _cache.clear()
    _cache[key] = findings
    return findings


def _register() -> None:
    """Registers every rule's validator, the suite and the fixer with ``UsdValidation``."""
    from pxr import Plug, Sdf, Usd, UsdValidation

    # Effective only before the validation registry first reads plugin metadata; after
    # that the validators are registered with explicit metadata below instead.
    Plug.Registry().RegisterPlugins(PLUGIN_DIR)
    registry = UsdValidation.ValidationRegistry()
    kinds = {
        "error": UsdValidation.ValidationErrorType.Error,
        "warning": UsdValidation.ValidationErrorType.Warn,
    }

    def task(code: str):
        def run(stage, time_range=None):
            errors = []
            for f in _findings(stage):
                if f["code"] != code:
                    continue
                prim = f["prim"] if f["prim"] and f["prim"] != "/" else None
                message = f["message"]
                attribute = f["attribute"]
                site_path = Sdf.Path(prim) if prim else Sdf.Path.absoluteRootPath
                if prim and attribute:
                    held = stage.GetPrimAtPath(prim)
                    if held and held.HasProperty(attribute):
                        site_path = site_path.AppendProperty(attribute)
                    else:
                        # A site must exist on the stage: an attribute that is missing (the
                        # finding may be that it is) or metadata (clips) is named in the text.
                        message = f"{attribute}: {message}"
                site = UsdValidation.ValidationErrorSite(stage, site_path)
                errors.append(UsdValidation.ValidationError(code, kinds[f["severity"]], [site], message))
            return errors

        return run

    def filter_distance(error):
        for site in error.GetSites():
            if site.IsProperty():
                prop = site.GetProperty()
                if "filterDistance" in prop.GetName() or "FilterDistance" in prop.GetName():
                    return prop.GetPrim().GetAttribute(prop.GetName())
        return None

    def can_fix(error, edit_target, time_code):
        attr = filter_distance(error)
        return bool(attr) and edit_target.IsValid()

    def fix(error, edit_target, time_code):
        attr = filter_distance(error)
        if not attr:
            return False
        # -inf is the schema's fallback: the simulation chooses the distance.
        with Usd.EditContext(attr.GetPrim().GetStage(), edit_target):
            return bool(attr.Set(-math.inf))

    fixer = UsdValidation.ValidationFixer(
        name=FILTER_DISTANCE_FIXER,
        description="Set a negative self-collision filter distance to -inf, the schema's fallback "
        "(the simulation chooses it).",
        fixerImplFn=fix,
        canApplyFn=can_fix,
        keywords=[KEYWORD],
        errorName="DB304",
    )
    rules = _usdsim.rules()
    declared = registry.GetValidatorMetadata(validator_name(rules[0]["code"])) is not None
    # Metadata of our own only where the registry has none from plugInfo.json.
    entries = {} if declared else plug_info()["Plugins"][0]["Info"]["Validators"]
    validators = []
    for rule in rules:
        name = validator_name(rule["code"])
        if registry.HasValidator(name):
            validators.append(registry.GetOrLoadValidatorByName(name))
            continue
        fixers = [fixer] if rule["code"] == "DB304" else []
        if declared:
            registry.RegisterPluginStageValidator(name, task(rule["code"]), fixers)
        else:
            entry = entries[rule["code"]]
            metadata = UsdValidation.ValidatorMetadata(
                name=name, keywords=[KEYWORD] + entry["keywords"], doc=entry["doc"]
            )
            registry.RegisterStageValidator(metadata, task(rule["code"]), fixers)
        validators.append(registry.GetOrLoadValidatorByName(name))
    if not registry.HasValidatorSuite(SUITE):
        if declared:
            registry.RegisterPluginValidatorSuite(SUITE, validators)
        else:
            entry = entries["deformables"]
            metadata = UsdValidation.ValidatorMetadata(
                name=SUITE, keywords=[KEYWORD], doc=entry["doc"], isSuite=True
            )
            registry.RegisterValidatorSuite(metadata, validators)


if __name__ == "__main__":
    json.dump(plug_info(), sys.stdout, indent=4)
    sys.stdout.write("\n")
