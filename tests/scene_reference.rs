//! `docs/scenes.md` against the parser: every table of a scene, given an unknown key, is
//! refused with the list of keys it accepts, and the reference's table for it lists exactly
//! those keys; every contact law and shell law has its row in `scenes/README.md`.
//!
//! The reference's key tables are found by their headings (`### Top level`, ``### `[domain]` ``,
//! ``### `[[wall]]` `cylinder` ``, ...), a key row being one that starts with ``| `key` |``.

use std::collections::BTreeMap;
use std::path::Path;

use grains_core::kernels::shell::ShellSlot;
use grains_core::kernels::walls::WallKind;
use grains_core::LawKind;
use grains_tests::workspace_root;

/// The key every case adds to the table it checks.
const UNKNOWN: &str = "zz_not_a_key = 1";

/// A scene that parses: the cases add a table or an unknown key to it.
const BASE: &str = r#"[simulation]
steps = 1
dt = 1e-6

[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]

[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.001
positions = [[0.05, 0.05, 0.05]]

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
"#;

/// A second material, for shells (whose material is their own).
const MEMBRANE: &str = r#"
[[material]]
name = "membrane"
density = 1000.0
young = 1.0e6
poisson = 0.3
"#;

/// A valid `[[shell]]` block's first lines, up to its mesh.
const SHELL: &str = "\n[[shell]]\nmaterial = \"membrane\"\nthickness = 1e-4\n";

/// A valid icosphere for a shell.
const ICOSPHERE: &str = "icosphere = { center = [0.02, 0.02, 0.02], radius = 0.005 }\n";

/// `BASE` made 2-D with a second material, and a valid `[[ring]]` block's first lines.
fn ring_base() -> String {
    let planar = edit(
        "max = [0.1, 0.1, 0.1]\n",
        "max = [0.1, 0.1, 0.1]\ndimensions = 2\n",
    )
    .replace(
        "positions = [[0.05, 0.05, 0.05]]",
        "positions = [[0.05, 0.05, 0.0]]",
    );
    format!("{planar}{MEMBRANE}\n[[ring]]\nmaterial = \"membrane\"\nthickness = 1e-4\n")
}

/// A valid circle of nodes for a ring.
const CIRCLE: &str = "circle = { center = [0.02, 0.02], radius = 0.005, nodes = 16 }\n";

/// A valid `[[insert]]` block's first lines, up to its region.
const INSERT: &str = "\n[[insert]]\nmaterial = \"glass\"\ncount = 10\nrate = 100.0\n";

/// A valid insertion region.
const REGION: &str = "box = { min = [0.01, 0.01, 0.01], max = [0.03, 0.03, 0.03] }\n";

/// `BASE` with `from` (which must be there) replaced by `to`.
fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "BASE has no {from:?}");
    BASE.replacen(from, to, 1)
}

/// `BASE` with the unknown key as the first line of block `header` (e.g. `[domain]`).
fn in_block(header: &str) -> String {
    let line = format!("{header}\n");
    edit(&line, &format!("{line}{UNKNOWN}\n"))
}

/// `BASE` and a `[[wall]]` block of `shape` (an inline table, the unknown key where it holds
/// `ZZ`) and of the extra lines `more`.
fn wall(shape: &str, more: &str) -> String {
    let shape = shape.replace("ZZ", UNKNOWN);
    let more = more.replace("ZZ", UNKNOWN);
    format!("{BASE}\n[[wall]]\nmaterial = \"glass\"\n{shape}\n{more}")
}

