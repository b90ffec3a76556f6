//! The bake as one driver: the frame loop every caller shares (authored animation
//! applied, the solver stepped, the frame recorded and checked), streamed to disk in
//! chunks so that memory is bounded by one chunk, not by the bake.

use std::path::{Path, PathBuf};

use usdsim_core::{SceneError, Solver};

use crate::error::ExportError;
use crate::export::{check_writable, destination, ClipSet};
use crate::import::Imported;
use crate::resume::{open_bake_layer, read_state, ResumeError};
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
    /// The existing output cannot be continued (`--resume`).
    #[error(transparent)]
    Resume(#[from] ResumeError),
}

/// Where a resumed bake ([`Baker::resume`]) took up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumed {
    /// The frame it continues from: the first frame of the newest clip whose state it
    /// took (0: nothing to continue, it bakes from the start).
    pub from: u32,
    /// Simulation meshes whose `points` or `velocities` at that frame were edited in the
    /// clip: the run continues from the edited values.
    pub edited: Vec<String>,
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
        let mut baker = Baker::start(imported, solver, output, &output_abs, frames, chunk, single)?;
        baker.bake.record(0, &baker.solver);
        Ok(baker)
    }

    /// The bake's parts before any frame is recorded: a single layer, or a clip set
    /// whose first window starts at frame 0.
    fn start(
        imported: &'a Imported,
        solver: Solver,
        output: &Path,
        output_abs: &Path,
        frames: u32,
        chunk: u32,
        single: bool,
    ) -> Result<Baker<'a>, ExportError> {
        let (bake, clips) = if single {
            (Bake::new(imported, frames), None)
        } else {
            let mut bake = Bake::window(imported, 0, chunk - 1);
            bake.hold_topology();
            (bake, Some(ClipSet::new(output_abs, output)?))
        };
        Ok(Baker {
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
        })
    }

    /// Continues the bake an earlier run of the same input and settings left in
    /// `output` (interrupted, or shorter) up to `frames`, as [`Baker::new`] would have
    /// made it: from the first frame of the newest clip whose state fits (see
    /// `resume.rs`), the clips before it kept. `solver` must be freshly built, as for
    /// [`Baker::new`], and `fingerprint` is [`Imported::fingerprint`] of this run.
    ///
    /// Nothing to continue (no output yet, a single-layer output, no clip with a state
    /// before `frames`) bakes from frame 0. An output or clip with another fingerprint,
    /// or a clip set with a clip missing, is refused.
    pub fn resume(
        imported: &'a Imported,
        mut solver: Solver,
        output: &Path,
        frames: u32,
        chunk: Option<u32>,
        fingerprint: &str,
    ) -> Result<(Baker<'a>, Resumed), BakeError> {
        check_writable(&imported.stage, output)?;
        let (output_abs, _) = destination(&imported.stage, output)?;
        if output_abs.exists() {
            open_bake_layer(&output_abs, output, fingerprint)?;
        }
        let chunk = chunk.unwrap_or_else(|| imported.default_chunk()).max(1);
        let single = frames <= chunk;
        let folder = crate::export::clip_folder(&output_abs);
        let shown_folder = crate::export::clip_folder(output);
        // The newest clip start (a multiple of the chunk, before `frames`) with a clip on disk.
        let mut from = 0;
        if !single {
            let mut first = (frames / chunk) * chunk;
            while first > 0 && !crate::export::clip_file(&folder, first).exists() {
                first -= chunk;
            }
            from = first;
        }
        // Temporary files of a run killed mid-write (`export/layer_file.rs` names them
        // `.NAME.tmp-PID`) are no part of the bake.
        let output_name = output_abs.file_name().map(|n| format!(".{}.tmp-", n.to_string_lossy()));
        let output_dir = output_abs.parent().map(Path::to_path_buf);
        for (dir, leftover) in [(Some(folder.clone()), Some(".".to_string())), (output_dir, output_name)] {
            let (Some(dir), Some(leftover)) = (dir, leftover) else { continue };
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with(&leftover) && name.contains(".tmp-") {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let mut resumed = Resumed::default();
        if from > 0 {
            let shown = crate::export::clip_file(&shown_folder, from);
            let clip_err = |reason: String| ResumeError::Clip { path: shown.clone(), reason };
            let layer = open_bake_layer(&crate::export::clip_file(&folder, from), &shown, fingerprint)?;
            let (state, edited) = read_state(&layer, imported, from).map_err(clip_err)?;
            solver.can_resume().map_err(clip_err)?;
            solver.restore(&state)?;
            imported.binding.apply_targets(&mut solver, imported.stage.start_time_code + f64::from(from))?;
            solver.settle_targets();
            resumed = Resumed { from, edited };
        }
        let mut baker = Baker::start(imported, solver, output, &output_abs, frames, chunk, single)?;
        if from > 0 {
            let clips = baker.clips.as_mut().expect("a resumed bake streams");
            for k in 0..from / chunk {
                let first = k * chunk;
                let shown = crate::export::clip_file(&shown_folder, first);
                let layer = open_bake_layer(&crate::export::clip_file(&folder, first), &shown, fingerprint)?;
                clips.adopt(first, &layer)?;
            }
            baker.bake.resume_topology(&baker.solver);
            baker.bake.next_window(from, (from + chunk - 1).min(frames));
            baker.done = from;
        }
        baker.record_fingerprint(fingerprint);
        let frame = baker.done;
        baker.record_frame(frame);
        Ok((baker, resumed))
    }

    /// Records the run's fingerprint ([`Imported::fingerprint`]) in every layer the bake
    /// writes, so a later `--resume` can check it continues the same bake.
    pub fn record_fingerprint(&mut self, fingerprint: &str) {
        self.bake.record_fingerprint(fingerprint);
    }

    /// Records frame `frame` from the solver; at a clip's first frame also the state a
    /// later run resumes from.
    fn record_frame(&mut self, frame: u32) {
        self.bake.record(frame, &self.solver);
        if self.clips.is_some() && frame == self.bake.first_frame() && frame > 0 {
            self.bake.record_resume_state(self.solver.resume_state());
        }
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
        // With `--chunk 1` the window of the frame a bake starts at (0, or the resumed
        // one) is complete before any step. It is closed here rather than when the
        // baker is made, because the caller records the fingerprint and overrides in
        // between, and the clip written must hold them.
        self.close_window(self.done)?;
        let frame = self.done + 1;
        self.imported.advance(&mut self.solver, frame)?;
        self.record_frame(frame);
        // Every value the frame would write is checked (points, velocities, rest
        // shapes, bend angles, embedded meshes, rigid poses): a diverged frame is never
        // written, the frames before it are.
        if let Some(bad) = self.bake.first_non_finite(frame) {
            self.bake.end_before(frame);
            return Ok(Some(bad));
        }
        self.done = frame;
        self.close_window(frame)?;
        Ok(None)
    }

    /// Writes the clip out and starts the next window when `frame` is the window's last
    /// and the bake goes on past it.
    fn close_window(&mut self, frame: u32) -> Result<(), ExportError> {
        if let Some(clips) = &mut self.clips {
            if frame == self.bake.last_frame() && frame < self.frames {
                let t = std::time::Instant::now();
                self.written.push(clips.write_clip(&self.bake)?);
                self.export_s += t.elapsed().as_secs_f64();
                self.bake.next_window(frame + 1, (frame + self.chunk).min(self.frames));
            }
        }
        Ok(())
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
