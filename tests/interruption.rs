//! Interrupted bakes: SIGINT and SIGTERM finish the frame, write a playable output that
//! ends at the last complete frame and exit 130 / 143; a `kill -9` at any moment
//! leaves only files that open (each is written to a temporary name and renamed).
//!
//! The child is started directly (not through a shell's background job, where SIGINT
//! is ignored); usdsim also installs its handlers over an inherited "ignore".

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{composed_points, copy_scene, open_stage, temp_dir, LayerFile};

/// Starts a bake far longer than the test waits for, streaming 5-frame clips.
fn start(input: &Path, output: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_usdsim"))
        .arg(input)
        .args(["--frames", "100000", "--chunk", "5", "-q", "-o"])
        .arg(output)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start usdsim")
}

/// Reads the child's `OUTPUT_FILE:` lines until `n` files were written.
fn wait_for_files(child: &mut Child, n: usize) -> Vec<PathBuf> {
    let stdout = child.stdout.take().unwrap();
    let mut files = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(file) = line.strip_prefix("OUTPUT_FILE: ") {
            files.push(PathBuf::from(file));
            if files.len() == n {
                break;
            }
        }
    }
    assert_eq!(files.len(), n, "the bake ended before writing {n} files");
    files
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args(["-s", name, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

fn interrupted_bake_is_playable(signal_name: &str, code: i32) {
    let dir = temp_dir();
    let input = copy_scene("hanging_bar.usda", dir.path());
    let output = dir.path().join("bake.usda");
    let mut child = start(&input, &output);
    wait_for_files(&mut child, 2);
    signal(&child, signal_name);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains("interrupted") && stderr.contains("--resume"), "{stderr}");
    let (start, end, _) = LayerFile::open(&output).time_range();
    let last = end.unwrap() - start.unwrap();
    // Clips 0-4 and 5-9 were on disk before the signal: the output holds at least those.
    assert!(last >= 9.0, "two clips of 5 frames were written before the signal (last frame {last})");
    // Every frame up to the last is there, through the clips.
    let stage = open_stage(&output);
    let first = composed_points(&stage, "/World/Bar", "points", 0.0);
    let at_end = composed_points(&stage, "/World/Bar", "points", last);
    assert_eq!(first.len(), at_end.len());
    assert_ne!(first, at_end, "the bar moved");
}

#[test]
fn sigint_writes_a_playable_bake_and_exits_130() {
    interrupted_bake_is_playable("INT", 130);
}

#[test]
fn sigterm_writes_a_playable_bake_and_exits_143() {
    interrupted_bake_is_playable("TERM", 143);
}

#[test]
fn kill_9_leaves_only_files_that_open() {
    let dir = temp_dir();
    let input = copy_scene("hanging_bar.usda", dir.path());
    let output = dir.path().join("bake.usdc");
    let mut child = start(&input, &output);
    wait_for_files(&mut child, 3);
    signal(&child, "KILL");
    child.wait().unwrap();
    let folder = dir.path().join("bake.clips");
    let mut opened = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // a temporary file being written when the process died
        }
        assert!(name.ends_with(".usdc"), "{name}");
        LayerFile::open(&path);
        opened += 1;
    }
    assert!(opened >= 3, "{opened} clips");
}