/// Every table of the format: the reference heading that documents it, and a scene in which
/// that table, and only it, holds the unknown key.
fn cases() -> Vec<(String, String)> {
    let fixed: Vec<(&str, String)> = vec![
        ("Top level", format!("{UNKNOWN}\n{BASE}")),
        ("`[simulation]`", in_block("[simulation]")),
        ("`[domain]`", in_block("[domain]")),
        ("`[[material]]`", in_block("[[material]]")),
        ("`[[particles]]`", in_block("[[particles]]")),
        (
            "`[[particles]]` `lattice`",
            edit(
                "positions = [[0.05, 0.05, 0.05]]",
                &format!("lattice = {{ spacing = 0.003, count = [1, 1, 1], {UNKNOWN} }}"),
            ),
        ),
        (
            "`[[particles]]` `members`",
            edit(
                "radius = 0.001\n",
                &format!(
                    "shape = \"clump\"\nmembers = [{{ offset = [0.0, 0.0, 0.0], radius = 0.001, \
                     {UNKNOWN} }}]\n"
                ),
            ),
        ),
        (
            "`[[wall]]`",
            wall(
                "plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
                "ZZ\n",
            ),
        ),
        (
            "`[[wall]]` `box`",
            wall(
                "box = { min = [0.0, 0.0, 0.0], max = [0.1, 0.1, 0.1], ZZ }",
                "",
            ),
        ),
        (
            "`[[wall]]` `mesh`",
            wall("mesh = { file = \"floor.stl\", ZZ }", ""),
        ),
        (
            "`[[wall]]` `motion`",
            wall(
                "plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
                "motion = { velocity = [0.0, 0.0, 0.0], ZZ }\n",
            ),
        ),
        (
            "`[[wall]]` `servo`",
            wall(
                "plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
                "servo = { force = -1.0, gain = 0.1, max_speed = 0.1, ZZ }\n",
            ),
        ),
        ("`[[interaction]]`", in_block("[[interaction]]")),
        ("`[[bond]]`", format!("{BASE}\n[[bond]]\n{UNKNOWN}\n")),
        ("`[[shell]]`", format!("{BASE}{MEMBRANE}{SHELL}{UNKNOWN}\n")),
        (
            "`[[shell]]` `icosphere`",
            format!(
                "{BASE}{MEMBRANE}{SHELL}icosphere = {{ center = [0.02, 0.02, 0.02], \
                 radius = 0.005, {UNKNOWN} }}\n"
            ),
        ),
        (
            "`[[shell]]` `contact` `node_to_triangle`",
            format!(
                "{BASE}{MEMBRANE}{SHELL}{ICOSPHERE}contact = {{ law = \"node_to_triangle\", {UNKNOWN} }}\n"
            ),
        ),
        (
            "`[[shell]]` `sheet`",
            format!(
                "{BASE}{MEMBRANE}{SHELL}sheet = {{ corner = [0.01, 0.01, 0.02], \
                 size = [0.01, 0.01], divisions = [2, 2], {UNKNOWN} }}\n"
            ),
        ),
        ("`[[ring]]`", format!("{}{UNKNOWN}\n", ring_base())),
        (
            "`[[ring]]` `circle`",
            format!(
                "{}circle = {{ center = [0.02, 0.02], radius = 0.005, nodes = 16, {UNKNOWN} }}\n",
                ring_base()
            ),
        ),
        (
            "`[[ring]]` `array`",
            format!(
                "{}{CIRCLE}stretch = {{ law = \"spring\", stiffness = 1.0 }}\narray = {{ count = [2, 1], spacing = [0.02, 0.0], {UNKNOWN} }}\n",
                ring_base()
            ),
        ),
        (
            "`[[ring]]` `stretch` `spring`",
            format!(
                "{}{CIRCLE}stretch = {{ law = \"spring\", {UNKNOWN} }}\n",
                ring_base()
            ),
        ),
        (
            "`[[ring]]` `contact` `node_to_segment`",
            format!(
                "{}{CIRCLE}contact = {{ law = \"node_to_segment\", {UNKNOWN} }}\n",
                ring_base()
            ),
        ),
        (
            "`[[ring]]` `area` `area_conservation`",
            format!(
                "{}{CIRCLE}area = {{ law = \"area_conservation\", {UNKNOWN} }}\n",
                ring_base()
            ),
        ),
        ("`[[insert]]`", format!("{BASE}\n[[insert]]\n{UNKNOWN}\n")),
        (
            "`[[insert]]` `box`",
            format!(
                "{BASE}{INSERT}box = {{ min = [0.01, 0.01, 0.01], max = [0.03, 0.03, 0.03], \
                 {UNKNOWN} }}\n"
            ),
        ),
        (
            "`[[insert]]` `cylinder`",
            format!(
                "{BASE}{INSERT}cylinder = {{ center = [0.05, 0.05, 0.01], \
                 axis = [0.0, 0.0, 1.0], radius = 0.01, height = 0.02, {UNKNOWN} }}\n"
            ),
        ),
        (
            "`[[insert]]` `radii` `distribution`",
            format!(
                "{BASE}{INSERT}{REGION}radii = {{ distribution = \"normal\", mean = 0.001, \
                 std = 0.0001, {UNKNOWN} }}\n"
            ),
        ),
        (
            "`[[insert]]` `radii` `table`",
            format!("{BASE}{INSERT}{REGION}radii = {{ table = [[0.001, 1.0]], {UNKNOWN} }}\n"),
        ),
        ("`[[cells]]`", format!("{BASE}\n[[cells]]\n{UNKNOWN}\n")),
        ("`[output]`", format!("{BASE}\n[output]\n{UNKNOWN}\n")),
        ("`[initial]`", format!("{BASE}\n[initial]\n{UNKNOWN}\n")),
    ];
    let mut owned: Vec<(String, String)> =
        fixed.into_iter().map(|(h, s)| (h.to_string(), s)).collect();
    // Each analytic wall kind's table, from its example.
    for kind in WallKind::ALL {
        let shape = format!("{} = {{ {}, ZZ }}", kind.keyword(), kind.example());
        owned.push((format!("`[[wall]]` `{}`", kind.keyword()), wall(&shape, "")));
    }
    // Each shell law's table, one per law of each slot.
    for slot in ShellSlot::ALL {
        for (word, _) in slot.laws() {
            owned.push((
                format!("`[[shell]]` `{}` `{word}`", slot.key()),
                format!(
                    "{BASE}{MEMBRANE}{SHELL}{ICOSPHERE}{} = {{ law = \"{word}\", {UNKNOWN} }}\n",
                    slot.key()
                ),
            ));
        }
    }
    owned
}

