//! `Simulation`: a stage stepped frame by frame from Python, for loops that read the
//! bodies and drive kinematic ones between frames (a robot's controller, a rig), and
//! that save what they simulated as a bake.

use std::path::PathBuf;

use numpy::{AllowTypeChange, PyArray2, PyArrayLike2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use usdsim::report::Reporter;
use usdsim::run::{within, Setup};
use usdsim_core::BodyId;
use usdsim_usd::{Bake, Imported, NonFinite};

use crate::errors::{raise, to_py};
use crate::inspect::json_to_py;
use crate::settings::run_args;

/// Frames a simulation's record grows by when it fills.
const GROW_FRAMES: u32 = 256;

/// A stage being simulated in process, one frame (`1 / timeCodesPerSecond`) per step.
///
/// `Simulation(input, **settings)` takes the settings `usdsim.bake` takes (substeps,
/// self_contact, threads, iterations, set=[...], ...), validates and imports the stage
/// as a run does and holds frame 0. Every frame stepped is kept, so that `save` writes
/// the bake a run of as many frames would have written.
#[pyclass(module = "usdsim._usdsim")]
pub struct Simulation {
    setup: Setup,
    bake: Bake,
    /// The last frame simulated.
    frame: u32,
    /// Kinematic bodies driven from Python, each with its latest target (world space):
    /// held there, instead of following the stage's animation, from then on.
    targets: Vec<(BodyId, Vec<glam::Vec3>)>,
    /// Set once a frame diverged: that frame is not kept and stepping stops.
    diverged: Option<NonFinite>,
    warnings: serde_json::Value,
}

impl Simulation {
    fn imported(&self) -> &Imported {
        &self.setup.imported
    }

    /// The body of prim `path`.
    fn body(&self, path: &str) -> PyResult<BodyId> {
        self.setup.solver.body_ids().find(|&b| self.imported().binding.body(b).prim_path == path).ok_or_else(|| {
            PyKeyError::new_err(format!("{path}: no simulated body has this prim path; sim.bodies lists them"))
        })
    }

    /// One frame: the stage's animation, then Python's targets over it, then the solver.
    fn advance(&mut self) -> Result<Option<NonFinite>, usdsim_core::SceneError> {
        let frame = self.frame + 1;
        let Setup { imported, solver, pool, .. } = &mut self.setup;
        within(pool.as_ref(), || -> Result<(), usdsim_core::SceneError> {
            imported.binding.apply_targets(solver, imported.stage.start_time_code + f64::from(frame))?;
            for (body, target) in &self.targets {
                solver.set_kinematic_targets(*body, target)?;
            }
            solver.step_frame();
            Ok(())
        })?;
        if frame > self.bake.last_frame() {
            self.bake.extend_to(frame + GROW_FRAMES);
        }
        self.bake.record(frame, solver);
        if let Some(bad) = self.bake.first_non_finite(frame) {
            self.bake.end_before(frame);
            return Ok(Some(bad));
        }
        self.frame = frame;
        Ok(None)
    }

    /// An (N, 3) float32 array filled in one pass over `values` (N = `len`).
    fn array<'py>(py: Python<'py>, len: usize, fill: impl FnOnce(&mut [f32])) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let array = PyArray2::<f32>::zeros(py, [len, 3], false);
        // A new array, not yet shared with Python: this is its only view.
        let mut view = array.try_readwrite()?;
        fill(view.as_slice_mut()?);
        drop(view);
        Ok(array)
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (input, *, substeps=None, self_contact=None, threads=None, **overrides))]
    fn new(
        py: Python<'_>,
        input: PathBuf,
        substeps: Option<Bound<'_, PyAny>>,
        self_contact: Option<Bound<'_, PyAny>>,
        threads: Option<Bound<'_, PyAny>>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Simulation> {
        let named = [("substeps", substeps), ("self_contact", self_contact), ("threads", threads)];
        let mut args = run_args(py, input, None, None, &named, overrides)?;
        args.quiet = true;
        let mut reporter = Reporter::silent();
        let setup = py.detach(|| usdsim::run::set_up(&args, &mut reporter)).map_err(|err| to_py(py, &err))?;
        let mut bake = Bake::new(&setup.imported, GROW_FRAMES);
        bake.record_fingerprint(&setup.fingerprint);
        bake.record_overrides(&args.set);
        bake.record(0, &setup.solver);
        Ok(Simulation {
            setup,
            bake,
            frame: 0,
            targets: Vec::new(),
            diverged: None,
            warnings: reporter.warnings_json(),
        })
    }

    /// Simulates `n` more frames. Ctrl-C between frames raises `KeyboardInterrupt` with
    /// the frames before it kept; a frame that diverges raises `DivergedError` and is not
    /// kept, nor is anything after it.
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u32) -> PyResult<()> {
        for _ in 0..n {
            if let Some(bad) = &self.diverged {
                return Err(self.diverged_error(py, bad));
            }
            py.check_signals()?;
            let step = py.detach(|| self.advance()).map_err(|err| to_py(py, &err.into()))?;
            if let Some(bad) = step {
                let err = self.diverged_error(py, &bad);
                self.diverged = Some(bad);
                return Err(err);
            }
        }
        Ok(())
    }

    /// The last frame simulated (0: the initial state).
    #[getter]
    fn frame(&self) -> u32 {
        self.frame
    }

    /// Seconds simulated: `frame / timeCodesPerSecond`.
    #[getter]
    fn time(&self) -> f64 {
        f64::from(self.frame) / self.imported().stage.time_codes_per_second
    }

    /// The time code of the last frame: `startTimeCode + frame`, where a bake writes it.
    #[getter]
    fn time_code(&self) -> f64 {
        self.imported().stage.start_time_code + f64::from(self.frame)
    }

    /// The prim paths of the simulated bodies, in the order they were imported.
    #[getter]
    fn bodies(&self) -> Vec<String> {
        self.setup.solver.body_ids().map(|b| self.imported().binding.body(b).prim_path.clone()).collect()
    }

    /// The warnings the import gave, as `usdsim --json` lists them.
    #[getter]
    fn warnings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, &self.warnings)
    }

    /// Body `path`'s vertex positions now, world space in stage units, as an (N, 3)
    /// float32 array (a copy: later steps do not change it).
    fn points<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let positions = self.setup.solver.positions_f64(self.body(path)?);
        // The solver keeps positions in f64; each is rounded once, straight into the array.
        Simulation::array(py, positions.len(), |out| {
            for (o, p) in out.chunks_exact_mut(3).zip(positions) {
                o.copy_from_slice(&p.as_vec3().to_array());
            }
        })
    }

    /// Body `path`'s vertex velocities now, world space, stage units per second, as an
    /// (N, 3) float32 array.
    fn velocities<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let velocities = self.setup.solver.velocities(self.body(path)?);
        Simulation::array(py, velocities.len(), |out| out.copy_from_slice(bytemuck::cast_slice(velocities)))
    }

    /// Drives kinematic body `path` to `points` (an (N, 3) array, world space, stage
    /// units) at the end of the next frame: its vertices move there linearly across the
    /// frame's substeps and push what they meet. From then on Python drives the body:
    /// it holds at its latest target instead of following the stage's animation.
    /// Any array-like of numbers is taken (float64 arrays, nested lists), converted to
    /// float32 once by numpy; a float32 C-contiguous array is read in place.
    fn set_kinematic_target(&mut self, path: &str, points: Bound<'_, PyAny>) -> PyResult<()> {
        let body = self.body(path)?;
        // Extracted by hand rather than in the signature, so that a shape or dtype
        // numpy cannot convert is a ValueError naming the prim, not a bare TypeError.
        let points: PyArrayLike2<'_, f32, AllowTypeChange> = points.extract().map_err(|err| {
            PyValueError::new_err(format!("{path}: targets must be an (N, 3) array of numbers: {err}"))
        })?;
        // Two-dimensional by the extraction; the rows must be points.
        let shape = points.shape();
        if shape[1] != 3 {
            return Err(PyValueError::new_err(format!("{path}: targets must be an (N, 3) array, not {shape:?}")));
        }
        let target: Vec<glam::Vec3> = match points.as_slice() {
            Ok(flat) => flat.chunks_exact(3).map(glam::Vec3::from_slice).collect(),
            Err(_) => points.as_array().rows().into_iter().map(|r| glam::Vec3::new(r[0], r[1], r[2])).collect(),
        };
        // The solver checks the body is kinematic, the count and finiteness.
        self.setup
            .solver
            .set_kinematic_targets(body, &target)
            .map_err(|err| PyValueError::new_err(format!("{path}: {err}")))?;
        match self.targets.iter_mut().find(|(b, _)| *b == body) {
            Some((_, held)) => *held = target,
            None => self.targets.push((body, target)),
        }
        Ok(())
    }

    /// Writes every frame simulated so far as a bake into `output` (`.usda`, `.usdc`
    /// or `.usd`), as `usdsim run --frames <frame>` would: a layer that sublayers the
    /// input. Never the input or a file it loads. Stepping may go on after.
    fn save(&self, py: Python<'_>, output: PathBuf) -> PyResult<()> {
        let mut bake = self.bake.clone();
        py.detach(|| {
            if self.frame < bake.last_frame() {
                bake.end_before(self.frame + 1);
            }
            bake.check_output(&output)?;
            bake.write(&output)
        })
        .map_err(|err| to_py(py, &err.into()))
    }
}

impl Simulation {
    fn diverged_error(&self, py: Python<'_>, bad: &NonFinite) -> PyErr {
        let file = self.setup.input.display().to_string();
        let message = format!(
            "{file}: the simulation diverged at frame {}: {}.{} is not finite; the frames before it are kept",
            bad.frame, bad.prim, bad.attribute
        );
        raise(
            py,
            "DivergedError",
            &message,
            "diverged",
            [Some(file), Some(bad.prim.clone()), Some(bad.attribute.to_string())],
            3,
            Vec::new(),
        )
    }
}
