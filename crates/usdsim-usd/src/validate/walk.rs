//! The validator's view of a composed stage: every traversed prim with its type,
//! applied schemas and authored property names, read once, plus the findings so far.

use std::collections::HashMap;

use openusd::{sdf, usd};

use super::report::{Diagnostic, Report};
use crate::context::Ctx;
use crate::error::{ImportError, Location};

/// One traversed prim.
pub(crate) struct PrimInfo {
    pub path: sdf::Path,
    /// Composed `typeName` (empty when untyped).
    pub type_name: String,
    /// Composed applied API schemas, instance names included (`Foo:bar`).
    pub apis: Vec<String>,
    /// Authored property names (attributes and relationships).
    pub properties: Vec<String>,
}

impl PrimInfo {
    /// Whether the prim applies API `name` (single-apply, exact).
    pub fn has_api(&self, name: &str) -> bool {
        self.apis.iter().any(|api| api == name)
    }

    /// Instance names of the multiple-apply API `name` (`name:instance`).
    pub fn instances(&self, name: &str) -> Vec<String> {
        self.apis
            .iter()
            .filter_map(|api| api.strip_prefix(name).and_then(|rest| rest.strip_prefix(':')))
            .map(str::to_string)
            .collect()
    }
}

/// The stage, its prims in traversal order, and the findings.
pub(crate) struct Walk {
    pub ctx: Ctx,
    pub prims: Vec<PrimInfo>,
    index: HashMap<String, usize>,
    diagnostics: Vec<(usize, Diagnostic)>,
}

impl Walk {
    /// Traverses the stage with USD's default predicate and summarises every prim.
    pub fn new(ctx: Ctx) -> Result<Walk, String> {
        let mut paths = Vec::new();
        ctx.stage
            .traverse(usd::PrimPredicate::DEFAULT, |path| paths.push(path.clone()))
            .map_err(|err| format!("traversal failed: {err}"))?;
        let mut prims = Vec::with_capacity(paths.len());
        for path in paths {
            let prim = ctx.stage.prim(path.clone()).map_err(|err| format!("{path}: {err}"))?;
            let type_name = prim.type_name().ok().flatten().map(|t| t.as_str().to_string()).unwrap_or_default();
            let apis = prim.api_schemas().unwrap_or_default().iter().map(|t| t.as_str().to_string()).collect();
            let properties =
                prim.authored_property_names().unwrap_or_default().iter().map(|t| t.as_str().to_string()).collect();
            prims.push(PrimInfo { path, type_name, apis, properties });
        }
        let index = prims.iter().enumerate().map(|(i, p)| (p.path.to_string(), i)).collect();
        Ok(Walk { ctx, prims, index, diagnostics: Vec::new() })
    }

    /// The index of the traversed prim at `path`.
    pub fn find(&self, path: &sdf::Path) -> Option<usize> {
        self.index.get(&path.to_string()).copied()
    }

    /// Indices of the strict descendants of prim `i` (they follow it in traversal order).
    pub fn descendants(&self, i: usize) -> std::ops::Range<usize> {
        let root = &self.prims[i].path;
        let end = self.prims[i + 1..].iter().take_while(|p| p.path.has_prefix(root)).count();
        i + 1..i + 1 + end
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
        crate::attribute_values::token_array(&self.ctx, prim, "xformOpOrder")
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