/// The accepted keys an unknown-key refusal lists, or a panic saying what came instead.
fn accepted_keys(heading: &str, scene: &str) -> Vec<String> {
    let err = match grains_scene::parse_scene(scene, Path::new("scene.toml")) {
        Ok(_) => panic!("{heading}: the scene with `{UNKNOWN}` parsed:\n{scene}"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("unknown key `zz_not_a_key`"),
        "{heading}: expected the unknown key refused, got: {err}\nscene:\n{scene}"
    );
    let (_, list) = err
        .split_once("accepted keys: ")
        .unwrap_or_else(|| panic!("{heading}: no `accepted keys:` in: {err}"));
    let mut keys: Vec<String> = list.split(", ").map(|k| k.trim().to_string()).collect();
    keys.sort();
    keys
}

/// The key tables of a reference: heading (the text after `### `) -> the keys of its rows
/// (those starting with ``| `key` |``), in order. A `## ` heading ends the table before it.
fn doc_tables(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut tables: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            current = Some(h.trim().to_string());
        } else if line.starts_with("## ") || line.starts_with("# ") {
            current = None;
        } else if let (Some(h), Some(rest)) = (&current, line.strip_prefix("| `")) {
            if let Some((key, _)) = rest.split_once("` |") {
                tables.entry(h.clone()).or_default().push(key.to_string());
            }
        }
    }
    tables
}

/// Every table the parser reads has a table in `docs/scenes.md` listing exactly the keys it
/// accepts, and every key table there is one the parser reads.
#[test]
fn reference_lists_every_key_of_every_table() {
    let text = std::fs::read_to_string(workspace_root().join("docs/scenes.md"))
        .expect("read docs/scenes.md");
    let tables = doc_tables(&text);
    let cases = cases();
    let mut problems = Vec::new();
    let mut keys_checked = 0;
    for (heading, scene) in &cases {
        let accepted = accepted_keys(heading, scene);
        let Some(documented) = tables.get(heading) else {
            problems.push(format!(
                "docs/scenes.md has no table `### {heading}`; the parser accepts: {}",
                accepted.join(", ")
            ));
            continue;
        };
        let mut sorted = documented.clone();
        sorted.sort();
        let before = sorted.len();
        sorted.dedup();
        if sorted.len() != before {
            problems.push(format!("{heading}: a key is listed twice: {documented:?}"));
        }
        let missing: Vec<&String> = accepted.iter().filter(|k| !sorted.contains(k)).collect();
        let extra: Vec<&String> = sorted.iter().filter(|k| !accepted.contains(k)).collect();
        if !missing.is_empty() {
            problems.push(format!(
                "{heading}: keys the parser accepts but the reference lacks: {missing:?}"
            ));
        }
        if !extra.is_empty() {
            problems.push(format!(
                "{heading}: keys the reference lists but the parser refuses: {extra:?}"
            ));
        }
        keys_checked += accepted.len();
    }
    for heading in tables.keys() {
        if !cases.iter().any(|(h, _)| h == heading) {
            problems.push(format!(
                "docs/scenes.md has a key table `### {heading}` that no case checks"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        cases.len() >= 30 && keys_checked >= 150,
        "{} tables, {keys_checked} keys",
        cases.len()
    );
}

/// Every contact law has its row, in its slot, in the law table of `scenes/README.md`, which
/// the reference points to for the laws' own keys; every shell law has its row there too,
/// naming each of its keys.
#[test]
fn every_law_has_its_row() {
    let text = std::fs::read_to_string(workspace_root().join("scenes/README.md"))
        .expect("read scenes/README.md");
    let row = |start: &str| text.lines().find(|l| l.starts_with(start));
    let mut missing: Vec<String> = LawKind::ALL
        .iter()
        .map(|law| format!("| {} | `{}` |", law.slot().key(), law.keyword()))
        .filter(|start| row(start).is_none())
        .collect();
    for slot in ShellSlot::ALL {
        for (word, keys) in slot.laws() {
            let start = format!("| `{}` | `{word}` |", slot.key());
            match row(&start) {
                None => missing.push(start),
                Some(line) => {
                    for k in keys.iter() {
                        if !line.contains(&format!("`{k}`")) {
                            missing.push(format!("{start} ... `{k}`"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "scenes/README.md lacks the law rows (or keys): {missing:?}"
    );
    let reference = std::fs::read_to_string(workspace_root().join("docs/scenes.md"))
        .expect("read docs/scenes.md");
    assert!(
        reference.contains("(../scenes/README.md)"),
        "docs/scenes.md links to the law tables of scenes/README.md"
    );
}
