//! The broken clip sets in `testdata/broken/` (rebuilt by its `make.sh`): a truncated
//! clip, a missing clip, a clip of another bake, a manifest that disagrees with its
//! clips. `validate` names each (exit 1), a run refuses them as input (exit 1), and
//! `--resume` refuses to continue the first three (exit 1), naming the clip.

mod common;

use std::path::{Path, PathBuf};

use common::{temp_dir, testdata, usdsim};

/// The broken bake of `case`.
fn broken(case: &str) -> PathBuf {
    testdata("broken").join(case).join("bake.usda")
}

/// (case, rule code, what the message names)
const CASES: [(&str, &str, &str); 4] = [
    ("truncated_clip", "DB701", "clip.000004.usdc@ does not open"),
    ("missing_clip", "DB701", "clip.000008.usdc@ does not exist"),
    ("foreign_clip", "DB702", "clip.000004.usdc@ is from another bake"),
    ("manifest_mismatch", "DB703", "declares attributes no clip samples: /World/Tet.accelerations"),
];

#[test]
fn validate_names_each_broken_clip_set() {
    for (case, code, says) in CASES {
        let file = broken(case);
        let outcome = usdsim([Path::new("validate"), &file]);
        outcome.assert_no_panic();
        assert_eq!(outcome.code, Some(1), "{case}: {}{}", outcome.stdout, outcome.stderr);
        let text = format!("{}{}", outcome.stdout, outcome.stderr);
        assert!(text.contains(code) && text.contains(says), "{case}: {text}");
        assert!(text.contains("/World"), "{case}: the prim holding the clips is named: {text}");
    }
}

#[test]
fn a_run_refuses_a_broken_clip_set_as_input() {
    for (case, code, _) in CASES {
        let dir = temp_dir();
        let out = dir.path().join("out.usda");
        let outcome = usdsim([broken(case).as_path(), Path::new("--frames=1"), Path::new("-o"), &out]);
        outcome.assert_no_panic();
        assert_eq!(outcome.code, Some(1), "{case}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(code), "{case}: {}", outcome.stderr);
        assert!(!out.exists(), "{case}: an output was written");
    }
}

/// Copies `testdata/broken/CASE/bake.clips` and `bake.usda` into `dir`.
fn copy_bake(case: &str, dir: &Path) -> PathBuf {
    let from = testdata("broken").join(case);
    std::fs::create_dir_all(dir.join("bake.clips")).unwrap();
    for entry in std::fs::read_dir(from.join("bake.clips")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("bake.clips").join(path.file_name().unwrap())).unwrap();
    }
    std::fs::copy(from.join("bake.usda"), dir.join("bake.usda")).unwrap();
    dir.join("bake.usda")
}

#[test]
fn resume_refuses_to_continue_a_broken_clip_set() {
    for (case, clip) in
        [("truncated_clip", "clip.000004"), ("missing_clip", "clip.000008"), ("foreign_clip", "clip.000004")]
    {
        let dir = temp_dir();
        let out = copy_bake(case, dir.path());
        let before = std::fs::read(&out).unwrap();
        let input = testdata("free_fall_z_up_meters.usda");
        let outcome = usdsim([
            input.as_path(),
            Path::new("--frames=20"),
            Path::new("--chunk=4"),
            Path::new("--resume"),
            Path::new("-o"),
            &out,
        ]);
        outcome.assert_no_panic();
        assert_eq!(outcome.code, Some(1), "{case}: {}", outcome.stderr);
        // The fixtures' layer records the fingerprint of the scene usdsim imports, which changes
        // whenever the scene model does: then they must be rebuilt, not the test eased.
        assert!(
            !outcome.stderr.contains("bake.usda: was baked from a different input"),
            "{case}: testdata/broken is stale for this usdsim; rebuild it with \
             `sh testdata/broken/make.sh target/debug/usdsim` (Pixar's USD on PATH): {}",
            outcome.stderr
        );
        assert!(outcome.stderr.contains(clip), "{case}: the clip is named: {}", outcome.stderr);
        assert_eq!(std::fs::read(&out).unwrap(), before, "{case}: the output layer was touched");
    }
}
