//! The end-of-run summary, as text for people and JSON for pipelines. Its counts are
//! those of the imported scene (the same `inspect` shows), not of the solver's
//! constraints, so a spring-model cloth still has its triangles.

use std::path::PathBuf;

use serde_json::{json, Value};
use usdsim_core::{BodyKind, Scene};

use crate::report::count;

/// Sizes of the simulated scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Deformable bodies.
    pub bodies: usize,
    /// Their vertices.
    pub vertices: usize,
    /// Tetrahedra of volume bodies.
    pub tetrahedra: usize,
    /// Triangles of surface bodies.
    pub triangles: usize,
    /// Static colliders.
    pub colliders: usize,
    /// Rigid bodies (dynamic and kinematic).
    pub rigid_bodies: usize,
}

impl Counts {
    /// The counts of an imported scene.
    pub fn of(scene: &Scene) -> Counts {
        let of_kind = |kind: BodyKind| scene.bodies.iter().filter(move |b| b.kind == kind);
        Counts {
            bodies: scene.bodies.len(),
            vertices: scene.bodies.iter().map(|b| b.positions.len()).sum(),
            tetrahedra: of_kind(BodyKind::Volume).map(|b| b.tets.len()).sum(),
            triangles: of_kind(BodyKind::Surface).map(|b| b.triangles.len()).sum(),
            colliders: scene.colliders.len(),
            rigid_bodies: scene.rigid_bodies.len(),
        }
    }

    /// `1 deformable body (125 vertices, 384 tetrahedra), 1 collider, 0 rigid bodies`:
    /// element kinds the scene has none of are left out.
    pub fn text(&self) -> String {
        let mut sizes = vec![count(self.vertices, "vertex", "vertices")];
        if self.tetrahedra > 0 {
            sizes.push(count(self.tetrahedra, "tetrahedron", "tetrahedra"));
        }
        if self.triangles > 0 {
            sizes.push(count(self.triangles, "triangle", "triangles"));
        }
        format!(
            "{} ({}), {}, {}",
            count(self.bodies, "deformable body", "deformable bodies"),
            sizes.join(", "),
            count(self.colliders, "collider", "colliders"),
            count(self.rigid_bodies, "rigid body", "rigid bodies"),
        )
    }
}

/// The time codes a run bakes, and where the range came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameRange {
    /// Time code of frame 0 (the initial state).
    pub start: f64,
    /// Frames simulated after frame 0.
    pub frames: u32,
    /// Time codes per second.
    pub fps: f64,
    /// Where `frames` came from.
    pub source: RangeSource,
}

/// Where a run's frame count came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeSource {
    /// `--frames`.
    Flag,
    /// The stage's `startTimeCode`–`endTimeCode`.
    Stage,
    /// Neither: the fallback of 240 frames.
    Fallback,
}

impl FrameRange {
    /// Time code of the last frame.
    pub fn end(&self) -> f64 {
        self.start + f64::from(self.frames)
    }

    /// `48 frames, time codes 0–48 at 24 fps (the stage's range)`.
    pub fn text(&self) -> String {
        let source = match self.source {
            RangeSource::Flag => "--frames",
            RangeSource::Stage => "the stage's startTimeCode-endTimeCode",
            RangeSource::Fallback => "default; the stage authors no endTimeCode",
        };
        format!(
            "{}, time codes {}-{} at {} fps ({source})",
            count(self.frames as usize, "frame", "frames"),
            self.start,
            self.end(),
            self.fps
        )
    }

    /// The JSON form.
    pub fn json(&self) -> Value {
        let source = match self.source {
            RangeSource::Flag => "flag",
            RangeSource::Stage => "stage",
            RangeSource::Fallback => "fallback",
        };
        json!({ "start": self.start, "end": self.end(), "frames": self.frames, "fps": self.fps, "source": source })
    }
}

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    /// The input stage.
    pub input: PathBuf,
    /// The written layer.
    pub output: PathBuf,
    /// Every file the bake wrote (clips, manifest, the output layer last).
    pub files: Vec<PathBuf>,
    /// Its size in bytes.
    pub output_bytes: u64,
    /// What was simulated.
    pub counts: Counts,
    /// The baked range.
    pub range: FrameRange,
    /// Constraint projections per frame (the solver's work measure).
    pub projections_per_frame: u64,
    /// Substeps per frame.
    pub substeps: u32,
    /// Iterations per substep.
    pub iterations: u32,
    /// Worker threads.
    pub threads: usize,
    /// Seconds spent importing the stage.
    pub import_s: f64,
    /// Seconds spent simulating.
    pub simulate_s: f64,
    /// Seconds spent writing the output.
    pub export_s: f64,
    /// Milliseconds each frame took to simulate, in order (for `--report`).
    pub frame_ms: Vec<f64>,
    /// Each body's state after the last frame.
    pub bodies: Vec<BodyResult>,
}

/// A body's final state, so that a speed figure always comes with the answer it bought.
#[derive(Debug)]
pub struct BodyResult {
    /// The simulation mesh's prim path.
    pub prim: String,
    /// Number of vertices.
    pub vertices: usize,
    /// Total mass, stage units.
    pub mass: f32,
    /// Centre of mass after the last frame, world space.
    pub centre_of_mass: [f32; 3],
    /// Height of the lowest vertex along the stage's up axis after the last frame.
    pub lowest: f32,
    /// How many times the body's topology changed (tear events).
    pub topology_changes: u32,
    /// Whether it collided with itself (its asset asked, or `--self-contact`).
    pub self_contact: bool,
}

