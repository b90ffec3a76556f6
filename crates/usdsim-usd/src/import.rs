//! The import pass: from the opened stage and its one prim index, build a
//! [`usdsim_core::Scene`] plus what the exporter needs to write results back.

use std::path::Path;
use usdsim_core::{BodyId, RigidId};

use openusd::sdf;
use usdsim_core::{CollisionObject, Pin, Scene};

use crate::binding::{Binding, BodyPrim};
use crate::diagnostic::Diagnostic;
use crate::error::ImportError;
use crate::read::attachment::{FrameTrack, TrackTarget};
use crate::read::legacy_attachment::LegacyAttachment;
use crate::read::rigid_body::RigidPrim;
use crate::read::{
    attachment, body, collider, collision_group, embedded, joint, kinematic, legacy_attachment, legacy_body,
    physics_scene, rigid_body, unsupported,
};
use crate::schema::physx_legacy::LegacyKind;
use crate::stage::context::guard_reader;
use crate::stage::input_stage::InputStage;
use crate::stage::stage_info::{self, StageInfo};
use crate::stage::units::Units;
use crate::stage::xform::XformCache;

/// A stage turned into a simulation scene.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The simulation model (world space, stage units).
    pub scene: Scene,
    /// Stage-level metadata the exporter copies.
    pub stage: StageInfo,
    /// Where every solver index came from in the stage, and the stage's animated inputs
    /// (see [`Binding`]).
    pub binding: Binding,
    /// Non-fatal diagnostics, each naming file, prim path and (where relevant) attribute.
    pub warnings: Vec<Diagnostic>,
}

/// Opens `path` (`.usda`, `.usdc` or `.usdz`; sublayers, references, payloads and
/// inherits are composed) and imports its deformable bodies, static colliders,
/// attachments and gravity.
///
/// Bad input is an [`ImportError`] naming file, prim and attribute; anything that can
/// be worked around is a warning in [`Imported::warnings`] instead.
pub fn import(path: &Path) -> Result<Imported, ImportError> {
    import_at(path, None)
}

/// Like [`import`], but reads the stage's state at time code `start` instead of its
/// `startTimeCode` when given: points, velocities, topology, rest shapes and every other
/// value are read at `start`, and [`Imported::stage`]'s `start_time_code` becomes
/// `start`, so frame k of a bake lands at `start + k` and animated attachments and
/// kinematic bodies are sampled from `start` on. This is how a run resumes a previous
/// bake (which holds its state, varying topology and plastic rest shape included, as
/// time samples).
pub fn import_at(path: &Path, start: Option<f64>) -> Result<Imported, ImportError> {
    InputStage::open(path)?.import(start)
}

/// An import of `input` and what its legacy PhysX attachments became, for `usdsim
/// upgrade`.
pub(crate) fn import_with_legacy(input: &InputStage) -> Result<(Imported, Vec<LegacyAttachment>), ImportError> {
    guard_reader(|| import_stage(input, None))
        .unwrap_or_else(|reason| Err(ImportError::Unparsable { file: input.path.clone(), reason }))
}

impl InputStage {
    /// Imports the opened stage, read at time code `start` when given (see
    /// [`import_at`]), else at its `startTimeCode`. Reuses the stage and prim index of
    /// [`InputStage::open`], so validating first costs no second traversal.
    pub fn import(&self, start: Option<f64>) -> Result<Imported, ImportError> {
        guard_reader(|| import_stage(self, start))
            .unwrap_or_else(|reason| Err(ImportError::Unparsable { file: self.path.clone(), reason }))
            .map(|(imported, _)| imported)
    }
}

