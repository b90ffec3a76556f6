//! A farm plan: which bakes (one per wedge), cut into which chunks, with which command
//! line each. The Slurm and Open Job Description writers render this one plan; the
//! `plan.json` it leaves in the plan's folder is what `usdsim farm index` reads.

use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};

use super::wedge::Wedge;
use usdsim_usd::IndexedWedge;

/// Where each wedge's bake goes, relative to the plan's folder.
pub const BAKE: &str = "bake.usdc";
/// The plan's description, in the plan's folder.
pub const PLAN_FILE: &str = "plan.json";
/// The index layer the final step writes, in the plan's folder.
pub const INDEX_FILE: &str = "wedges.usda";

/// Everything a farm needs to run the bakes of a wedge.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The `usdsim` executable the tasks run (absolute, or a name found on `PATH`).
    pub usdsim: String,
    /// The input stage, absolute.
    pub scene: PathBuf,
    /// Frames of every bake.
    pub frames: u32,
    /// Frames per chunk, when the bakes are chained chunks (`--chunk`, `--resume`).
    pub chunk: Option<u32>,
    /// Run options every task passes to `usdsim run` (what follows `--` on `farm`).
    pub run: Vec<String>,
    /// The variants.
    pub wedges: Vec<Wedge>,
    /// The plan's folder, absolute: one subfolder per wedge, logs, reports, scripts.
    pub dir: PathBuf,
}

impl Plan {
    /// How many chunks each bake is cut into (1 without `--chunk`).
    pub fn chunks(&self) -> u32 {
        self.chunk.map_or(1, |c| self.frames.div_ceil(c))
    }

    /// The last frame chunk `k` (1-based) bakes: the chunk's end, the bake's end at most.
    pub fn chunk_end(&self, k: u32) -> u32 {
        self.chunk.map_or(self.frames, |c| (k * c).min(self.frames))
    }

    /// The wedge's bake.
    pub fn bake(&self, wedge: &Wedge) -> PathBuf {
        self.dir.join(&wedge.name).join(BAKE)
    }

    /// The shell command (POSIX sh) that bakes `wedge` up to frame `end` (a shell word:
    /// a number, or a variable the engine fills in) as chunk `chunk` (a shell word too).
    /// A chunked bake continues its output with `--resume` when the output exists, so a
    /// requeued or retried task, and every chunk after the first, picks up where the
    /// output stops; a task writes a `--report` per chunk.
    pub fn command(&self, wedge: &Wedge, end: &str, chunk: &str) -> String {
        let bake = self.bake(wedge);
        let mut words = vec![quote(&self.usdsim), quote_path(&self.scene), "--frames".into(), end.to_string()];
        words.extend(["-o".to_string(), quote_path(&bake)]);
        words.extend(self.run.iter().chain(&wedge.settings()).map(|w| quote(w)));
        let run = words.join(" ");
        let Some(c) = self.chunk else {
            return format!("mkdir -p {} && exec {run}", quote_path(&self.dir.join(&wedge.name)));
        };
        let report = quote_path(&self.dir.join(&wedge.name));
        format!(
            "mkdir -p {dir} && if [ -e {out} ]; then resume=--resume; else resume=; fi && exec {run} --chunk {c} $resume --report {report}/report-{chunk}.json",
            dir = quote_path(&self.dir.join(&wedge.name)),
            out = quote_path(&bake),
        )
    }

    /// The command of the final step: the index layer over every bake.
    pub fn index_command(&self) -> String {
        format!("exec {} farm index {}", quote(&self.usdsim), quote_path(&self.dir))
    }

    /// The settings `wedge` bakes with beyond its input and frames, as one shell line:
    /// the plan's run options, the wedge's, its `--set`s (what the index shows).
    pub fn settings(&self, wedge: &Wedge) -> String {
        self.run.iter().chain(&wedge.settings()).map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }

    /// Writes `plan.json` into the plan's folder (created): per wedge its settings and
    /// the full command of each of its tasks, as the engines run them.
    pub fn write_json(&self) -> Result<PathBuf> {
        std::fs::create_dir_all(&self.dir).with_context(|| format!("cannot create {}", self.dir.display()))?;
        let path = self.dir.join(PLAN_FILE);
        let wedges: Vec<_> = self
            .wedges
            .iter()
            .map(|w| {
                let tasks: Vec<_> = (1..=self.chunks())
                    .map(|k| {
                        let end = self.chunk_end(k);
                        json!({ "chunk": k, "end": end, "command": self.command(w, &end.to_string(), &k.to_string()) })
                    })
                    .collect();
                json!({
                    "name": w.name,
                    "set": w.set.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "run": self.run.iter().chain(&w.run).collect::<Vec<_>>(),
                    "settings": self.settings(w),
                    "bake": format!("{}/{BAKE}", w.name),
                    "tasks": tasks,
                })
            })
            .collect();
        let value = json!({
            "scene": self.scene,
            "frames": self.frames,
            "chunk": self.chunk,
            "wedges": wedges,
            "index": INDEX_FILE,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&value)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

/// The wedges `plan.json` in `dir` lists: name, bake relative to `dir`, and settings
/// (empty in a plan written before they were recorded).
pub fn read_bakes(dir: &Path) -> Result<Vec<IndexedWedge>> {
    let path = dir.join(PLAN_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let wedges = json["wedges"].as_array().with_context(|| format!("{}: no \"wedges\" list", path.display()))?;
    wedges
        .iter()
        .map(|w| match (w["name"].as_str(), w["bake"].as_str()) {
            (Some(name), Some(bake)) => Ok(IndexedWedge {
                name: name.to_string(),
                bake: bake.to_string(),
                settings: w["settings"].as_str().unwrap_or_default().to_string(),
            }),
            _ => anyhow::bail!("{}: a wedge without \"name\" and \"bake\"", path.display()),
        })
        .collect()
}

/// `text` as one POSIX shell word.
pub fn quote(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=,".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A path as one shell word.
pub fn quote_path(path: &Path) -> String {
    quote(&path.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(chunk: Option<u32>) -> Plan {
        Plan {
            usdsim: "/opt/usdsim".into(),
            scene: "/s/scene.usda".into(),
            frames: 10,
            chunk,
            run: vec!["--substeps".into(), "30".into(), "--self-contact".into()],
            wedges: vec![Wedge {
                name: "w0".into(),
                set: vec!["/W/M.a=\"x y\"".parse().unwrap()],
                run: vec!["--iterations".into(), "3".into()],
            }],
            dir: "/farm/job".into(),
        }
    }

    #[test]
    fn chunks_cover_the_frames() {
        let p = plan(Some(4));
        assert_eq!(p.chunks(), 3);
        assert_eq!((1..=3).map(|k| p.chunk_end(k)).collect::<Vec<_>>(), [4, 8, 10]);
        assert_eq!(plan(None).chunks(), 1);
        assert_eq!(plan(None).chunk_end(1), 10);
    }

    #[test]
    fn commands_quote_and_resume() {
        let plain = plan(None).command(&plan(None).wedges[0], "10", "1");
        assert_eq!(
            plain,
            "mkdir -p /farm/job/w0 && exec /opt/usdsim /s/scene.usda --frames 10 -o /farm/job/w0/bake.usdc --substeps 30 --self-contact --iterations 3 --set '/W/M.a=\"x y\"'"
        );
        let p = plan(Some(4));
        let chunked = p.command(&p.wedges[0], "8", "2");
        assert!(chunked.contains("if [ -e /farm/job/w0/bake.usdc ]; then resume=--resume"), "{chunked}");
        assert!(chunked.ends_with("--chunk 4 $resume --report /farm/job/w0/report-2.json"), "{chunked}");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
