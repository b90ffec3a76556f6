//! The validator against its example files: every file in `testdata/invalid/`
//! reports exactly the rule its name starts with (snapshots of the text report), every
//! rule has such a file, and the valid test scenes report no errors.

use std::path::{Path, PathBuf};

use usdsim_usd::validate::{validate, Rule, Severity, IMPORT_RULES, RULES};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn usda_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "usda") && !p.to_string_lossy().ends_with(".sim.usda"))
        .collect();
    files.sort();
    files
}

/// The report as text, with the machine-specific path replaced by a stable one.
fn normalised_report(path: &Path) -> String {
    let report = validate(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let name = path.file_name().unwrap().to_str().unwrap();
    report.text().replace(&path.display().to_string(), &format!("testdata/invalid/{name}"))
}

#[test]
fn every_invalid_file_matches_its_snapshot() {
    let files = usda_files(&repo().join("testdata/invalid"));
    assert!(!files.is_empty());
    for file in &files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        insta::assert_snapshot!(stem, normalised_report(file));
    }
}

#[test]
fn every_rule_has_an_example_file_that_reports_it_and_nothing_else() {
    let files = usda_files(&repo().join("testdata/invalid"));
    for rule in RULES {
        let file = files
            .iter()
            .find(|f| f.file_name().unwrap().to_str().unwrap().starts_with(rule.code))
            .unwrap_or_else(|| panic!("no example file for {} in testdata/invalid/", rule.code));
        let report = validate(file).unwrap();
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&rule.code), "{} does not report {}: {codes:?}", file.display(), rule.code);
        assert!(codes.iter().all(|c| *c == rule.code), "{} reports other rules too: {codes:?}", file.display());
        let expected_pass = rule.severity == Severity::Warning;
        assert_eq!(report.passes(false), expected_pass, "{}", file.display());
    }
    assert_eq!(files.len(), RULES.len(), "one example file per rule, no strays");
}

#[test]
fn valid_test_scenes_have_no_errors() {
    for file in usda_files(&repo().join("testdata")) {
        let report = validate(&file).unwrap();
        assert_eq!(report.errors(), 0, "{}", report.text());
    }
}

#[test]
fn rule_codes_are_unique_and_sorted() {
    for pair in RULES.windows(2) {
        assert!(pair[0].code < pair[1].code, "{} then {}", pair[0].code, pair[1].code);
    }
}

#[test]
fn unreadable_and_unparsable_files_are_errors_not_reports() {
    let dir = tempfile::tempdir().unwrap();
    assert!(validate(&dir.path().join("missing.usda")).is_err());
    let broken = dir.path().join("broken.usda");
    std::fs::write(&broken, "#usda 1.0\ndef Xform \"World\" {\n    bogus bogus =\n").unwrap();
    assert!(validate(&broken).is_err());
}

/// Validates `text` (a whole `.usda` layer) and returns `(code, prim, property, message)`
/// per finding.
fn findings(text: &str) -> Vec<(String, String, Option<String>, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.usda");
    std::fs::write(&path, text).unwrap();
    let report = validate(&path).unwrap_or_else(|err| panic!("{err}"));
    report.diagnostics.into_iter().map(|d| (d.code.to_string(), d.prim, d.property, d.message)).collect()
}

fn codes(text: &str) -> Vec<String> {
    findings(text).into_iter().map(|f| f.0).collect()
}

/// The AOUSD spelling of an `omniphysics:` attachment or filter example: from the
/// attachment prim on (the last prim of each example), `OmniPhysics*` types become
/// `Physics*` and `omniphysics:` attributes `physics:`.
fn aousd_spelling(text: &str) -> String {
    let at = text.find("def OmniPhysics").expect("an OmniPhysics attachment or filter prim");
    let (body, attachment) = text.split_at(at);
    format!("{body}{}", attachment.replace("OmniPhysics", "Physics").replace("omniphysics:", "physics:"))
}

#[test]
fn physics_spelled_attachments_and_filters_report_the_same_rules() {
    for code in ["DB401", "DB402", "DB403", "DB404", "DB405", "DB406"] {
        let file = usda_files(&repo().join("testdata/invalid"))
            .into_iter()
            .find(|f| f.file_name().unwrap().to_str().unwrap().starts_with(code))
            .unwrap();
        let omni = std::fs::read_to_string(&file).unwrap();
        let aousd = aousd_spelling(&omni);
        assert!(aousd.contains("def Physics") && aousd.contains("rel physics:src0"), "{aousd}");
        let expected: Vec<_> = findings(&omni)
            .into_iter()
            .map(|(c, prim, property, message)| {
                let aousd = |s: String| s.replace("omniphysics:", "physics:");
                (c, prim, property.map(aousd), aousd(message))
            })
            .collect();
        let found = findings(&aousd);
        assert!(!found.is_empty() && found.iter().all(|f| f.0 == code), "{code}: {found:?}");
        assert_eq!(found, expected, "{code}");
    }
}

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n\n";

