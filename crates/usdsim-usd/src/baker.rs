//! The bake as one driver: the frame loop every caller shares (authored animation
//! applied, the solver stepped, the frame recorded and checked), streamed to disk in
//! chunks so that memory is bounded by one chunk, not by the bake.

use std::path::{Path, PathBuf};

use usdsim_core::{SceneError, Solver};

use crate::error::ExportError;
use crate::export::{check_writable, destination, ClipSet};
use crate::import::Imported;
use crate::stage::attribute_override::AttributeOverride;
use crate::{Bake, NonFinite};

/// Frames per clip without `--chunk`: as many as fit in this many bytes of samples,
/// so peak memory is bounded whatever the mesh.
pub const DEFAULT_CHUNK_BYTES: u64 = 64 << 20;

/// The longest default chunk: a bake of a small mesh up to this many frames stays a
/// single layer.
pub const MAX_DEFAULT_CHUNK: u32 = 1000;

impl Imported {
    /// Advances `solver` to frame `frame`: kinematic bodies, animated attachment frames
    /// and kinematic rigid bodies follow their authored animation to the frame's time
    /// code (`startTimeCode + frame`), then the solver steps one frame.
    ///
    /// An error means the import and the solver disagree (a solver not built from this
    /// import's scene).
    pub fn advance(&self, solver: &mut Solver, frame: u32) -> Result<(), SceneError> {
        self.binding.apply_targets(solver, self.stage.start_time_code + f64::from(frame))?;
        solver.step_frame();
        Ok(())
    }

    /// Frames per clip that keep one chunk of samples within [`DEFAULT_CHUNK_BYTES`]
    /// (at most [`MAX_DEFAULT_CHUNK`]): points, velocities (12 bytes each) and the rest
    /// shape of every body, and the points, velocities and normals of every embedded mesh.
    pub fn default_chunk(&self) -> u32 {
        let body_bytes: u64 = self
            .scene
            .bodies
            .iter()
            .map(|b| {
                let rest = if b.plastic.is_some() || b.materials.iter().any(|m| m.plastic.is_some()) { 12 } else { 0 };
                b.positions.len() as u64 * (24 + rest)
            })
            .sum();
        let embedded_bytes: u64 = self.scene.embedded.iter().map(|e| e.bind_points.len() as u64 * 36).sum();
        let per_frame = (body_bytes + embedded_bytes + 64 * self.scene.rigid_bodies.len() as u64).max(1);
        (DEFAULT_CHUNK_BYTES / per_frame).clamp(1, u64::from(MAX_DEFAULT_CHUNK)) as u32
    }
}

/// Why a bake could not go on.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The import and the solver disagree.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A clip or layer could not be written.
    #[error(transparent)]
    Export(#[from] ExportError),
}

/// A bake in progress: owns the solver, records every frame, and streams the frames
/// out as value clips of `chunk` frames each ([`crate::clip_folder`]); a bake of at most
/// `chunk` frames (`--frames` ≤ chunk) stays one layer. Call [`Baker::step`] until [`Baker::frame`] reaches
/// [`Baker::frames`] (or stop earlier: interrupted, diverged), then [`Baker::finish`],
/// which writes a playable output ending at the last complete frame.
pub struct Baker<'a> {
    imported: &'a Imported,
    solver: Solver,
    /// The output as given, for messages.
    output: PathBuf,
    frames: u32,
    chunk: u32,
    bake: Bake,
    /// `None`: a single layer.
    clips: Option<ClipSet>,
    /// The last complete frame recorded.
    done: u32,
    written: Vec<PathBuf>,
    /// Seconds spent writing clips so far.
    export_s: f64,
}

impl<'a> Baker<'a> {
    /// Starts a bake of frames `0..=frames` of `imported` with `solver` (built from its
    /// scene) into `output`, `chunk` frames per clip ([`Imported::default_chunk`] when
    /// `None`). Checks first that the output can be written, then records frame 0.
    pub fn new(
        imported: &'a Imported,
        solver: Solver,
        output: &Path,
        frames: u32,
        chunk: Option<u32>,
    ) -> Result<Baker<'a>, ExportError> {
        check_writable(&imported.stage, output)?;
        let (output_abs, _) = destination(&imported.stage, output)?;