/// A text bake above this size gets a note suggesting `.usdc`.
const LARGE_TEXT_BAKE: u64 = 20 << 20;

impl Summary {
    /// Milliseconds of simulation per frame.
    pub fn ms_per_frame(&self) -> f64 {
        1e3 * self.simulate_s / self.range.frames.max(1) as f64
    }

    /// Constraint projections per second of simulation time.
    pub fn projections_per_second(&self) -> f64 {
        self.projections_per_frame as f64 * self.range.frames as f64 / self.simulate_s.max(1e-9)
    }

    /// Human-readable lines.
    pub fn text(&self) -> String {
        let mut out = format!(
            "wrote {} ({})\n  {}\n  {}, {} substeps x {} iterations, {}\n  wall time {:.2} s (import {:.2} s, simulate {:.2} s, export {:.2} s), {:.1} ms/frame, {:.2e} projections/s",
            self.output.display(),
            size_text(self.output_bytes),
            self.counts.text(),
            self.range.text(),
            self.substeps,
            self.iterations,
            count(self.threads, "thread", "threads"),
            self.import_s + self.simulate_s + self.export_s,
            self.import_s,
            self.simulate_s,
            self.export_s,
            self.ms_per_frame(),
            self.projections_per_second(),
        );
        for b in self.bodies.iter().filter(|b| b.topology_changes > 0) {
            out.push_str(&format!(
                "\n  {}: torn ({}), now {}",
                b.prim,
                count(b.topology_changes as usize, "topology change", "topology changes"),
                count(b.vertices, "vertex", "vertices")
            ));
        }
        let own: Vec<&str> = self.bodies.iter().filter(|b| b.self_contact).map(|b| b.prim.as_str()).collect();
        if !own.is_empty() {
            out.push_str(&format!("\n  self contact: {}", own.join(", ")));
        }
        if self.is_large_text() {
            out.push_str(&format!(
                "\n  note: a {} text layer loads slowly; write binary with -o {}",
                size_text(self.output_bytes),
                self.output.with_extension("usdc").display()
            ));
        }
        out.push_str(&format!("\n  look at it: usdsim preview {}", self.output.display()));
        out
    }

    /// Whether the bake is a large `.usda`, which `.usdc` would hold in a fraction.
    fn is_large_text(&self) -> bool {
        self.output_bytes > LARGE_TEXT_BAKE && self.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("usda"))
    }

    /// The machine-readable form, with the run's warnings.
    pub fn json(&self, warnings: Value) -> Value {
        let c = &self.counts;
        json!({
            "ok": true,
            "exit_code": 0,
            "input": self.input,
            "output": self.output,
            "output_bytes": self.output_bytes,
            "files": self.files,
            "bodies": c.bodies,
            "vertices": c.vertices,
            "tetrahedra": c.tetrahedra,
            "triangles": c.triangles,
            "colliders": c.colliders,
            "rigid_bodies": c.rigid_bodies,
            "frames": self.range.frames,
            "frame_range": self.range.json(),
            "substeps": self.substeps,
            "iterations": self.iterations,
            "threads": self.threads,
            "seconds": {
                "import": self.import_s,
                "simulate": self.simulate_s,
                "export": self.export_s,
            },
            "ms_per_frame": self.ms_per_frame(),
            "projections_per_second": self.projections_per_second(),
            "warnings": warnings,
            "final": self.bodies.iter().map(|b| json!({
                "prim": b.prim,
                "vertices": b.vertices,
                "mass": b.mass,
                "centre_of_mass": b.centre_of_mass,
                "lowest": b.lowest,
                "topology_changes": b.topology_changes,
                "self_contact": b.self_contact,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Percentiles of per-frame milliseconds, as `--report` writes them: p50, p90, p99 and
/// max (nearest rank), or nulls for a run without frames.
pub fn frame_percentiles(frame_ms: &[f64]) -> Value {
    let mut sorted = frame_ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = |p: f64| -> Option<f64> {
        let n = sorted.len();
        (n > 0).then(|| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1])
    };
    json!({ "p50": rank(0.5), "p90": rank(0.9), "p99": rank(0.99), "max": rank(1.0), "frames": sorted.len() })
}

/// `6.6 MB`, `812 kB`, `512 B` (decimal units, as file managers show).
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.0} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = frame_percentiles(&ms);
        assert_eq!(
            (p["p50"].as_f64(), p["p90"].as_f64(), p["p99"].as_f64(), p["max"].as_f64()),
            (Some(50.0), Some(90.0), Some(99.0), Some(100.0))
        );
        assert!(frame_percentiles(&[])["p50"].is_null());
    }

    #[test]
    fn sizes_read_as_people_expect() {
        assert_eq!(size_text(512), "512 B");
        assert_eq!(size_text(812_345), "812 kB");
        assert_eq!(size_text(6_600_000), "6.6 MB");
    }

    #[test]
    fn range_text_names_its_source() {
        let r = FrameRange { start: 0.0, frames: 48, fps: 24.0, source: RangeSource::Stage };
        assert_eq!(r.text(), "48 frames, time codes 0-48 at 24 fps (the stage's startTimeCode-endTimeCode)");
        let one = FrameRange { frames: 1, source: RangeSource::Flag, ..r };
        assert_eq!(one.text(), "1 frame, time codes 0-1 at 24 fps (--frames)");
    }
}