/// A sound one-tetrahedron volume body `/World/Tet` bound to `/World/Jelly`, with extra
/// body attributes and API schemas, plus `rest` (more prims under `/World`).
fn tet_scene(apis: &str, body: &str, rest: &str) -> String {
    format!(
        r#"{HEADER}def Xform "World"
{{
    def Material "Jelly" (
        prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI"{apis}]
    )
    {{
        float omniphysics:youngsModulus = 100000
    }}
    def TetMesh "Tet" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI", "MaterialBindingAPI"{apis}]
    )
    {{
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int4[] tetVertexIndices = [(0, 1, 2, 3)]
        rel material:binding:physics = </World/Jelly>
{body}    }}
{rest}}}
"#
    )
}

#[test]
fn physics_spelled_attachment_types_are_range_checked() {
    let text = tet_scene(
        "",
        "",
        r#"    def Mesh "Sheet" (
        prepend apiSchemas = ["PhysicsCollisionAPI"]
    )
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 2), (1, 0, 2), (0, 1, 2)]
    }
    def PhysicsVtxTriAttachment "Glue"
    {
        rel physics:src0 = </World/Tet>
        rel physics:src1 = </World/Sheet>
        int[] physics:vtxIndicesSrc0 = [3, 2]
        int[] physics:triIndicesSrc1 = [0, 4]
        float3[] physics:triCoordsSrc1 = [(1, 0, 0)]
        float physics:damping = -1
    }
"#,
    );
    let found = findings(&text);
    let summary: Vec<(&str, Option<&str>)> = found.iter().map(|f| (f.0.as_str(), f.2.as_deref())).collect();
    assert_eq!(
        summary,
        [
            ("DB402", Some("physics:triIndicesSrc1")),
            ("DB403", Some("physics:triCoordsSrc1")),
            ("DB404", Some("physics:damping")),
        ],
        "{found:?}"
    );
}

#[test]
fn usdsim_names_are_known_to_the_typo_rules() {
    let correct = tet_scene(
        r#", "UsdsimMaterialAPI", "UsdsimBodyAPI""#,
        "        uniform token usdsim:model = \"springs\"\n        float usdsim:springStiffness = 100\n        \
         float usdsim:springDamping = 0.5\n        uniform token[] usdsim:springLinks = [\"structural\", \"bend\"]\n",
        "",
    )
    .replace(
        "float omniphysics:youngsModulus = 100000\n",
        "float omniphysics:youngsModulus = 100000\n        float usdsim:tearRatio = 1.8\n        \
         float usdsim:plasticYieldRatio = 1.1\n        float usdsim:plasticRate = 1\n        \
         float usdsim:plasticMaxStrain = 0\n",
    );
    assert!(correct.contains("usdsim:tearRatio") && correct.contains("usdsim:springLinks"));
    assert_eq!(codes(&correct), Vec::<String>::new(), "{correct}");

    let typo = correct.replace("usdsim:tearRatio", "usdsim:tearRatoi");
    let found = findings(&typo);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DB501");
    assert_eq!(found[0].2.as_deref(), Some("usdsim:tearRatoi"));
    assert!(found[0].3.contains("did you mean usdsim:tearRatio?"), "{}", found[0].3);

    let namespace = correct.replace("usdsim:springDamping", "usdsm:springDamping");
    let found = findings(&namespace);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].3.contains("did you mean usdsim:springDamping?"), "{}", found[0].3);

    let api = correct.replace("\"UsdsimBodyAPI\"", "\"UsdsimBodyApi\"");
    let found = findings(&api);
    let found: Vec<_> = found.iter().filter(|f| f.0 == "DB502").collect();
    assert_eq!(found.len(), 2, "one per prim: {found:?}");
    assert!(found[0].3.contains("did you mean UsdsimBodyAPI?"), "{}", found[0].3);
}

