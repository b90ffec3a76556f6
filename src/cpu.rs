//! The CPU features this binary was compiled to use, checked before anything else runs.
//!
//! `.cargo/config.toml` builds x86-64 for `x86-64-v3` (AVX2 among others; FMA left out),
//! which makes the solver's eight-lane kernels one AVX register wide. On an older CPU the first
//! such instruction would kill the process with SIGILL and no word of why, so `main`
//! starts here and reports what is missing, and how to build for that CPU, instead.

/// One feature: its name as `is_x86_feature_detected!` spells it, whether this build was
/// compiled to use it, and whether the running CPU has it.
pub type Feature = (&'static str, bool, bool);

/// The features beyond the x86-64 baseline that `x86-64-v3` adds (and so the only ones a
/// build for it may rely on), as compiled and as detected. Only those compiled in are
/// required, so a baseline build runs anywhere and FMA, left out, is not asked for.
#[cfg(target_arch = "x86_64")]
pub fn features() -> Vec<Feature> {
    macro_rules! list {
        ($($name:tt),*) => {
            vec![$(($name, cfg!(target_feature = $name), std::arch::is_x86_feature_detected!($name))),*]
        };
    }
    list!("sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "lzcnt", "movbe")
}

/// Other architectures: nothing beyond what the target itself promises.
#[cfg(not(target_arch = "x86_64"))]
pub fn features() -> Vec<Feature> {
    Vec::new()
}

/// The message for a CPU that lacks features the binary was compiled to use, or `None`
/// when it has them all.
pub fn unsupported(features: &[Feature]) -> Option<String> {
    let missing: Vec<&str> = features.iter().filter(|f| f.1 && !f.2).map(|f| f.0).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "this usdsim was built for x86-64-v3 CPUs (AVX2: 2013 on) and this CPU lacks {}. \
             Rebuild it for this one: RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release --ignore-rust-version",
            missing.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_was_compiled_in_and_is_missing() {
        let features = [("avx2", true, false), ("fma", true, true), ("bmi2", false, false), ("f16c", true, false)];
        let message = unsupported(&features).expect("avx2 and f16c are missing");
        assert!(message.contains("lacks avx2, f16c."), "{message}");
        assert!(message.contains("target-cpu=x86-64"), "{message}");
        assert_eq!(unsupported(&[("avx2", true, true), ("fma", false, false)]), None);
    }

    #[test]
    fn this_machine_runs_this_build() {
        // The tests run on the machine that built them, so it has what they were built for.
        assert_eq!(unsupported(&features()), None);
    }
}
