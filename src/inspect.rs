//! The `inspect` command: what the importer understood of a stage, as tables or JSON.

use anyhow::{Context, Result};
use serde_json::{json, Value};
use usdsim_core::BodyId;
use usdsim_core::{BodyKind, ColliderShape, Model, Plasticity, Settings, Solver};
use usdsim_usd::{Imported, InputStage};

use crate::cli::InspectArgs;
use crate::report::{count, diagnostic_json, same_fact};
use crate::run::frame_range;
use crate::summary::Counts;

/// Validates and imports `args.input` (one traversal, as a run does) and prints what a
/// run would simulate: counts, frame range, bodies, materials, colliders, rigid bodies,
/// pins, gravity, units, and every finding and warning a run would report.
pub fn inspect(args: &InspectArgs) -> Result<()> {
    let view = view(&args.input)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
    } else {
        print!("{}", text(&view));
    }
    Ok(())
}

/// What `inspect --json` prints for `path`: the stage as a run would simulate it, with
/// every finding and warning a run would report.
pub fn view(path: &std::path::Path) -> Result<Value> {
    let input = InputStage::open(path)?;
    let mut findings = input.validate().map(|report| report.diagnostics).unwrap_or_default();
    let imported = input.import(None)?;
    for w in &imported.warnings {
        if !findings.iter().any(|d| same_fact(d, w)) {
            findings.push(w.clone());
        }
    }
    let mut view =
        describe(&imported).with_context(|| format!("{}: cannot compute the bodies' masses", path.display()))?;
    view["findings"] = Value::Array(findings.iter().map(diagnostic_json).collect());
    Ok(view)
}

/// Rounds to 6 significant digits so output is stable and readable.
fn sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 5 - x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits.clamp(-300, 300));
    (x * scale).round() / scale
}

/// A shape as JSON: its kind and dimensions (stage units), numbers as numbers.
fn shape_json(shape: &ColliderShape) -> Value {
    let v3 = |v: [f32; 3]| v.map(|x| sig(x.into()));
    match shape {
        ColliderShape::Plane { normal } => json!({ "kind": "plane", "normal": v3(normal.to_array()) }),
        ColliderShape::Cuboid { half_extents } => json!({ "kind": "box", "half_extents": v3(half_extents.to_array()) }),
        ColliderShape::Sphere { radius } => json!({ "kind": "sphere", "radius": sig((*radius).into()) }),
        ColliderShape::Capsule { radius, half_height, axis } => json!({
            "kind": "capsule", "radius": sig((*radius).into()), "half_height": sig((*half_height).into()), "axis": v3(axis.to_array()),
        }),
        ColliderShape::Cylinder { radius, half_height, axis } => json!({
            "kind": "cylinder", "radius": sig((*radius).into()), "half_height": sig((*half_height).into()), "axis": v3(axis.to_array()),
        }),
        ColliderShape::TriMesh { vertices, triangles } => {
            json!({ "kind": "triangle_mesh", "vertices": vertices.len(), "triangles": triangles.len() })
        }
    }
}

fn shape_name(shape: &ColliderShape) -> String {
    match shape {
        ColliderShape::Plane { normal } => format!("plane, normal {:?}", normal.to_array().map(|v| sig(v.into()))),
        ColliderShape::Cuboid { half_extents } => {
            format!("box, half extents {:?}", half_extents.to_array().map(|v| sig(v.into())))
        }
        ColliderShape::Sphere { radius } => format!("sphere, radius {}", sig((*radius).into())),
        ColliderShape::Capsule { radius, half_height, .. } => {
            format!("capsule, radius {}, half height {}", sig((*radius).into()), sig((*half_height).into()))
        }
        ColliderShape::Cylinder { radius, half_height, .. } => {
            format!("cylinder, radius {}, half height {}", sig((*radius).into()), sig((*half_height).into()))
        }
        ColliderShape::TriMesh { vertices, triangles } => {
            format!("triangle mesh, {} vertices, {} triangles", vertices.len(), triangles.len())
        }
    }
}

/// A value in stage units and SI.
fn both(stage: f64, to_si: f64) -> Value {
    json!({ "stage": sig(stage), "si": sig(stage * to_si) })
}