#[test]
fn usdsim_ratio_boundaries() {
    let with = |attr: &str| {
        tet_scene(r#", "UsdsimMaterialAPI""#, "", "").replace(
            "float omniphysics:youngsModulus = 100000\n",
            &format!("float omniphysics:youngsModulus = 100000\n        {attr}\n"),
        )
    };
    for ok in ["float usdsim:tearRatio = 0", "float usdsim:tearRatio = 1.01", "float usdsim:plasticRate = 0"] {
        assert_eq!(codes(&with(ok)), Vec::<String>::new(), "{ok}");
    }
    for (bad, code) in [
        ("float usdsim:tearRatio = -2", "DB601"),
        ("float usdsim:tearRatio = nan", "DB601"),
        ("float usdsim:plasticYieldRatio = 1", "DB602"),
        ("float usdsim:plasticRate = -0.5", "DB603"),
        ("float usdsim:plasticMaxStrain = nan", "DB604"),
        ("float usdsim:tearRatio = inf", "DB601"),
        ("float usdsim:plasticYieldRatio = inf", "DB602"),
        ("float usdsim:plasticMaxStrain = inf", "DB604"),
        ("double usdsim:tearRatio = 0.5", "DB601"),
        ("int usdsim:plasticRate = 2", "DB603"),
        ("token usdsim:tearRatio = \"high\"", "DB100"),
    ] {
        assert_eq!(codes(&with(bad)), [code], "{bad}");
    }
    let damping = tet_scene(r#", "UsdsimBodyAPI""#, "        float usdsim:springDamping = inf\n", "");
    assert_eq!(codes(&damping), ["DB605"]);
    let no_links = tet_scene(r#", "UsdsimBodyAPI""#, "        uniform token[] usdsim:springLinks = []\n", "");
    let found = findings(&no_links);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DB607");
    assert!(found[0].3.starts_with("names no link kind"), "{}", found[0].3);
}

/// The switches the importer reads on a body prim (PhysX's self-collision one among
/// them) must be bools: a run refuses anything else, so `validate` says so first.
#[test]
fn body_switches_are_bools() {
    let with = |attr: &str| tet_scene("", &format!("        {attr}\n"), "");
    for ok in [
        "bool physxDeformableBody:selfCollision = 1",
        "bool omniphysics:kinematicEnabled = 0",
        "float physxDeformableBody:selfCollisionFilterDistance = -inf",
        "float physxDeformableBody:selfCollisionFilterDistance = 0.003",
    ] {
        assert_eq!(codes(&with(ok)), Vec::<String>::new(), "{ok}");
    }
    for (bad, name) in [
        ("float physxDeformableBody:selfCollision = 0.5", "physxDeformableBody:selfCollision"),
        ("token omniphysics:startsAsleep = \"yes\"", "omniphysics:startsAsleep"),
        ("float omniphysics:kinematicEnabled = 1", "omniphysics:kinematicEnabled"),
    ] {
        let found = findings(&with(bad));
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert_eq!((found[0].0.as_str(), found[0].2.as_deref()), ("DB100", Some(name)), "{bad}");
        assert!(found[0].3.starts_with("expected bool"), "{}", found[0].3);
    }
    for bad in ["-0.002", "nan", "inf"] {
        let found = findings(&with(&format!("float physxDeformableBody:selfCollisionFilterDistance = {bad}")));
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        let at = (found[0].0.as_str(), found[0].2.as_deref());
        assert_eq!(at, ("DB304", Some("physxDeformableBody:selfCollisionFilterDistance")), "{bad}");
    }
}

#[test]
fn simulation_owner_targets() {
    let scene = "    def PhysicsScene \"Scene\"\n    {\n    }\n";
    let owned = |target: &str| tet_scene("", &format!("        rel omniphysics:simulationOwner = <{target}>\n"), scene);
    assert_eq!(codes(&owned("/World/Scene")), Vec::<String>::new());
    let missing = findings(&owned("/World/Nowhere"));
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert_eq!(missing[0].0, "DB009");
    assert!(missing[0].3.contains("/World/Nowhere does not exist"), "{}", missing[0].3);
    assert_eq!(codes(&owned("/World/Jelly")), ["DB009"]);

    // The AOUSD body reads physics:simulationOwner; the other dialect's name is not its.
    let aousd = owned("/World/Jelly")
        .replace("OmniPhysicsDeformableBodyAPI", "PhysicsDeformableBodyAPI")
        .replace("OmniPhysicsVolumeDeformableSimAPI", "PhysicsVolumeDeformableSimAPI")
        .replace("omniphysics:simulationOwner", "physics:simulationOwner");
    let found = findings(&aousd);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].2.as_deref()), ("DB009", Some("physics:simulationOwner")));
}

