//! `usdsim upgrade`: a legacy PhysX deformable asset in the OmniPhysics schema.
//! `usdsim-usd` reads the asset and authors the layer; this wires it and prints what
//! was upgraded.

use anyhow::Result;
use usdsim_usd::prepare::{upgrade as author, UpgradeError};
use usdsim_usd::InputStage;

use crate::cli::UpgradeArgs;

/// Reads the input, writes the upgraded layer and says what it holds.
pub fn upgrade(args: &UpgradeArgs) -> Result<()> {
    let input = InputStage::open(&args.input)?;
    let done = match author(&input, &args.output) {
        Ok(done) => done,
        // The import's and the writer's own errors, so the exit status says which.
        Err(UpgradeError::Import(e)) => return Err(e.into()),
        Err(UpgradeError::Export(e)) => return Err(e.into()),
        Err(other) => return Err(other.into()),
    };
    if args.quiet {
        return Ok(());
    }
    for (prim, api) in &done.bodies {
        eprintln!("upgraded {prim} ({api}) to OmniPhysicsDeformableBodyAPI");
    }
    for prim in &done.attachments {
        eprintln!(
            "upgraded {prim} (PhysxPhysicsAttachment) to OmniPhysics attachments; the legacy prim is deactivated"
        );
    }
    for (prim, why) in &done.kept {
        eprintln!("warning: kept {prim} as a PhysxPhysicsAttachment: {why}");
    }
    eprintln!("wrote {}", args.output.display());
    Ok(())
}
