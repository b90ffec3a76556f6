"""Runs every validator Pixar's USD registers (UsdValidation) on each stage named on the
command line and prints, as JSON, {path: [[validator, [site prim paths...], message], ...]}.
Used by tests/pxr_validators.rs, which compares a bake's findings with its input's."""
import json
import sys

from pxr import Usd, UsdValidation

registry = UsdValidation.ValidationRegistry()
context = UsdValidation.ValidationContext(registry.GetOrLoadAllValidators())
report = {}
for path in sys.argv[1:]:
    stage = Usd.Stage.Open(path)
    findings = []
    for error in context.Validate(stage):
        sites = sorted(str(site.GetPrim().GetPath()) if site.GetPrim() else "" for site in error.GetSites())
        findings.append([error.GetName(), sites, error.GetMessage()])
    report[path] = findings
print(json.dumps(report))
