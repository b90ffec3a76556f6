//! The end-of-run summary, as text for people and JSON for pipelines.

use serde_json::json;
use std::path::PathBuf;
use usdsim_core::SolverStats;

/// What a finished run reports.
#[derive(Debug)]
pub struct Summary {
    /// The input stage.
    pub input: PathBuf,
    /// The written layer.
    pub output: PathBuf,
    /// Problem sizes.
    pub stats: SolverStats,
    /// Colliders in the scene.
    pub colliders: usize,
    /// Frames simulated (frame 0, the initial state, is written too).
    pub frames: u32,
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
    /// Importer, command-line and solver warnings.
    pub warnings: Vec<String>,
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
}

impl Summary {
    /// Milliseconds of simulation per frame.
    pub fn ms_per_frame(&self) -> f64 {
        1e3 * self.simulate_s / self.frames.max(1) as f64
    }

    /// Constraint projections per second of simulation time.
    pub fn projections_per_second(&self) -> f64 {
        self.stats.projections_per_frame as f64 * self.frames as f64 / self.simulate_s.max(1e-9)
    }

    /// Human-readable lines.
    pub fn text(&self) -> String {
        let s = &self.stats;
        format!(
            "wrote {}\n  bodies {}  vertices {}  tetrahedra {}  triangles {}  colliders {}\n  frames {}  substeps {}  iterations {}  threads {}\n  wall time {:.2} s (import {:.2} s, simulate {:.2} s, export {:.2} s)  {:.1} ms/frame  {:.2e} projections/s",
            self.output.display(),
            s.bodies,
            s.vertices,
            s.tets,
            s.triangles,
            self.colliders,
            self.frames,
            self.substeps,
            self.iterations,
            self.threads,
            self.import_s + self.simulate_s + self.export_s,
            self.import_s,
            self.simulate_s,
            self.export_s,
            self.ms_per_frame(),
            self.projections_per_second(),
        ) + &self.torn_text()
            + &format!("\n  look at it: usdsim preview {}", self.output.display())
    }

    /// One line per body whose topology changed (tearing), empty otherwise.
    fn torn_text(&self) -> String {
        self.bodies
            .iter()
            .filter(|b| b.topology_changes > 0)
            .map(|b| {
                format!("\n  {}: torn ({} topology changes), now {} vertices", b.prim, b.topology_changes, b.vertices)
            })
            .collect()
    }

    /// The machine-readable form.
    pub fn json(&self) -> serde_json::Value {
        let s = &self.stats;
        json!({
            "input": self.input,
            "output": self.output,
            "bodies": s.bodies,
            "vertices": s.vertices,
            "tetrahedra": s.tets,
            "triangles": s.triangles,
            "hinges": s.hinges,
            "colliders": self.colliders,
            "frames": self.frames,
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
            "warnings": self.warnings,
            "final": self.bodies.iter().map(|b| json!({
                "prim": b.prim,
                "vertices": b.vertices,
                "mass": b.mass,
                "centre_of_mass": b.centre_of_mass,
                "lowest": b.lowest,
                "topology_changes": b.topology_changes,
            })).collect::<Vec<_>>(),
        })
    }
}