/// `usdsim:model` and its spring parameters.
fn model_json(model: &Model) -> Value {
    match model {
        Model::Fem => json!({ "kind": "fem" }),
        Model::Springs(s) => {
            let links: Vec<&str> =
                [(s.links.structural, "structural"), (s.links.shear, "shear"), (s.links.bend, "bend")]
                    .into_iter()
                    .filter_map(|(on, name)| on.then_some(name))
                    .collect();
            json!({
                "kind": "springs",
                "stiffness": sig(s.stiffness.into()),
                "damping": sig(s.damping.into()),
                "links": links,
            })
        }
    }
}

/// Plasticity parameters, `null` when elastic.
fn plastic_json(p: &Option<Plasticity>) -> Value {
    match p {
        None => Value::Null,
        Some(p) => json!({
            "yield_ratio": sig(p.yield_ratio.into()),
            "rate": sig(p.rate.into()),
            "max_strain": p.max_strain.map(|s| sig(s.into())),
        }),
    }
}

/// The JSON description of an imported stage (the text tables are printed from it).
fn describe(imported: &Imported) -> Result<Value> {
    let info = &imported.stage;
    let (mpu, kpu) = (info.meters_per_unit, info.kilograms_per_unit);
    let pressure = kpu / mpu; // stage pressure unit in Pa
    let density = kpu / (mpu * mpu * mpu);
    // At the stage's frame rate, so the stability figures below are the run's.
    let settings = Settings {
        frame_dt: (1.0 / info.time_codes_per_second) as f32,
        substeps: crate::run::default_substeps(&imported.scene),
        iterations: crate::run::default_iterations(&imported.scene),
        ..Settings::default()
    };
    let solver = Solver::new(imported.scene.clone(), settings)?;
    let bodies: Vec<Value> = imported
        .scene
        .bodies
        .iter()
        .enumerate()
        .map(|(b, body)| {
            let m = &body.material;
            let (kind, elements) = match body.kind {
                BodyKind::Volume => ("volume", body.tets.len()),
                BodyKind::Surface => ("surface", body.triangles.len()),
            };
            json!({
                "prim": imported.binding.bodies[b].prim_path,
                "kind": kind,
                "vertices": body.positions.len(),
                "elements": elements,
                "element_type": if body.kind == BodyKind::Volume { "tetrahedra" } else { "triangles" },
                "mass": both(f64::from(solver.body_mass(BodyId(b))), kpu),
                "mass_override": body.mass_override.map(|v| sig(v.into())),
                "model": model_json(&body.model),
                "self_collision": body.self_collision,
                "vertex_velocity_damping": sig(body.velocity_damping.into()),
                "schema": match imported.binding.bodies[b].legacy {
                    Some(kind) => kind.api(),
                    None => "",
                },
                "self_collision_filter_distance": body.self_collision_filter_distance.map(|d| both(d.into(), mpu)),
                "tear_ratio": body.tear_ratio.map(|v| sig(v.into())),
                "plasticity": plastic_json(&body.plastic),
                "subset_materials": (0..body.materials.len()).map(|k| json!({
                    "tear_ratio": body.materials[k].tear_ratio.map(|v| sig(v.into())),
                    "plasticity": plastic_json(&body.materials[k].plastic),
                })).collect::<Vec<_>>(),
                "material": {
                    "youngs_modulus": both(m.youngs_modulus.into(), pressure),
                    "poissons_ratio": sig(m.poissons_ratio.into()),
                    "density": both(m.density.into(), density),
                    "thickness": both(m.thickness.into(), mpu),
                    "stretch_stiffness": both(m.stretch_stiffness.into(), pressure),
                    "shear_stiffness": both(m.shear_stiffness.into(), pressure),
                    "bend_stiffness": both(m.bend_stiffness.into(), pressure),
                    "dynamic_friction": sig(m.dynamic_friction.into()),
                    "static_friction": sig(m.static_friction.into()),
                    "damping": sig(m.damping.into()),
                },
            })
        })
        .collect();
    let colliders: Vec<Value> = imported
        .scene
        .colliders
        .iter()
        .map(|c| {
            json!({
                "prim": c.name,
                "shape": shape_json(&c.shape),
                "shape_text": shape_name(&c.shape),
                "position": c.translation.to_array().map(|v| sig(v.into())),
                "friction": sig(c.friction.into()),
            })
        })
        .collect();
    let mut pins: Vec<Value> = Vec::new();
    for (b, body) in imported.binding.bodies.iter().enumerate() {
        let of_body: Vec<_> = imported.scene.pins.iter().filter(|p| p.body == BodyId(b)).collect();
        if let Some(first) = of_body.first() {
            // JSON has no infinity: a hard pin is `"hard": true` with a null stiffness.
            let hard = first.stiffness.is_infinite();
            let stiffness = if hard { Value::Null } else { json!(sig(first.stiffness.into())) };
            pins.push(json!({
                "body": body.prim_path,
                "vertices": of_body.len(),
                "hard": hard,
                "stiffness": stiffness,
                "damping": sig(first.damping.into()),
            }));
        }
    }
    let rigid_bodies: Vec<Value> = imported
        .scene
        .rigid_bodies
        .iter()
        .map(|r| {
            json!({
                "prim": r.name,
                "kinematic": r.kinematic,
                "shapes": r.shapes.iter().map(|s| shape_json(&s.shape)).collect::<Vec<_>>(),
                "position": r.translation.to_array().map(|v| sig(v.into())),
                "mass": r.mass.map(|m| sig(m.into())),
                "density": sig(r.density.into()),
            })
        })
        .collect();
    let counts = Counts::of(&imported.scene);
    let range = frame_range(None, info);
    let g = imported.scene.gravity.as_dvec3();
    Ok(json!({
        "counts": {
            "bodies": counts.bodies,
            "vertices": counts.vertices,
            "tetrahedra": counts.tetrahedra,
            "triangles": counts.triangles,
            "colliders": counts.colliders,
            "rigid_bodies": counts.rigid_bodies,
        },
        "counts_text": counts.text(),
        "frame_range": range.json(),
        "frame_range_text": range.text(),
        "file": info.input.display().to_string(),
        "units": {
            "meters_per_unit": mpu,
            "kilograms_per_unit": kpu,
            "up_axis": info.up_axis.token(),
            "time_codes_per_second": info.time_codes_per_second,
            "start_time_code": info.start_time_code,
        },
        "gravity": {
            "stage": g.to_array().map(sig),
            "magnitude": both(g.length(), mpu),
        },
        "solver": {
            "substeps": solver.settings().substeps,
            "iterations": solver.settings().iterations,
            "stiffest_tet_frequency": if counts.tetrahedra > 0 { json!(sig(f64::from(solver.max_tet_frequency()))) } else { Value::Null },
            "warnings": solver.warnings(),
        },
        "bodies": bodies,
        "colliders": colliders,
        "rigid_bodies": rigid_bodies,
        "joints": imported.scene.joints.iter().map(|j| joint_json(j, &imported.scene)).collect::<Vec<_>>(),
        "pins": pins,
    }))
}

