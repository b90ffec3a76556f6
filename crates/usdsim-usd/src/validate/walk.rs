//! The validator's view of a composed stage: the one prim index of the opened stage
//! (shared with the importer), the validator's own context, and the findings so far.

use openusd::sdf;

use super::report::Report;
use crate::diagnostic::Diagnostic;
use crate::error::{ImportError, Location};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimIndex;

/// The stage, its prims in traversal order, and the findings.
pub(crate) struct Walk<'a> {
    pub ctx: Ctx,
    pub prims: &'a PrimIndex,
    diagnostics: Vec<(usize, Diagnostic)>,
}

impl<'a> Walk<'a> {
    /// Starts with no findings, over the prims of the one traversal.
    pub fn new(ctx: Ctx, prims: &'a PrimIndex) -> Walk<'a> {
        Walk { ctx, prims, diagnostics: Vec::new() }
    }

    /// The index of the traversed prim at `path`.
    pub fn find(&self, path: &sdf::Path) -> Option<usize> {
        self.prims.find(path)
    }

    /// Indices of the strict descendants of prim `i` (they follow it in traversal order).
    pub fn descendants(&self, i: usize) -> std::ops::Range<usize> {
        self.prims.descendants(i)
    }

    /// Location of a prim or one of its properties (the property's authoring layer).
    pub fn at(&self, prim: &sdf::Path, property: Option<&str>) -> Location {
        match property {
            Some(property) => self.ctx.prop_loc(prim, property),
            None => self.ctx.prim_loc(prim),
        }
    }

    /// Records a finding of rule `code`.
    pub fn report(&mut self, code: &'static str, prim: &sdf::Path, property: Option<&str>, message: impl Into<String>) {
        let order = self.find(prim).unwrap_or(usize::MAX);
        let diagnostic = Diagnostic::new(code, self.at(prim, property), message);
        if !self.diagnostics.iter().any(|(_, d)| *d == diagnostic) {
            self.diagnostics.push((order, diagnostic));
        }
    }

    /// Whether a finding of rule `code` on `prim` is already recorded.
    pub fn reported(&self, code: &str, prim: &sdf::Path) -> bool {
        let prim = prim.to_string();
        self.diagnostics.iter().any(|(_, d)| d.code == code && d.prim == prim)
    }

    /// Records a finding the importer's readers made (the legacy rules read bodies
    /// with them), in traversal order like every other.
    pub fn report_diagnostic(&mut self, diagnostic: Diagnostic) {
        let order = sdf::Path::new(&diagnostic.prim).ok().and_then(|p| self.find(&p)).unwrap_or(usize::MAX);
        if !self.diagnostics.iter().any(|(_, d)| *d == diagnostic) {
            self.diagnostics.push((order, diagnostic));
        }
    }

    /// Reads an attribute with one of the importer's typed readers. A value of the
    /// wrong type (or a failed query) becomes a DB100 finding and reads as absent.
    pub fn read<T>(
        &mut self,
        prim: &sdf::Path,
        name: &str,
        reader: fn(&Ctx, &sdf::Path, &str) -> Result<Option<T>, ImportError>,
    ) -> Option<T> {
        match reader(&self.ctx, prim, name) {
            Ok(value) => value,
            Err(ImportError::WrongType { expected, found, .. }) => {
                self.report("DB100", prim, Some(name), format!("expected {expected}, found {found}"));
                None
            }
            Err(err) => {
                self.report("DB100", prim, Some(name), format!("cannot read the value: {err}"));
                None
            }
        }
    }

    /// Targets of a relationship (empty when unauthored or unreadable).
    pub fn targets(&self, prim: &sdf::Path, rel: &str) -> Vec<sdf::Path> {
        self.ctx.prim(prim).ok().and_then(|p| p.relationship(rel).targets().ok()).unwrap_or_default()
    }

    /// Whether `path` is a composed, valid prim of the stage.
    pub fn exists(&self, path: &sdf::Path) -> bool {
        self.find(path).is_some() || self.ctx.prim(path).ok().and_then(|p| p.is_valid().ok()).unwrap_or(false)
    }

    /// Whether the prim's `xformOpOrder` starts with (contains) `!resetXformStack!`.
    pub fn resets_xform_stack(&self, prim: &sdf::Path) -> bool {
        crate::stage::attribute_values::token_array(&self.ctx, prim, "xformOpOrder")
            .ok()
            .flatten()
            .is_some_and(|ops| ops.iter().any(|op| op == "!resetXformStack!"))
    }

    /// The finished report, findings sorted by prim traversal order then rule code.
    pub fn into_report(mut self, file: String) -> Report {
        self.diagnostics.sort_by(|(a, da), (b, db)| a.cmp(b).then(da.code.cmp(db.code)));
        Report { file, diagnostics: self.diagnostics.into_iter().map(|(_, d)| d).collect() }
    }
}