fn import_stage(input: &InputStage, start: Option<f64>) -> Result<(Imported, Vec<LegacyAttachment>), ImportError> {
    let mut ctx = input.context();
    let mut info = stage_info::read(&mut ctx);
    if let Some(start) = start {
        info.start_time_code = start;
    }
    ctx.time = info.start_time_code;
    let units = Units { meters_per_unit: info.meters_per_unit, kilograms_per_unit: info.kilograms_per_unit };

    let prims = input.prims.as_ref().map_err(|err| err.to_import_error(&ctx))?;
    if let Some(err) = prims.query_error(&ctx) {
        return Err(err);
    }
    for diagnostic in ctx.stage.composition_errors() {
        ctx.warn("IM004", &sdf::Path::abs_root(), None, format!("composition: {diagnostic}"));
    }

    let mut xforms = XformCache::default();
    unsupported::report(&mut ctx, prims);
    let scan = body::scan(&mut ctx, prims)?;
    let mut scene = Scene::default();
    let mut body_prims = Vec::with_capacity(scan.bodies.len());
    let mut embedded_prims = Vec::new();
    let mut kinematic_tracks = Vec::new();
    let mut mass_pins = Vec::new();
    for (index, found) in scan.bodies.iter().enumerate() {
        let read = body::read(&mut ctx, found, prims, &mut xforms, &units)?;
        for &vertex in &read.kinematic_vertices {
            let target = read.body.positions[vertex as usize];
            mass_pins.push(Pin { body: BodyId(index), vertex, target, stiffness: f32::INFINITY, damping: 0.0 });
        }
        if read.body.kinematic {
            kinematic_tracks.push(kinematic::read(&mut ctx, found, index, info.start_time_code)?);
        }
        scene.bodies.push(read.body);
        body_prims.push(BodyPrim {
            prim_path: found.sim.to_string(),
            world_from_local: read.world_from_local,
            dialect: found.dialect,
            legacy: found.legacy,
        });
        if found.legacy == Some(LegacyKind::Volume) {
            // The prim's own points are the render mesh, embedded in its simulation mesh.
            if let Some((mesh, out)) = legacy_body::render_mesh(&mut ctx, &prims[found.sim_index], index, &mut xforms)?
            {
                scene.embedded.push(mesh);
                embedded_prims.push(out);
            }
        }
        for &(k, collision) in &found.embedded {
            if let Some((mesh, out)) = embedded::read(&mut ctx, &prims[k], collision, index, &mut xforms)? {
                scene.embedded.push(mesh);
                embedded_prims.push(out);
            }
        }
    }
    scene.colliders = collider::read_all(&mut ctx, prims, &|path| scan.in_body(path), &mut xforms)?;
    let lookup = body::lookup(&scan.bodies);
    let rigid = rigid_body::read_all(&mut ctx, prims, &|path| scan.in_body(path), &mut xforms, &units)?;
    let mut rigid_worlds = Vec::with_capacity(rigid.len());
    let mut tracks = Vec::new();
    for (i, r) in rigid.iter().enumerate() {
        rigid_worlds.push((r.path.clone(), xforms.world(&mut ctx, &r.path)?));
        if r.body.kinematic {
            if let Some(samples) = attachment::sample_world(&mut ctx, &r.path, info.start_time_code)? {
                tracks.push(FrameTrack {
                    target: TrackTarget::Rigid(RigidId(i)),
                    start: info.start_time_code,
                    samples,
                });
            }
        }
    }
    let rigid_prims: Vec<RigidPrim> = rigid.iter().map(|r| r.prim.clone()).collect();
    let (joints, drive_tracks) =
        joint::read_all(&mut ctx, prims, &rigid_worlds, &|path| scan.in_body(path), &mut xforms, info.start_time_code)?;
    scene.joints = joints;
    scene.rigid_bodies = rigid.into_iter().map(|r| r.body).collect();
    let mut read =
        attachment::read(&mut ctx, prims, &lookup, &scene.bodies, &rigid_worlds, &mut xforms, info.start_time_code)?;
    let (legacy_filters, legacy_attachments) = legacy_attachment::read(
        &mut ctx,
        prims,
        &lookup,
        &scene.bodies,
        &rigid_worlds,
        &scene.colliders,
        &scene.rigid_bodies,
        &mut xforms,
        info.start_time_code,
        &mut read,
    )?;
    scene.attachments = read.attachments;
    scene.pins = read.pins;
    scene.pins.extend(mass_pins);
    scene.frames = read.frames;
    tracks.extend(read.tracks);
    let physics_scenes: Vec<sdf::Path> =
        prims.iter().filter(|p| p.type_name == "PhysicsScene").map(|p| p.path.clone()).collect();
    scene.gravity = physics_scene::gravity(&mut ctx, &physics_scenes, &info)?;
    // simulationOwner: a body owned by another scene than the default (first) one falls
    // with that scene's gravity, and never collides with bodies of other scenes (a
    // filtered pair per such body pair; `None` stands for the default scene).
    let mut owners: Vec<Option<sdf::Path>> = vec![None; scene.bodies.len()];
    for ((found, body), owner_slot) in scan.bodies.iter().zip(&mut scene.bodies).zip(&mut owners) {
        let Some(owner) = found.owner(&ctx)? else { continue };
        if physics_scenes.first() == Some(&owner) {
            continue;
        }
        if physics_scenes.contains(&owner) {
            *owner_slot = Some(owner.clone());
            let gravity = physics_scene::scene_gravity(&mut ctx, &owner, &info)?;
            // A body that disables gravity (read/body.rs) keeps its zero in any scene.
            body.gravity.get_or_insert(gravity);
        } else {
            ctx.warn(
                "DB009",
                &found.root,
                None,
                format!("simulationOwner {owner} is not a PhysicsScene; the body runs in the default scene"),
            );
        }
    }

    // Bodies simulated by different physics scenes never touch each other.
    for a in 0..owners.len() {
        for b in a + 1..owners.len() {
            if owners[a] != owners[b] {
                scene.collision.pairs.push([CollisionObject::Body(BodyId(a)), CollisionObject::Body(BodyId(b))]);
            }
        }
    }
    // Collision groups, filtered pairs and element filters (`collision_group.rs`).
    collision_group::read(&mut ctx, prims, &lookup, &mut scene)?;
    scene.collision.elements.extend(legacy_filters);
    // Last, once every value has been read, so the stage holds every layer it loads.
    let prim_paths: Vec<sdf::Path> = prims.iter().map(|p| p.path.clone()).collect();
    info.layers = crate::stage::input_layers::of(&ctx.stage, &input.path_str, &prim_paths);

    let imported = Imported {
        scene,
        stage: info,
        binding: Binding {
            bodies: body_prims,
            embedded: embedded_prims,
            rigid: rigid_prims,
            kinematic: kinematic_tracks,
            tracks,
            drives: drive_tracks,
        },
        warnings: ctx.warnings,
    };
    Ok((imported, legacy_attachments))
}
