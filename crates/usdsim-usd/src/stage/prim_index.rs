//! The one prim index: every prim of the composed stage that USD's default traversal
//! visits, with its type, applied schemas and authored property names, read once. The
//! importer's readers and the validator's rules both look prims up here instead of
//! traversing again.

use std::collections::HashMap;

use openusd::{sdf, usd};

use super::context::Ctx;
use crate::error::ImportError;

/// One traversed prim.
pub(crate) struct PrimInfo {
    /// The composed prim path.
    pub path: sdf::Path,
    /// Composed `typeName` (empty when untyped).
    pub type_name: String,
    /// Composed applied API schemas, instance names included (`Foo:bar`).
    pub apis: Vec<String>,
    /// Authored property names (attributes and relationships).
    pub properties: Vec<String>,
}

impl PrimInfo {
    /// Whether the prim applies the single-apply API `name` (exact).
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

/// Why the stage could not be indexed. The importer and the validator report it
/// differently (a query error vs. an unparsable file), so the raw reasons are kept.
pub(crate) enum IndexError {
    /// The traversal itself failed; openusd's explanation.
    Traversal(String),
    /// A traversed prim could not be opened.
    Prim {
        /// The prim's path.
        path: sdf::Path,
        /// openusd's explanation.
        reason: String,
        /// The first failed type or schema query before this prim (the importer, which
        /// reads strictly, stops there first).
        earlier: Option<(sdf::Path, String)>,
    },
}

/// The traversed prims in traversal order (a prim's descendants follow it), with a
/// lookup by path. Derefs to the slice of prims, so `index[i]` and `index.iter()` work.
pub(crate) struct PrimIndex {
    prims: Vec<PrimInfo>,
    by_path: HashMap<String, usize>,
    /// The first type or applied-schema query that failed. The validator reads such a
    /// prim as untyped / without schemas; the importer refuses the stage
    /// ([`PrimIndex::query_error`]). Path and openusd's explanation.
    query_error: Option<(sdf::Path, String)>,
}

impl std::ops::Deref for PrimIndex {
    type Target = [PrimInfo];

    fn deref(&self) -> &[PrimInfo] {
        &self.prims
    }
}

impl PrimIndex {
    /// Traverses the stage with USD's default predicate (active, loaded, defined,
    /// non-abstract: `class` templates are skipped, their referencing prims are not) and
    /// reads each prim's type, applied schemas and authored property names once.
    pub fn build(stage: &usd::Stage) -> Result<PrimIndex, IndexError> {
        let mut paths = Vec::new();
        stage
            .traverse(usd::PrimPredicate::DEFAULT, |path| paths.push(path.clone()))
            .map_err(|err| IndexError::Traversal(err.to_string()))?;
        let mut prims = Vec::with_capacity(paths.len());
        let mut query_error = None;
        for path in paths {
            let prim = match stage.prim(path.clone()) {
                Ok(prim) => prim,
                Err(err) => return Err(IndexError::Prim { path, reason: err.to_string(), earlier: query_error }),
            };
            let type_name = match prim.type_name() {
                Ok(t) => t.map(|t| t.as_str().to_string()).unwrap_or_default(),
                Err(err) => {
                    query_error.get_or_insert_with(|| (path.clone(), err.to_string()));
                    String::new()
                }
            };
            let apis = match prim.api_schemas() {
                Ok(apis) => apis.iter().map(|t| t.as_str().to_string()).collect(),
                Err(err) => {
                    query_error.get_or_insert_with(|| (path.clone(), err.to_string()));
                    Vec::new()
                }
            };
            let properties =
                prim.authored_property_names().unwrap_or_default().iter().map(|t| t.as_str().to_string()).collect();
            prims.push(PrimInfo { path, type_name, apis, properties });
        }
        let by_path = prims.iter().enumerate().map(|(i, p)| (p.path.to_string(), i)).collect();
        Ok(PrimIndex { prims, by_path, query_error })
    }

    /// For the importer, which reads strictly: the first failed type or schema query,
    /// which must stop the import instead of reading the prim as untyped.
    pub fn query_error(&self, ctx: &Ctx) -> Option<ImportError> {
        self.query_error.as_ref().map(|(path, reason)| ctx.query_err(path, None, reason))
    }

    /// The index of the traversed prim at `path`.
    pub fn find(&self, path: &sdf::Path) -> Option<usize> {
        self.by_path.get(&path.to_string()).copied()
    }

    /// Indices of the strict descendants of prim `i` (they follow it in traversal order).
    pub fn descendants(&self, i: usize) -> std::ops::Range<usize> {
        let root = &self.prims[i].path;
        let end = self.prims[i + 1..].iter().take_while(|p| p.path.has_prefix(root)).count();
        i + 1..i + 1 + end
    }
}

impl IndexError {
    /// The importer's error for it.
    pub fn to_import_error(&self, ctx: &Ctx) -> ImportError {
        match self {
            IndexError::Traversal(reason) => ImportError::Query {
                at: ctx.prim_loc(&sdf::Path::abs_root()),
                reason: format!("traversal failed: {reason}"),
            },
            IndexError::Prim { path, reason, earlier } => match earlier {
                Some((path, reason)) => ctx.query_err(path, None, reason),
                None => ctx.query_err(path, None, reason),
            },
        }
    }

    /// The validator's explanation of why the file cannot be validated.
    pub fn validator_reason(&self) -> String {
        match self {
            IndexError::Traversal(reason) => format!("traversal failed: {reason}"),
            IndexError::Prim { path, reason, .. } => format!("{path}: {reason}"),
        }
    }
}
