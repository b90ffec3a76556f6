//! Conversion of SI defaults into the stage's units (`metersPerUnit`,
//! `kilogramsPerUnit`). Authored values are already in stage units and are never
//! converted; only the defaults used where the asset says nothing go through here.

/// The stage's unit system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Units {
    /// Metres per stage distance unit.
    pub meters_per_unit: f64,
    /// Kilograms per stage mass unit.
    pub kilograms_per_unit: f64,
}

impl Units {
    /// A length in metres, in stage distance units.
    pub fn length_from_si(&self, meters: f64) -> f64 {
        meters / self.meters_per_unit
    }

    /// An acceleration in m/s², in stage units per s².
    pub fn acceleration_from_si(&self, meters_per_s2: f64) -> f64 {
        meters_per_s2 / self.meters_per_unit
    }

    /// A pressure (Young's modulus) in Pa = kg/(m·s²), in stage mass/(distance·s²).
    pub fn pressure_from_si(&self, pascal: f64) -> f64 {
        pascal / (self.kilograms_per_unit / self.meters_per_unit)
    }

    /// A density in kg/m³, in stage mass/distance³.
    pub fn density_from_si(&self, kg_per_m3: f64) -> f64 {
        kg_per_m3 * self.meters_per_unit.powi(3) / self.kilograms_per_unit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centimetre_grams_conversions() {
        // cm and g: 1 Pa = 1 kg/(m s²) = 1000 g / (100 cm s²) = 10 g/(cm s²).
        let u = Units { meters_per_unit: 0.01, kilograms_per_unit: 0.001 };
        assert!((u.pressure_from_si(1.0) - 10.0).abs() < 1e-12);
        // 1000 kg/m³ = 1 g/cm³.
        assert!((u.density_from_si(1000.0) - 1.0).abs() < 1e-12);
        assert!((u.length_from_si(1e-3) - 0.1).abs() < 1e-12);
        assert!((u.acceleration_from_si(9.81) - 981.0).abs() < 1e-9);
    }
}