        let chunk = chunk.unwrap_or_else(|| imported.default_chunk()).max(1);
        let single = frames <= chunk;
        let (bake, clips) = if single {
            (Bake::new(imported, frames), None)
        } else {
            let mut bake = Bake::window(imported, 0, chunk - 1);
            bake.hold_topology();
            (bake, Some(ClipSet::new(&output_abs, output)?))
        };
        let mut baker = Baker {
            imported,
            solver,
            output: output.to_path_buf(),
            frames,
            chunk,
            bake,
            clips,
            done: 0,
            written: Vec::new(),
            export_s: 0.0,
        };
        baker.bake.record(0, &baker.solver);
        Ok(baker)
    }

    /// Records the run's `--set` overrides in the output layer's `customLayerData`
    /// ([`Bake::record_overrides`]), so a bake says what it was made with.
    pub fn record_overrides(&mut self, overrides: &[AttributeOverride]) {
        self.bake.record_overrides(overrides);
    }

    /// Simulates and records the next frame. `Ok(Some(bad))` says it diverged: that
    /// frame is not kept, and [`Baker::finish`] writes the frames before it. A chunk
    /// that this frame completes is written out and dropped from memory.
    ///
    /// # Panics
    ///
    /// If every frame is already baked: a caller bug.
    pub fn step(&mut self) -> Result<Option<NonFinite>, BakeError> {
        assert!(self.done < self.frames, "the bake already holds all {} frames", self.frames);
        let frame = self.done + 1;
        self.imported.advance(&mut self.solver, frame)?;
        self.bake.record(frame, &self.solver);
        // Every value the frame would write is checked (points, velocities, rest
        // shapes, bend angles, embedded meshes, rigid poses): a diverged frame is never
        // written, the frames before it are.
        if let Some(bad) = self.bake.first_non_finite(frame) {
            self.bake.end_before(frame);
            return Ok(Some(bad));
        }
        self.done = frame;
        if let Some(clips) = &mut self.clips {
            if frame == self.bake.last_frame() && frame < self.frames {
                let t = std::time::Instant::now();
                self.written.push(clips.write_clip(&self.bake)?);
                self.export_s += t.elapsed().as_secs_f64();
                self.bake.next_window(frame + 1, (frame + self.chunk).min(self.frames));
            }
        }
        Ok(None)
    }

    /// The last complete frame (0 before any step).
    pub fn frame(&self) -> u32 {
        self.done
    }

    /// The last frame the bake is to reach.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Frames per clip.
    pub fn chunk(&self) -> u32 {
        self.chunk
    }

    /// Whether the output is a clip set (else one layer).
    pub fn streams(&self) -> bool {
        self.clips.is_some()
    }

    /// The solver, at frame [`Baker::frame`].
    pub fn solver(&self) -> &Solver {
        &self.solver
    }

    /// Seconds spent writing clips so far.
    pub fn export_seconds(&self) -> f64 {
        self.export_s
    }

    /// Every file written so far (clips), in order.
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }

    /// Writes what is not yet on disk: the last (possibly partial) clip, the manifest
    /// and the output layer, whose `endTimeCode` is the last complete frame; or, for a
    /// single-layer bake, the layer. Returns what the bake wrote and the solver.
    pub fn finish(mut self) -> Result<Finished, ExportError> {
        let t = std::time::Instant::now();
        if self.done < self.bake.last_frame() {
            self.bake.end_before(self.done + 1);
        }
        match &mut self.clips {
            None => {
                self.bake.write(&self.output)?;
                self.written.push(self.output.clone());
            }
            Some(clips) => {
                if !self.bake.is_empty() {
                    self.written.push(clips.write_clip(&self.bake)?);
                }
                self.written.extend(clips.write_top(&self.bake, self.done)?);
            }
        }
        let export_s = self.export_s + t.elapsed().as_secs_f64();
        Ok(Finished { solver: self.solver, last_frame: self.done, written: self.written, export_s })
    }
}

/// A finished (or stopped) bake.
pub struct Finished {
    /// The solver at the last complete frame.
    pub solver: Solver,
    /// The last frame the output holds.
    pub last_frame: u32,
    /// Every file written, clips first, the output layer last.
    pub written: Vec<PathBuf>,
    /// Seconds spent writing, clips included.
    pub export_s: f64,
}
