//! The value types the schema plugins we ship (`schemas/`) declare for their
//! attributes, so that `--set` can type-check a value for an attribute the input does
//! not author. Read from the generated schemas themselves, so no type is spelled twice.

use openusd::sdf::{self, AbstractData};
use openusd::usda;

/// The attribute's type as the schema plugins we ship declare it, for an attribute
/// the prim does not author: looked up in the prim's type and its applied API schemas
/// (multiple-apply instances by their schema's name).
pub(crate) fn schema_type(type_name: &str, apis: &[String], attribute: &str) -> Option<String> {
    let data = schema_data();
    let classes = std::iter::once(type_name).chain(apis.iter().map(|a| a.split(':').next().unwrap_or(a)));
    for class in classes.filter(|c| !c.is_empty()) {
        let Ok(path) = sdf::Path::new(&format!("/{class}.{attribute}")) else { continue };
        let found = data.iter().find_map(|d| d.try_field(&path, "typeName").ok().flatten());
        match found.as_deref() {
            Some(sdf::Value::Token(t)) => return Some(t.as_str().to_string()),
            Some(sdf::Value::String(s)) => return Some(s.clone()),
            _ => {}
        }
    }
    None
}

/// The generated schemas of the two plugins in `schemas/`, parsed once.
fn schema_data() -> &'static [sdf::Data] {
    static DATA: std::sync::OnceLock<Vec<sdf::Data>> = std::sync::OnceLock::new();
    DATA.get_or_init(|| {
        [
            include_str!("../../../../schemas/omniPhysicsDeformable/generatedSchema.usda"),
            include_str!("../../../../schemas/usdsim/generatedSchema.usda"),
        ]
        .iter()
        .filter_map(|text| usda::parse(text).ok())
        .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unauthored_schema_attributes_have_their_declared_type() {
        let apis = vec!["UsdsimMaterialAPI".to_string()];
        assert_eq!(schema_type("", &apis, "usdsim:tearRatio").as_deref(), Some("float"));
        assert_eq!(schema_type("", &apis, "usdsim:nope"), None);
        let apis = vec!["OmniPhysicsDeformableMaterialAPI".to_string()];
        assert!(schema_type("", &apis, "omniphysics:youngsModulus").is_some());
    }
}
