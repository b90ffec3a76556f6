#!/usr/bin/env python3
"""Writes an N x N vertex cloth (default 317: 100,489 points) falling freely, with the
bench cloth's material (../shared/bench-scenes/cloth_*.usda), for benches/long-bake.sh.

Usage: benches/big_cloth.py OUT.usda [N]
"""
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 317
step = 1.0 / (n - 1)
points = ", ".join(f"({-0.5 + i * step:.6g}, {-0.5 + j * step:.6g}, 1)" for j in range(n) for i in range(n))
faces = []
for j in range(n - 1):
    for i in range(n - 1):
        a = j * n + i
        faces += [a, a + 1, a + n + 1, a, a + n + 1, a + n]
counts = ", ".join("3" for _ in range(len(faces) // 3))
indices = ", ".join(map(str, faces))
with open(out, "w") as f:
    f.write(f"""#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    kilogramsPerUnit = 1
    startTimeCode = 0
    timeCodesPerSecond = 60
    upAxis = "Z"
)

def Xform "World"
{{
    def PhysicsScene "PhysicsScene"
    {{
        vector3f physics:gravityDirection = (0, 0, -1)
        float physics:gravityMagnitude = 9.81
    }}

    def Material "ClothMaterial" (
        prepend apiSchemas = ["OmniPhysicsBaseMaterialAPI", "OmniPhysicsDeformableMaterialAPI", "OmniPhysicsSurfaceDeformableMaterialAPI"]
    )
    {{
        float omniphysics:density = 200
        float omniphysics:poissonsRatio = 0.3
        float omniphysics:surfaceBendStiffness = 0.000009157509
        float omniphysics:surfaceThickness = 0.001
        float omniphysics:youngsModulus = 100000
    }}

    def Mesh "Cloth" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI", "PhysicsCollisionAPI", "MaterialBindingAPI"]
    )
    {{
        rel material:binding:physics = </World/ClothMaterial>
        bool omniphysics:deformableBodyEnabled = 1
        point3f[] points = [{points}]
        int[] faceVertexCounts = [{counts}]
        int[] faceVertexIndices = [{indices}]
    }}
}}
""")