/// One joint as inspect shows it: its kind and axis, the two bodies (`world` for none),
/// limits and drive.
fn joint_json(j: &usdsim_core::Joint, scene: &usdsim_core::Scene) -> Value {
    use usdsim_core::JointKind;
    let side =
        |b: Option<usdsim_core::RigidId>| b.map_or("world".to_string(), |r| scene.rigid_bodies[r.index()].name.clone());
    let (kind, axis, limit) = match j.kind {
        JointKind::Fixed => ("fixed", None, None),
        JointKind::Spherical { axis, .. } => ("spherical", Some(axis), None),
        JointKind::Generic { .. } => ("generic", None, None),
        JointKind::Revolute { axis, limit } => {
            ("revolute", Some(axis), limit.map(|l| l.map(|v| sig(f64::from(v).to_degrees()))))
        }
        JointKind::Prismatic { axis, limit } => ("prismatic", Some(axis), limit.map(|l| l.map(|v| sig(f64::from(v))))),
        JointKind::Distance { max } => ("distance", None, Some([0.0, sig(f64::from(max))])),
    };
    json!({
        "name": j.name,
        "kind": kind,
        "axis": axis.map(|a| format!("{a:?}")),
        "bodies": [side(j.bodies[0]), side(j.bodies[1])],
        "limit": limit,
        "drive": j.drive.map(|d| json!({
            "type": if d.acceleration { "acceleration" } else { "force" },
            "stiffness": sig(f64::from(d.stiffness)),
            "damping": sig(f64::from(d.damping)),
        })),
        "breaks": j.break_at.iter().any(|v| v.is_finite()),
        "articulated": j.articulated,
        "dof_drives": match j.kind {
            JointKind::Generic { drives, .. } => json!(drives
                .iter()
                .zip(usdsim_core::JointDof::ALL)
                .filter_map(|(d, dof)| d.map(|d| json!({
                    "dof": format!("{dof:?}"),
                    "type": if d.acceleration { "acceleration" } else { "force" },
                })))
                .collect::<Vec<_>>()),
            _ => Value::Null,
        },
        "cone": match j.kind {
            JointKind::Spherical { cone, .. } => json!(cone.map(|c| c.map(|c| sig(f64::from(c).to_degrees())))),
            _ => Value::Null,
        },
        "dofs": match j.kind {
            JointKind::Generic { dofs, .. } => json!(dofs.iter().zip(usdsim_core::JointDof::ALL).map(|(d, dof)| {
                let angle = matches!(dof, usdsim_core::JointDof::RotX | usdsim_core::JointDof::RotY | usdsim_core::JointDof::RotZ);
                let value = match *d {
                    usdsim_core::DofLimit::Free => json!("free"),
                    usdsim_core::DofLimit::Locked => json!("locked"),
                    usdsim_core::DofLimit::Limited(l) => json!(l.map(|v| if angle { sig(f64::from(v).to_degrees()) } else { sig(f64::from(v)) })),
                };
                (format!("{dof:?}"), value)
            }).collect::<serde_json::Map<_, _>>()),
            _ => Value::Null,
        },
    })
}

