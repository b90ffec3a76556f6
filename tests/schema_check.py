#!/usr/bin/env python3
"""Checks usdsim's schema definitions (schemas/) with Pixar's USD.

1. The generated files are up to date with schemas/generate.py.
2. Pixar's schema registry accepts our plugin and reports each class with its
   properties, built-in APIs and kind.
3. Every property of every class matches the reference schema another project
   publishes (../shared/corpus/schema-reference/...): same names, same value types,
   same fallbacks, same variability. Classes and properties the reference has beyond
   the specification (curves deformables) are not ours to check.
4. The corpus's OmniPhysics scenes read with our plugin: their applied APIs resolve.

Usage: schema_check.py REPO_ROOT REFERENCE_GENERATED_SCHEMA [CORPUS_FILE...]
Exit 0 when all checks pass; prints each failure and exits 1 otherwise.
"""

import subprocess
import sys
import tempfile
import shutil
from pathlib import Path

from pxr import Plug, Sdf, Usd

root = Path(sys.argv[1])
reference = Sdf.Layer.FindOrOpen(sys.argv[2])
corpus = sys.argv[3:]
failures = []


def fail(message):
    failures.append(message)


# 1. Regenerate into a scratch copy and compare byte for byte.
with tempfile.TemporaryDirectory() as scratch:
    copy = Path(scratch) / "schemas"
    shutil.copytree(root / "schemas", copy)
    subprocess.run([sys.executable, str(copy / "generate.py")], check=True)
    for path in sorted(copy.rglob("*")):
        if path.is_file() and path.suffix in (".usda", ".json"):
            committed = root / "schemas" / path.relative_to(copy)
            if not committed.exists() or committed.read_bytes() != path.read_bytes():
                fail(f"{committed} is stale: run python3 schemas/generate.py")

# 2. Registration.
plugin_dir = root / "schemas" / "omniPhysicsDeformable"
# Both plugins before the first use of the schema registry, which reads them once.
Plug.Registry().RegisterPlugins([str(plugin_dir), str(root / "schemas" / "usdsim")])
registry = Usd.SchemaRegistry()
ours = Sdf.Layer.FindOrOpen(str(plugin_dir / "generatedSchema.usda"))
for spec in ours.rootPrims:
    name = spec.name
    definition = registry.FindAppliedAPIPrimDefinition(name) or registry.FindConcretePrimDefinition(name)
    if definition is None:
        fail(f"{name}: not registered with Pixar's schema registry")
        continue
    for prop in spec.properties:
        if prop.name not in definition.GetPropertyNames():
            fail(f"{name}.{prop.name}: missing from the registered definition")
for name, props in [("UsdsimMaterialAPI", ["usdsim:tearRatio", "usdsim:plasticYieldRatio", "usdsim:plasticRate",
                                           "usdsim:plasticMaxStrain"]),
                    ("UsdsimBodyAPI", ["usdsim:model", "usdsim:springStiffness", "usdsim:springDamping",
                                       "usdsim:springLinks"])]:
    definition = registry.FindAppliedAPIPrimDefinition(name)
    if definition is None:
        fail(f"{name}: not registered with Pixar's schema registry")
    elif sorted(definition.GetPropertyNames()) != sorted(props):
        fail(f"{name}: properties {sorted(definition.GetPropertyNames())}, expected {sorted(props)}")
model = registry.FindAppliedAPIPrimDefinition("UsdsimBodyAPI")
if model is not None and model.GetAttributeDefinition("usdsim:model").GetFallbackValue() != "fem":
    fail("UsdsimBodyAPI: usdsim:model should fall back to fem")
if not Usd.SchemaRegistry.IsMultipleApplyAPISchema("OmniPhysicsDeformablePoseAPI"):
    fail("OmniPhysicsDeformablePoseAPI: not registered as multiple-apply")
body = registry.FindAppliedAPIPrimDefinition("OmniPhysicsDeformableBodyAPI")
if body is not None and "omniphysics:kinematicEnabled" not in body.GetPropertyNames():
    fail("OmniPhysicsDeformableBodyAPI: built-in OmniPhysicsBodyAPI properties missing")

# 3. Against the reference.
for spec in ours.rootPrims:
    ref = reference.GetPrimAtPath("/" + spec.name)
    if ref is None:
        fail(f"{spec.name}: the reference schema has no such class")
        continue
    for prop in spec.properties:
        other = ref.properties.get(prop.name)
        if other is None:
            fail(f"{spec.name}.{prop.name}: not in the reference schema")
            continue
        if isinstance(prop, Sdf.AttributeSpec) != isinstance(other, Sdf.AttributeSpec):
            fail(f"{spec.name}.{prop.name}: attribute/relationship mismatch")
            continue
        if isinstance(prop, Sdf.AttributeSpec):
            if prop.typeName != other.typeName:
                fail(f"{spec.name}.{prop.name}: type {prop.typeName} vs reference {other.typeName}")
            if prop.default != other.default and not (prop.default is None and other.default is None):
                fail(f"{spec.name}.{prop.name}: fallback {prop.default!r} vs reference {other.default!r}")
            if prop.variability != other.variability:
                fail(f"{spec.name}.{prop.name}: variability {prop.variability} vs reference {other.variability}")
    ref_names = {p.name for p in ref.properties}
    our_names = {p.name for p in spec.properties}
    for missing in sorted(ref_names - our_names):
        fail(f"{spec.name}.{missing}: in the reference schema but not ours")

# 4. Corpus scenes resolve their APIs through our plugin.
for path in corpus:
    stage = Usd.Stage.Open(path)
    for prim in stage.Traverse():
        for api in prim.GetPrimTypeInfo().GetAppliedAPISchemas():
            if api.startswith("OmniPhysics") and api not in prim.GetAppliedSchemas():
                fail(f"{path}: {prim.GetPath()}: {api} does not resolve with our schema")
        if prim.GetTypeName().startswith("OmniPhysics") and not prim.IsA(Usd.Typed):
            fail(f"{path}: {prim.GetPath()}: type {prim.GetTypeName()} does not resolve")

for f in failures:
    print("FAIL:", f)
print(f"schema check: {len(failures)} failures")
sys.exit(1 if failures else 0)