/// A two-triangle cloth `/World/Cloth` bound to `/World/Fabric`, with `children`.
fn cloth_scene(children: &str) -> String {
    format!(
        r#"{HEADER}def Xform "World"
{{
    def Material "Fabric" (
        prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI", "OmniPhysicsSurfaceDeformableMaterialAPI"]
    )
    {{
        float omniphysics:surfaceThickness = 0.001
        float omniphysics:youngsModulus = 1000000
    }}
    def Material "Stiff" (
        prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI", "OmniPhysicsSurfaceDeformableMaterialAPI"]
    )
    {{
        float omniphysics:surfaceThickness = 0.002
        float omniphysics:youngsModulus = 10000000
    }}
    def Mesh "Cloth" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI", "MaterialBindingAPI"]
    )
    {{
        int[] faceVertexCounts = [3, 3]
        int[] faceVertexIndices = [0, 1, 2, 1, 3, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
        rel material:binding:physics = </World/Fabric>
{children}    }}
}}
"#
    )
}

fn subset(name: &str, element_type: Option<&str>, indices: &str, binding: Option<&str>) -> String {
    let element_type =
        element_type.map(|t| format!("            uniform token elementType = \"{t}\"\n")).unwrap_or_default();
    let binding = binding.map(|b| format!("            rel material:binding:physics = <{b}>\n")).unwrap_or_default();
    format!(
        "        def GeomSubset \"{name}\" (\n            prepend apiSchemas = [\"MaterialBindingAPI\"]\n        )\n        {{\n\
         {element_type}            uniform token familyName = \"materialBind\"\n            int[] indices = {indices}\n{binding}        }}\n"
    )
}

#[test]
fn surface_material_subsets() {
    // Faces on a Mesh, unauthored elementType (USD's fallback "face"), an inherited binding.
    let good = cloth_scene(&(subset("A", Some("face"), "[0]", Some("/World/Stiff")) + &subset("B", None, "[1]", None)));
    assert_eq!(codes(&good), Vec::<String>::new(), "{good}");

    let tets = cloth_scene(&subset("A", Some("tetrahedron"), "[0]", Some("/World/Stiff")));
    assert_eq!(codes(&tets), ["DB306"]);

    let range = cloth_scene(&subset("A", Some("face"), "[-1, 0, 7]", Some("/World/Stiff")));
    let found = findings(&range);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DB307");
    assert!(found[0].3.contains("index -1 (entry 0) out of range for the 2 faces of /World/Cloth"), "{}", found[0].3);
    assert!(found[0].3.contains("2 bad indices"), "{}", found[0].3);

    let overlap = cloth_scene(
        &(subset("A", Some("face"), "[0, 1]", Some("/World/Stiff")) + &subset("B", Some("face"), "[1, 0]", None)),
    );
    let found = findings(&overlap);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("DB308", "/World/Cloth/B"));
    assert!(
        found[0].3.starts_with("2 faces (first: 1) also in the materialBind subset /World/Cloth/A"),
        "{}",
        found[0].3
    );

    let missing = cloth_scene(&subset("A", Some("face"), "[0]", Some("/World/Gone")));
    let found = findings(&missing);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DB309");
    assert!(found[0].3.contains("/World/Gone does not exist"), "{}", found[0].3);

    // Other families are not material bindings.
    let other = cloth_scene(
        &subset("A", Some("tetrahedron"), "[9]", Some("/World/Gone")).replace("materialBind", "partsOfTheCloth"),
    );
    assert_eq!(codes(&other), Vec::<String>::new());
}

#[test]
fn the_catalogue_in_the_docs_lists_every_rule_as_the_code_does() {
    assert_eq!(doc_rows("DB"), catalogue(RULES));
    assert_eq!(doc_rows("IM"), catalogue(IMPORT_RULES));
}

/// `(code, severity, statement)` of every row of the docs' tables whose code starts
/// with `prefix`.
fn doc_rows(prefix: &str) -> Vec<(String, String, String)> {
    let docs = std::fs::read_to_string(repo().join("docs/validation-rules.md")).unwrap();
    docs.lines()
        .filter(|l| l.starts_with(&format!("| `{prefix}")))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_string(), cells[2].to_string(), cells[3].to_string())
        })
        .collect()
}

fn catalogue(rules: &[Rule]) -> Vec<(String, String, String)> {
    rules.iter().map(|r| (r.code.to_string(), r.severity.as_str().to_string(), r.statement.to_string())).collect()
}
