//! `usdsim prepare`: turn render meshes into a deformable body. `usdsim-usd` reads the
//! meshes and authors the layer; `usdsim-core` builds the tetrahedra; this wires the
//! two and prints what was made.

use std::time::Instant;

use anyhow::{Context, Result};
use usdsim_core::{triangle_quality, voxel_tets, VoxelSize};
use usdsim_usd::prepare::{
    check_prepare_output, write_surface_body, write_volume_body, MaterialChoice, NewMaterial, Source, SurfaceBody,
    VolumeBody,
};
use usdsim_usd::{Dialect, ImportError, InputStage, Location};

use crate::cli::{BendArg, DialectArg, PrepareArgs};

/// The resolution when neither `--resolution` nor `--cell` is given: fine enough to
/// follow a teapot's spout, coarse enough to simulate in real time.
const DEFAULT_RESOLUTION: u32 = 16;

/// Reads the input, builds the body and writes the layer.
pub fn prepare(args: &PrepareArgs) -> Result<()> {
    let input = InputStage::open(&args.input)?;
    let mut source = Source::gather(&input, &args.prim)?;
    let file = args.input.display().to_string();
    if let Some((at, api)) = &source.existing_body {
        if !args.force {
            return Err(ImportError::Invalid {
                at: Location { file, prim: at.clone(), property: None },
                reason: format!(
                    "already applies {api}; prepare would author a second body over it (pass --force to do it anyway)"
                ),
            }
            .into());
        }
    }
    check_prepare_output(&source, &args.output)?;
    let dialect = match args.dialect {
        DialectArg::Omniphysics => Dialect::Omni,
        DialectArg::Physics => Dialect::Aousd,
    };
    let material = match &args.material {
        Some(path) => MaterialChoice::Existing(path.clone()),
        None => MaterialChoice::New(NewMaterial {
            youngs_pa: args.youngs,
            poisson: args.poisson,
            density_kg_m3: args.density,
            friction: args.friction,
            thickness_m: args.thickness,
        }),
    };
    let density = match &material {
        MaterialChoice::Existing(path) => source.material_density(path)?,
        MaterialChoice::New(m) => source.density_from_si(m.density_kg_m3),
    };
    let kg = source.stage.kilograms_per_unit;
    let mpu = source.stage.meters_per_unit;
    for (path, why) in &source.skipped {
        if !args.quiet {
            eprintln!("warning: {file}: {path}: skipped ({why})");
        }
    }
    if args.volume {
        let triangles = source.world_triangles();
        let size = match (args.cell, args.resolution) {
            (Some(h), _) => VoxelSize::Cell(h),
            (None, n) => VoxelSize::Resolution(n.unwrap_or(DEFAULT_RESOLUTION)),
        };
        let started = Instant::now();
        let tets = voxel_tets(&triangles, size, args.max_cells)
            .with_context(|| format!("{file}: {}: cannot voxelise its {} triangles", source.prim, triangles.len()))?;
        let voxelise_ms = started.elapsed().as_secs_f64() * 1e3;
        let volume = tets.volume();
        let authored =
            write_volume_body(&source, &VolumeBody { tets: &tets, material: &material, dialect }, &args.output)?;
        if !args.quiet {
            let [nx, ny, nz] = tets.dims;
            eprintln!(
                "prepared {} as a volume body from {} mesh{} ({} triangles) in {voxelise_ms:.0} ms",
                source.prim,
                source.meshes.len(),
                if source.meshes.len() == 1 { "" } else { "es" },
                triangles.len()
            );
            eprintln!(
                "  grid {nx} x {ny} x {nz} of {:.4} (stage units) cells: {} kept ({} inside, {} touching the surface)",
                tets.cell,
                tets.kept_cells,
                tets.kept_cells - tets.surface_cells,
                tets.surface_cells
            );
            eprintln!(
                "  {}: {} tets, {} vertices, {} surface triangles",
                authored.sim_mesh,
                tets.tets.len(),
                tets.points.len(),
                tets.surface.len()
            );
            eprintln!(
                "  mass {:.4} ({:.4} kg) = density {density:.4} x volume {volume:.6} (stage units; {:.6} m³)",
                density * volume,
                density * volume * kg,
                volume * mpu.powi(3)
            );
            eprintln!("  worst tet quality {:.3} (mean ratio; 1 is a regular tetrahedron)", tets.worst_quality());
            eprintln!("  material {}; bind pose on {} render mesh(es)", authored.material, authored.posed.len());
            eprintln!("wrote {}", args.output.display());
        }
    } else {
        let mesh = match source.meshes.as_slice() {
            [one] => one.clone(),
            many => {
                let names: Vec<&str> = many.iter().map(|m| m.prim_path.as_str()).collect();
                return Err(ImportError::Invalid {
                    at: Location { file, prim: source.prim.clone(), property: None },
                    reason: format!(
                        "a surface body is one mesh, and {} are below this prim ({}); give --prim one of them",
                        many.len(),
                        names.join(", ")
                    ),
                }
                .into());
            }
        };
        let bend_rest = args.bend_default == BendArg::Rest;
        let body = SurfaceBody { mesh: &mesh, material: &material, dialect, bend_rest };
        let authored = write_surface_body(&source, &body, &args.output)?;
        if !args.quiet {
            let world: Vec<_> = mesh.world_triangles().collect();
            let area: f64 = world.iter().map(|t| 0.5 * (t[1] - t[0]).cross(t[2] - t[0]).length()).sum();
            let worst = world.iter().map(|t| triangle_quality(*t)).fold(1.0, f64::min);
            let thickness = match &material {
                MaterialChoice::New(m) => m.thickness_m / mpu,
                MaterialChoice::Existing(_) => f64::NAN,
            };
            eprintln!(
                "prepared {} as a surface body: {} ({} vertices, {} triangles)",
                source.prim,
                authored.sim_mesh,
                mesh.local_points.len(),
                mesh.triangles.len()
            );
            if thickness.is_finite() {
                let mass = density * area * thickness;
                eprintln!(
                    "  mass {mass:.4} ({:.4} kg) = density {density:.4} x area {area:.4} x thickness {thickness:.4} (stage units)",
                    mass * kg
                );
            }
            eprintln!("  worst triangle quality {worst:.3} (1 is equilateral)");
            eprintln!("  material {}", authored.material);
            eprintln!("wrote {}", args.output.display());
        }
    }
    Ok(())
}
