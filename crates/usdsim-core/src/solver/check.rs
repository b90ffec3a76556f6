//! Checks on a scene's bodies before anything is built: finite values, indices in
//! range, sane materials and plasticity. Each failure is a [`SceneError`] naming the body.

use super::*;

fn check_finite(body: &Body, what: &'static str, values: &[Vec3]) -> Result<(), SceneError> {
    if values.iter().all(|p| p.is_finite()) {
        Ok(())
    } else {
        Err(SceneError::NonFinite { body: body.name.clone(), what })
    }
}

fn check_indices<const N: usize>(
    body: &Body,
    what: &'static str,
    elements: &[[u32; N]],
    used: usize,
    len: usize,
) -> Result<(), SceneError> {
    for e in elements {
        for &i in &e[..used] {
            if i as usize >= len {
                return Err(SceneError::IndexOutOfRange { body: body.name.clone(), what, index: i as u64, len });
            }
        }
    }
    Ok(())
}

/// Checks everything the solver indexes or divides by, so building never panics.
pub(super) fn validate(body: &Body) -> Result<(), SceneError> {
    let n = body.positions.len();
    if body.velocities.len() != n {
        return Err(SceneError::LengthMismatch {
            body: body.name.clone(),
            what: "velocities",
            expected: n,
            found: body.velocities.len(),
        });
    }
    check_finite(body, "positions", &body.positions)?;
    check_finite(body, "velocities", &body.velocities)?;
    check_finite(body, "rest points", &body.rest_points)?;
    let elements = match body.kind {
        BodyKind::Volume => {
            check_indices(body, "tet vertex", &body.tets, 4, n)?;
            body.tets.len()
        }
        BodyKind::Surface => {
            check_indices(body, "triangle vertex", &body.triangles, 3, n)?;
            body.triangles.len()
        }
    };
    if body.rest_elements.len() != elements {
        return Err(SceneError::LengthMismatch {
            body: body.name.clone(),
            what: "rest elements",
            expected: elements,
            found: body.rest_elements.len(),
        });
    }
    let used = if body.kind == BodyKind::Volume { 4 } else { 3 };
    check_indices(body, "rest point", &body.rest_elements, used, body.rest_points.len())?;
    if !body.element_materials.is_empty() {
        if body.element_materials.len() != elements {
            return Err(SceneError::LengthMismatch {
                body: body.name.clone(),
                what: "element materials",
                expected: elements,
                found: body.element_materials.len(),
            });
        }
        if let Some(&bad) =
            body.element_materials.iter().find(|&&m| m != BODY_MATERIAL && m as usize >= body.materials.len())
        {
            return Err(SceneError::IndexOutOfRange {
                body: body.name.clone(),
                what: "element material",
                index: bad as u64,
                len: body.materials.len(),
            });
        }
    }
    if !body.point_masses.is_empty() {
        if body.point_masses.len() != n {
            return Err(SceneError::LengthMismatch {
                body: body.name.clone(),
                what: "point masses",
                expected: n,
                found: body.point_masses.len(),
            });
        }
        if let Some(&bad) = body.point_masses.iter().find(|&&m| !(m > 0.0 && m.is_finite())) {
            return Err(SceneError::InvalidValue {
                body: body.name.clone(),
                what: "point mass",
                value: bad,
                expected: "a finite value > 0",
            });
        }
    }
    if let Some(g) = body.gravity {
        if !g.is_finite() {
            return Err(SceneError::NonFinite { body: body.name.clone(), what: "gravity" });
        }
    }
    if !(body.velocity_damping >= 0.0 && body.velocity_damping.is_finite()) {
        return Err(SceneError::InvalidValue {
            body: body.name.clone(),
            what: "vertexVelocityDamping",
            value: body.velocity_damping,
            expected: "a finite value >= 0",
        });
    }
    check_material(body, &body.material)?;
    for m in body.materials.iter().map(|slot| &slot.material) {
        check_material(body, m)?;
    }
    for p in std::iter::once(&body.plastic).chain(body.materials.iter().map(|slot| &slot.plastic)).flatten() {
        check_plasticity(body, p)?;
    }
    Ok(())
}

/// Checks one set of plasticity parameters.
fn check_plasticity(body: &Body, p: &Plasticity) -> Result<(), SceneError> {
    let invalid = |what: &'static str, value: f32, expected: &'static str| {
        Err(SceneError::InvalidValue { body: body.name.clone(), what, value, expected })
    };
    if !(p.yield_ratio > 1.0 && p.yield_ratio.is_finite()) {
        return invalid("plasticYieldRatio", p.yield_ratio, "a finite value > 1");
    }
    if !(0.0..=1.0).contains(&p.rate) {
        return invalid("plasticRate", p.rate, "a value in [0, 1]");
    }
    if let Some(cap) = p.max_strain {
        if !(cap > 0.0 && cap.is_finite()) {
            return invalid("plasticMaxStrain", cap, "a finite value > 0");
        }
    }
    Ok(())
}

/// Checks one material's values.
fn check_material(body: &Body, m: &Material) -> Result<(), SceneError> {
    let invalid = |what: &'static str, value: f32, expected: &'static str| {
        Err(SceneError::InvalidValue { body: body.name.clone(), what, value, expected })
    };
    if !(m.youngs_modulus > 0.0 && m.youngs_modulus.is_finite()) {
        return invalid("youngsModulus", m.youngs_modulus, "a finite value > 0");
    }
    if !(0.0..0.5).contains(&m.poissons_ratio) {
        return invalid("poissonsRatio", m.poissons_ratio, "a value in [0, 0.5)");
    }
    if !(m.density > 0.0 && m.density.is_finite()) {
        return invalid("density", m.density, "a finite value > 0");
    }
    if body.kind == BodyKind::Surface && !(m.thickness > 0.0 && m.thickness.is_finite()) {
        return invalid("surfaceThickness", m.thickness, "a finite value > 0");
    }
    if !(m.damping >= 0.0 && m.damping.is_finite()) {
        return invalid("damping", m.damping, "a finite value >= 0");
    }
    if !(m.bend_damping >= 0.0 && m.bend_damping.is_finite()) {
        return invalid("bendDamping", m.bend_damping, "a finite value >= 0");
    }
    Ok(())
}