/// A value for people: whole numbers without `.0`, vectors as `(x, y, z)`.
fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            _ => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("({})", items.iter().map(num).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// A surface stiffness: 0 means "derived from Young's modulus and the thickness".
fn stiffness(v: &Value) -> String {
    if v["stage"].as_f64() == Some(0.0) {
        "derived from E".to_string()
    } else {
        pair(v, "Pa")
    }
}

/// `stage (SI unit)` for a [`both`] value.
fn pair(v: &Value, unit: &str) -> String {
    format!("{} ({} {unit})", num(&v["stage"]), num(&v["si"]))
}

fn tear_text(v: &Value) -> String {
    if v.is_null() {
        "never".to_string()
    } else {
        format!("at {} x rest length", num(v))
    }
}

fn plastic_text(v: &Value) -> String {
    if v.is_null() {
        return "elastic".to_string();
    }
    let cap = if v["max_strain"].is_null() { "no cap".to_string() } else { format!("cap {}", num(&v["max_strain"])) };
    format!("plastic beyond {} x rest length at rate {}, {cap}", num(&v["yield_ratio"]), num(&v["rate"]))
}

/// `model ..., tear ..., plasticity` for one body, then whether its asset asks it to
/// collide with itself and its self-collision filter distance, where authored.
fn extras_text(b: &Value) -> String {
    let m = &b["model"];
    let model = if m["kind"] == "springs" {
        let links: Vec<String> = m["links"].as_array().into_iter().flatten().map(num).collect();
        format!(
            "model springs (stiffness {} stage mass/s², damping {} stage mass/s, links {})",
            num(&m["stiffness"]),
            num(&m["damping"]),
            links.join("+")
        )
    } else {
        "model fem".to_string()
    };
    // Said only where the asset asks: most bodies do not collide with themselves.
    let mut own =
        if b["self_collision"] == true { ", collides with itself (asset)".to_string() } else { String::new() };
    if !b["self_collision_filter_distance"].is_null() {
        own.push_str(&format!(", self-collision filter distance {}", pair(&b["self_collision_filter_distance"], "m")));
    }
    // PhysX's vertex drag, on the legacy bodies that carry it.
    if b["vertex_velocity_damping"].as_f64().is_some_and(|c| c > 0.0) {
        own.push_str(&format!(", vertex velocity damping {}/s", num(&b["vertex_velocity_damping"])));
    }
    if b["schema"].as_str().is_some_and(|s| !s.is_empty()) {
        own.push_str(&format!(", legacy PhysX {}", num(&b["schema"])));
    }
    format!("{model}, tear {}, {}{own}", tear_text(&b["tear_ratio"]), plastic_text(&b["plasticity"]))
}

/// Renders the description as aligned tables.
fn text(view: &Value) -> String {
    let mut out = String::new();
    let u = &view["units"];
    out.push_str(&format!("file: {}\n", num(&view["file"])));
    out.push_str(&format!(
        "units: metersPerUnit {}, kilogramsPerUnit {}, upAxis {}, timeCodesPerSecond {}, startTimeCode {}\n",
        num(&u["meters_per_unit"]),
        num(&u["kilograms_per_unit"]),
        num(&u["up_axis"]),
        num(&u["time_codes_per_second"]),
        num(&u["start_time_code"]),
    ));
    out.push_str(&format!(
        "gravity: {} stage units/s², magnitude {}\n",
        num(&view["gravity"]["stage"]),
        pair(&view["gravity"]["magnitude"], "m/s²")
    ));
    out.push_str(&format!("scene: {}\n", num(&view["counts_text"])));
    out.push_str(&format!("frames: a run bakes {}\n", num(&view["frame_range_text"])));
    let solver = &view["solver"];
    if solver["stiffest_tet_frequency"].is_null() {
        out.push_str(&format!(
            "solver: {} substeps per frame, {} iterations each, by default\n",
            num(&solver["substeps"]),
            num(&solver["iterations"]),
        ));
    } else {
        out.push_str(&format!(
            "solver: {} substeps per frame, {} iterations each, by default (stiffest tetrahedron's rest frequency {} rad/s)\n",
            num(&solver["substeps"]),
            num(&solver["iterations"]),
            num(&solver["stiffest_tet_frequency"]),
        ));
    }
    for w in solver["warnings"].as_array().into_iter().flatten() {
        out.push_str(&format!("  note: {}\n", num(w)));
    }

    let bodies = view["bodies"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!("\nbodies ({}):\n", bodies.len()));
    if !bodies.is_empty() {
        out.push_str(&format!(
            "  {:<8} {:<40} {:>9} {:>14} {:>24}\n",
            "kind", "prim", "vertices", "elements", "mass stage (kg)"
        ));
    }
    for b in &bodies {
        let elements = format!("{} {}", num(&b["elements"]), if b["kind"] == "volume" { "tets" } else { "tris" });
        out.push_str(&format!(
            "  {:<8} {:<40} {:>9} {:>14} {:>24}\n",
            num(&b["kind"]),
            num(&b["prim"]),
            num(&b["vertices"]),
            elements,
            format!("{} ({})", num(&b["mass"]["stage"]), num(&b["mass"]["si"])),
        ));
        let m = &b["material"];
        out.push_str(&format!(
            "           E {}, nu {}, density {}\n",
            pair(&m["youngs_modulus"], "Pa"),
            num(&m["poissons_ratio"]),
            pair(&m["density"], "kg/m³"),
        ));
        if b["kind"] == "surface" {
            out.push_str(&format!(
                "           thickness {}, stretch {}, shear {}, bend {}\n",
                pair(&m["thickness"], "m"),
                stiffness(&m["stretch_stiffness"]),
                stiffness(&m["shear_stiffness"]),
                stiffness(&m["bend_stiffness"]),
            ));
        }
        out.push_str(&format!(
            "           friction {} static / {} dynamic, damping {}\n",
            num(&m["static_friction"]),
            num(&m["dynamic_friction"]),
            num(&m["damping"])
        ));
        out.push_str(&format!("           {}\n", extras_text(b)));
        for (k, sub) in b["subset_materials"].as_array().into_iter().flatten().enumerate() {
            out.push_str(&format!(
                "           subset material {k}: tear {}, {}\n",
                tear_text(&sub["tear_ratio"]),
                plastic_text(&sub["plasticity"])
            ));
        }
    }

    let colliders = view["colliders"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!("\ncolliders ({}):\n", colliders.len()));
    for c in &colliders {
        out.push_str(&format!(
            "  {:<40} {}, at {} stage units, friction {}\n",
            num(&c["prim"]),
            num(&c["shape_text"]),
            num(&c["position"]),
            num(&c["friction"])
        ));
    }

    let rigid = view["rigid_bodies"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!("\nrigid bodies ({}):\n", rigid.len()));
    for r in &rigid {
        let shapes: Vec<String> = r["shapes"].as_array().into_iter().flatten().map(|s| num(&s["kind"])).collect();
        let mass = if r["mass"].is_null() {
            format!("density {}", num(&r["density"]))
        } else {
            format!("mass {}", num(&r["mass"]))
        };
        out.push_str(&format!(
            "  {:<40} {}{}, at {} stage units, {mass}\n",
            num(&r["prim"]),
            shapes.join(" + "),
            if r["kinematic"] == true { ", kinematic" } else { "" },
            num(&r["position"]),
        ));
    }

    let joints = view["joints"].as_array().cloned().unwrap_or_default();
    if !joints.is_empty() {
        out.push_str(&format!("\njoints ({}, on rapier3d's joints):\n", joints.len()));
        for j in &joints {
            let axis = if j["axis"].is_null() { String::new() } else { format!(" about {}", num(&j["axis"])) };
            let limit = if j["limit"].is_null() { String::new() } else { format!(", limits {}", num(&j["limit"])) };
            let drive =
                if j["drive"].is_null() { String::new() } else { format!(", {} drive", num(&j["drive"]["type"])) };
            let breaks = if j["breaks"] == true { ", breakable" } else { "" };
            let articulated = if j["articulated"] == true { ", articulated" } else { "" };
            let dof_drives: String = j["dof_drives"]
                .as_array()
                .map(|d| d.iter().map(|d| format!(", {} {} drive", num(&d["dof"]), num(&d["type"]))).collect())
                .unwrap_or_default();
            let cone = match j["cone"].as_array() {
                Some(c) if c.iter().any(|v| !v.is_null()) => {
                    let side = |v: &Value| if v.is_null() { "free".to_string() } else { format!("{}°", num(v)) };
                    format!(", cone {} / {}", side(&c[0]), side(&c[1]))
                }
                _ => String::new(),
            };
            let dofs = match j["dofs"].as_object() {
                Some(d) => {
                    let held: Vec<String> =
                        d.iter().filter(|(_, v)| *v != "free").map(|(k, v)| format!("{k} {}", num(v))).collect();
                    format!(", {}", held.join(", "))
                }
                None => String::new(),
            };
            out.push_str(&format!(
                "  {:<40} {}{axis}: {} to {}{limit}{cone}{dofs}{drive}{dof_drives}{breaks}{articulated}\n",
                num(&j["name"]),
                num(&j["kind"]),
                num(&j["bodies"][0]),
                num(&j["bodies"][1]),
            ));
        }
    }
    let pins = view["pins"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!("\npins ({}):\n", pins.len()));
    for p in &pins {
        out.push_str(&format!(
            "  {:<40} {}, stiffness {}, damping {}\n",
            num(&p["body"]),
            count(p["vertices"].as_u64().unwrap_or(0) as usize, "vertex", "vertices"),
            if p["hard"] == true { "hard".to_string() } else { num(&p["stiffness"]) },
            num(&p["damping"])
        ));
    }
    let findings = view["findings"].as_array().cloned().unwrap_or_default();
    if !findings.is_empty() {
        out.push_str(&format!("\nfindings ({}):\n", findings.len()));
        for f in &findings {
            let at = match (f["prim"].as_str(), f["attribute"].as_str()) {
                (Some(prim), Some(attr)) => format!("{prim}.{attr}: "),
                (Some(prim), None) => format!("{prim}: "),
                _ => String::new(),
            };
            out.push_str(&format!("  {}[{}]: {at}{}\n", num(&f["severity"]), num(&f["code"]), num(&f["message"])));
        }
    }
    out
}
