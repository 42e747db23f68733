//! Shaders without a device: every pass, chain and harness composes and passes naga's
//! validator; WGSL files and CPU twins pair up; struct layouts agree with `kernel_types.rs`; the
//! registry's stems have files; the binding table of shaders/README.md is what naga reflects.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use grains_core::kernel_types::*;
use grains_core::kernels::sources::neighbour::FarSlot;
use grains_core::shapes::ShapeRecord;
use grains_core::{ChainSpec, LawKind, ResolverKind, Slot};
use grains_shaders::{
    compose_chain, compose_harness, compose_pass, harnesses, pass_stems, reflect_bindings,
    split_arrays, struct_layout, validate, wgsl_files, ArraySplit, BindingKind, ChainBinding,
    ShaderError, CHAIN_TEMPLATE,
};
use grains_tests::workspace_root;

const TWIN_DIRS: [&str; 6] = ["resolvers", "sources", "laws", "passes", "shell", "walls"];

fn validated(src: &str, label: &str) -> grains_shaders::naga::Module {
    validate(src, label).unwrap_or_else(|e| panic!("{e}"))
}

fn entry_point<'a>(
    module: &'a grains_shaders::naga::Module,
    name: &str,
) -> &'a grains_shaders::naga::EntryPoint {
    module
        .entry_points
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry point `{name}`"))
}

/// Chains that put every law of the registry in each slot it may fill, for each resolver on
/// each pair source it reads: the law alone if it is a normal law, else after the first normal
/// law; plus one chain with a law of every filled slot. Linear in the number of laws (the power
/// set would not survive 25).
fn registry_chains() -> Vec<ChainSpec> {
    let first_of = |slot: Slot| slot.laws().first().copied();
    let normal = first_of(Slot::Normal).expect("a normal law");
    let mut chains = Vec::new();
    for &r in ResolverKind::ALL {
        for &s in r.sources() {
            for &l in LawKind::ALL {
                let laws = if l.slot() == Slot::Normal {
                    vec![l]
                } else {
                    vec![normal, l]
                };
                chains.push(ChainSpec::on(s, r, laws));
            }
            let every: Vec<LawKind> = Slot::ALL.into_iter().filter_map(first_of).collect();
            chains.push(ChainSpec::on(s, r, every));
        }
    }
    chains
}

/// A composed chain validates, has its template's entry point, and its generated
/// `apply_chain` calls the laws in the chain's order.
fn check_chain(chain: &ChainSpec, chain_id: u32, binding: &ChainBinding) {
    let name = chain.name();
    let src = compose_chain(chain, chain_id, binding).unwrap_or_else(|e| panic!("{e}"));
    let module = validated(&src, &name);
    let ep = entry_point(&module, CHAIN_TEMPLATE);
    assert_eq!(ep.workgroup_size, [64, 1, 1], "{name}");
    assert!(
        src.contains(&format!("const CHAIN_ID: u32 = {chain_id}u;")),
        "{name}: chain id"
    );
    let body = &src[src
        .find("fn apply_chain(")
        .unwrap_or_else(|| panic!("{name}: no apply_chain"))..];
    let body = &body[..body.find("\n}\n").expect("end of apply_chain")];
    let mut at = 0;
    for law in &chain.laws {
        let call = format!("law_{}(geom, params.", law.stem());
        let k = body[at..]
            .find(&call)
            .unwrap_or_else(|| panic!("{name}: `{call}` missing or out of order"));
        at += k + call.len();
    }
    assert_eq!(
        body.matches("law_").count(),
        chain.laws.len(),
        "{name}: apply_chain calls exactly the chain's laws"
    );
}

#[test]
fn every_pass_composes_and_validates() {
    let stems = pass_stems();
    for stem in [
        "integrate_first_half",
        "integrate_second_half",
        "cell_count",
        "scan_blocks",
        "prefix_sum",
        "scan_add",
        "cell_scatter",
        "pair_count",
        "pair_fill",
        "pair_record",
        "slot_carry",
        "gather",
        "gather_kick",
    ] {
        assert!(stems.contains(&stem), "pass `{stem}` missing");
    }
    for stem in stems {
        let src = compose_pass(stem).unwrap_or_else(|e| panic!("{e}"));
        let module = validated(&src, stem);
        let compute: Vec<_> = module
            .entry_points
            .iter()
            .filter(|e| e.stage == grains_shaders::naga::ShaderStage::Compute)
            .collect();
        assert_eq!(compute.len(), 1, "{stem}: one entry point");
        assert_eq!(
            compute[0].name, stem,
            "{stem}: entry point named after the file"
        );
        let scan = ["prefix_sum", "scan_blocks", "scan_add"];
        let size = if scan.contains(&stem) { 256 } else { 64 };
        assert_eq!(compute[0].workgroup_size, [size, 1, 1], "{stem}");
        for b in reflect_bindings(&module, stem) {
            assert_eq!(b.group, 0, "{stem}: `{}` outside group 0", b.name);
        }
    }
}

#[test]
fn the_chain_template_is_not_a_standalone_pass() {
    let t = CHAIN_TEMPLATE;
    match compose_pass(t) {
        Err(ShaderError::UnfilledSlot { slot, .. }) => {
            assert!(slot == "source" || slot == "chain", "{slot}")
        }
        other => panic!("compose_pass({t}) should need a source and a chain, got {other:?}"),
    }
    assert!(matches!(
        compose_pass("no_such_pass"),
        Err(ShaderError::UnknownFile { .. })
    ));
}

#[test]
fn every_resolver_and_law_validates_in_chains() {
    let chains = registry_chains();
    for &r in ResolverKind::ALL {
        assert!(chains.iter().any(|c| c.resolver == r), "{r:?} untested");
    }
    for l in LawKind::ALL {
        assert!(chains.iter().any(|c| c.laws.contains(l)), "{l:?} untested");
    }
    for (id, chain) in chains.iter().enumerate() {
        // Tight records, and records padded to wider strides, as a table with other chains has.
        let tight = ChainBinding::tight(chain);
        check_chain(chain, id as u32, &tight);
        let wide = ChainBinding {
            params_stride: tight.params_stride + 4,
            history_stride: tight.history_stride + 8,
            range: 1e-4,
            list_order: 1,
            list_last: false,
        };
        check_chain(chain, id as u32, &wide);
    }
}

#[test]
fn every_scene_chain_validates() {
    let dir = workspace_root().join("scenes");
    let mut scenes: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    scenes.sort();
    for path in scenes {
        // A scene that does not load is the scene tests' business (some read particle files
        // generated by the benchmark kit); its chains cannot be known here.
        let scene = match grains_scene::load_scene(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("skipping {}: {e}", path.display());
                continue;
            }
        };
        for (id, chain) in scene.world.table.chains.iter().enumerate() {
            check_chain(chain, id as u32, &ChainBinding::of(&scene.world.table, id));
        }
    }
}

#[test]
fn every_harness_composes_and_validates() {
    let list = harnesses();
    for &r in ResolverKind::ALL {
        let name = format!("harness_resolve_{}", r.stem());
        assert!(list.iter().any(|(n, _)| *n == name), "no harness {name}");
    }
    for l in LawKind::ALL {
        let name = format!("harness_law_{}", l.stem());
        assert!(list.iter().any(|(n, _)| *n == name), "no harness {name}");
    }
    for (name, entry) in list {
        let src = compose_harness(&name).unwrap_or_else(|e| panic!("{e}"));
        let module = validated(&src, &name);
        assert_eq!(entry_point(&module, entry).workgroup_size, [64, 1, 1]);
    }
    assert!(matches!(
        compose_harness("harness_law_no_such_law"),
        Err(ShaderError::UnknownHarness { .. })
    ));
}

#[test]
fn errors_carry_label_and_naga_rendering() {
    let e = validate("fn f() -> u32 { return 1.5; }", "broken.wgsl").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("broken.wgsl"), "{msg}");
    assert!(msg.contains("return 1.5"), "naga's excerpt missing: {msg}");
    let e = validate(
        "@group(0) @binding(0) var<storage, read> a: array<u32>;\n\
         @compute @workgroup_size(1) fn main() { a[0] = 1u; }",
        "readonly.wgsl",
    )
    .unwrap_err();
    assert!(matches!(e, ShaderError::Validation { .. }), "{e}");
    assert!(e.to_string().contains("readonly.wgsl"), "{e}");
}

/// `(stem, path)` of the files with extension `ext` directly in `dir`, minus `mod.rs`.
fn stems_in(dir: &Path, ext: &str) -> BTreeMap<String, std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| p.file_name().is_some_and(|n| n != "mod.rs"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect()
}

#[test]
fn every_wgsl_file_has_its_twin_and_names_it() {
    let root = workspace_root();
    let mut problems = Vec::new();
    for dir in TWIN_DIRS {
        let wgsl = stems_in(&root.join("shaders").join(dir), "wgsl");
        let rust = stems_in(&root.join("crates/grains-core/src/kernels").join(dir), "rs");
        assert!(!wgsl.is_empty(), "shaders/{dir} is empty");
        for stem in wgsl.keys().filter(|s| !rust.contains_key(*s)) {
            problems.push(format!(
                "shaders/{dir}/{stem}.wgsl has no twin crates/grains-core/src/kernels/{dir}/{stem}.rs"
            ));
        }
        for stem in rust.keys().filter(|s| !wgsl.contains_key(*s)) {
            problems.push(format!(
                "crates/grains-core/src/kernels/{dir}/{stem}.rs has no twin shaders/{dir}/{stem}.wgsl"
            ));
        }
        for (stem, path) in &wgsl {
            let text = std::fs::read_to_string(path).unwrap();
            let want = format!("// CPU twin: crates/grains-core/src/kernels/{dir}/{stem}.rs");
            if text.lines().next() != Some(want.as_str()) {
                problems.push(format!(
                    "shaders/{dir}/{stem}.wgsl: first line is not `{want}`"
                ));
            }
        }
        for (stem, path) in &rust {
            let text = std::fs::read_to_string(path).unwrap();
            let header: String = text
                .lines()
                .take_while(|l| l.starts_with("//!"))
                .collect::<Vec<_>>()
                .join(" ");
            let want = format!("shaders/{dir}/{stem}.wgsl");
            if !header.contains(&want) {
                problems.push(format!(
                    "crates/grains-core/src/kernels/{dir}/{stem}.rs: header does not name `{want}`"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn embedded_files_match_the_shaders_directory() {
    let root = workspace_root().join("shaders");
    let mut on_disk = BTreeSet::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "wgsl") {
                let rel = p.strip_prefix(&root).unwrap().to_string_lossy();
                on_disk.insert(rel.replace('\\', "/"));
            }
        }
    }
    let embedded: BTreeSet<String> = wgsl_files().iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(embedded, on_disk);
    for (rel, src) in wgsl_files() {
        let disk = std::fs::read_to_string(root.join(rel)).unwrap();
        assert_eq!(src, disk, "{rel}: embedded copy is stale");
    }
}

#[test]
fn registry_stems_have_files() {
    let files: BTreeSet<&str> = wgsl_files().iter().map(|(p, _)| *p).collect();
    for &r in ResolverKind::ALL {
        let path = format!("resolvers/{}.wgsl", r.stem());
        assert!(files.contains(path.as_str()), "{r:?}: no {path}");
        let (_, src) = wgsl_files().into_iter().find(|(p, _)| *p == path).unwrap();
        assert!(
            src.contains(&format!("fn resolve_{}(", r.stem())),
            "{path} lacks resolve_{}",
            r.stem()
        );
    }
    for l in LawKind::ALL {
        let path = format!("laws/{}.wgsl", l.stem());
        assert!(files.contains(path.as_str()), "{l:?}: no {path}");
        let (_, src) = wgsl_files().into_iter().find(|(p, _)| *p == path).unwrap();
        assert!(
            src.contains(&format!("fn law_{}(", l.stem())),
            "{path} lacks law_{}",
            l.stem()
        );
    }
}

/// `(type name, size, [(field, offset)])` of a Rust struct, fields listed by hand: a field added
/// on one side only changes the size or the field list, and the test fails.
macro_rules! rust_layout {
    ($t:ident { $($f:ident),* $(,)? }) => {
        (
            stringify!($t),
            std::mem::size_of::<$t>() as u32,
            vec![$((stringify!($f).to_string(), std::mem::offset_of!($t, $f) as u32)),*],
        )
    };
}

#[test]
fn struct_layouts_match_kernel_types() {
    let (_, types) = wgsl_files()
        .into_iter()
        .find(|(p, _)| *p == "lib/types.wgsl")
        .expect("lib/types.wgsl");
    let module = validated(types, "lib/types.wgsl");
    let rust = [
        rust_layout!(SphereBody {
            pos,
            radius,
            vel,
            inv_mass,
            omega,
            _pad
        }),
        rust_layout!(CapsuleBody {
            pos,
            radius,
            vel,
            inv_mass,
            omega,
            half_length,
            axis,
            _pad
        }),
        rust_layout!(ShapeRecord { kind, data }),
        rust_layout!(Triangle {
            a,
            body,
            b,
            _pad_b,
            c,
            _pad_c
        }),
        rust_layout!(Wall {
            point,
            material,
            normal,
            radius,
            velocity,
            kind,
            omega,
            hollow,
            center,
            start,
            stop,
            steps,
            moving,
            moved,
            slope,
            table_start,
            table_rows,
            steered
        }),
        rust_layout!(DomainParams {
            min,
            periodic_mask,
            max,
            _pad0,
            length,
            _pad1
        }),
        rust_layout!(ContactGeom {
            normal,
            delta,
            point,
            r_eff,
            vrel,
            m_eff,
            arm1,
            fraction,
            arm2,
            dt,
            lengths,
            _pad,
            wrel,
            _pad2,
            alignment,
            _pad3
        }),
        rust_layout!(ContactForce {
            force,
            normal_force,
            torque1,
            stiffness,
            torque2,
            elastic,
            damping_dissipated,
            friction_dissipated,
            gamma_n,
            gamma_t,
            stiffness_t,
            area,
            _pad
        }),
        rust_layout!(PairSlot {
            force,
            elastic,
            torque1,
            damping_dissipated,
            torque2,
            friction_dissipated
        }),
        rust_layout!(StepParams {
            gravity,
            dt,
            n_particles,
            n_walls,
            n_materials,
            skin,
            unit,
            nbr_history_stride,
            n_fixed,
            max_speed,
            own_sums,
            planar,
            kick,
            n_bodies,
            n_triangles,
            division_first,
            division_pairs,
            _pad5
        }),
        rust_layout!(FarSlot {
            force,
            elastic,
            torque
        }),
        rust_layout!(SourcePair { p, q, table, owns }),
        rust_layout!(GridParams {
            origin,
            cutoff,
            cell_size,
            n_cells,
            dims,
            periodic_mask
        }),
        rust_layout!(SolveParams {
            coef,
            explicit_gamma,
            explicit_stiffness,
            wall_factor,
            mode,
            history_words,
            fixed_stride,
            lambda,
            _pad1
        }),
        rust_layout!(MatBlock {
            normal,
            partner,
            gamma_n,
            gamma_t,
            stiffness_n,
            stiffness_t
        }),
        rust_layout!(SymBlock { p0, p1 }),
    ];
    let mut problems = Vec::new();
    for (name, size, fields) in rust {
        let Some((wsize, wfields)) = struct_layout(&module, name) else {
            problems.push(format!("{name}: no struct in lib/types.wgsl"));
            continue;
        };
        if wsize != size {
            problems.push(format!("{name}: size {size} in Rust, {wsize} in WGSL"));
        }
        if wfields != fields {
            problems.push(format!(
                "{name}: fields differ\n  Rust: {fields:?}\n  WGSL: {wfields:?}"
            ));
        }
    }
    // Each law's records, from its own WGSL file, against the layouts its module declares.
    // Records are 4-byte scalars only, so they concatenate without padding into a chain's.
    for &law in LawKind::ALL {
        let path = format!("laws/{}.wgsl", law.stem());
        let src = grains_shaders::compose_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let module = validated(&src, &path);
        let mut names = vec![law.params_struct()];
        names.extend(law.history_struct());
        let layouts = law.layouts();
        for name in names {
            let Some((_, size, fields)) = layouts.iter().find(|(n, _, _)| *n == name) else {
                problems.push(format!("{law:?}: {name} has no Rust layout in layouts()"));
                continue;
            };
            let Some((wsize, wfields)) = struct_layout(&module, name) else {
                problems.push(format!("{law:?}: no struct {name} in {path}"));
                continue;
            };
            if wsize != *size || wfields != *fields {
                problems.push(format!(
                    "{name}: Rust {size} {fields:?}, WGSL {wsize} {wfields:?}"
                ));
            }
            if size % 4 != 0 {
                problems.push(format!("{name}: {size} bytes is not whole words"));
            }
        }
        let words = layouts
            .iter()
            .find(|(n, _, _)| Some(*n) == law.history_struct())
            .map(|(_, size, _)| *size as usize / 4)
            .unwrap_or(0);
        if words != law.history_words().len() {
            problems.push(format!(
                "{law:?}: history struct of {words} words, HISTORY_WORDS lists {}",
                law.history_words().len()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tables of shaders/README.md: heading name -> rows `(binding, name, access, type)`.
fn readme_tables() -> BTreeMap<String, Vec<(u32, String, String, String)>> {
    let text = std::fs::read_to_string(workspace_root().join("shaders/README.md")).unwrap();
    let mut out: BTreeMap<String, Vec<_>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### `") {
            let name = h.split('`').next().unwrap().to_string();
            out.insert(name.clone(), Vec::new());
            current = Some(name);
            continue;
        }
        let Some(cur) = &current else { continue };
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| # | name | access | type | holds |` splits into 7 cells, empty at both ends.
        if cells.len() < 6 {
            continue;
        }
        let Ok(binding) = cells[1].parse::<u32>() else {
            continue;
        };
        let strip = |s: &str| s.trim_matches('`').to_string();
        out.get_mut(cur).unwrap().push((
            binding,
            strip(cells[2]),
            cells[3].to_string(),
            strip(cells[4]),
        ));
    }
    out
}

/// A harness binds the records of the element it runs (naga resolves the aliases): the README
/// names them by their aliases, `HarnessParams` and `HarnessHistory` for a law's, `HarnessBody1`
/// and `HarnessBody2` for the bodies `b1` and `b2` of a resolver's.
fn harness_neutral(label: &str, binding: &str, type_name: String) -> String {
    if let Some(r) = ResolverKind::ALL.iter().find(|r| r.harness() == label) {
        let (body1, body2) = r.harness_bodies();
        return match binding {
            "b1" => type_name.replace(body1, "HarnessBody1"),
            "b2" => type_name.replace(body2, "HarnessBody2"),
            _ => type_name,
        };
    }
    let Some(law) = label
        .strip_prefix("harness_law_")
        .and_then(|stem| LawKind::ALL.iter().find(|l| l.stem() == stem))
    else {
        return type_name;
    };
    let mut t = type_name.replace(law.params_struct(), "HarnessParams");
    if let Some(h) = law.history_struct() {
        t = t.replace(h, "HarnessHistory");
    }
    t
}

#[test]
fn readme_binding_tables_match_reflection() {
    let tables = readme_tables();
    let mut modules: Vec<(String, String, String, String)> = Vec::new(); // (table, label, entry, src)
                                                                         // Chains of the list's sources whose laws keep no history: their packed history is never
                                                                         // read or written, so they bind neither `history` nor `history_in`.
    let mut historyless = BTreeSet::new();
    for stem in pass_stems() {
        modules.push((
            stem.into(),
            stem.into(),
            stem.into(),
            compose_pass(stem).unwrap(),
        ));
    }
    for chain in registry_chains() {
        // The template's bindings, then those of the chain's pair source.
        let t = format!("{CHAIN_TEMPLATE}_{}", chain.source.stem());
        if chain.source.in_list() && chain.layout().history_words == 0 {
            historyless.insert(chain.name());
        }
        modules.push((
            t,
            chain.name(),
            CHAIN_TEMPLATE.into(),
            compose_chain(&chain, 0, &ChainBinding::tight(&chain)).unwrap(),
        ));
    }
    for (name, entry) in harnesses() {
        let table = if name.starts_with("harness_law_") {
            "harness_law_<stem>".to_string()
        } else if name.starts_with("harness_resolve_") {
            "harness_resolve_<stem>".to_string()
        } else {
            name.clone()
        };
        modules.push((
            table,
            name.clone(),
            entry.into(),
            compose_harness(&name).unwrap(),
        ));
    }
    let mut problems = Vec::new();
    for (table, label, entry, src) in &modules {
        let Some(rows) = tables.get(table) else {
            problems.push(format!(
                "shaders/README.md has no table `{table}` (for {label})"
            ));
            continue;
        };
        let module = validated(src, label);
        let reflected: Vec<_> = reflect_bindings(&module, entry)
            .into_iter()
            .map(|b| {
                let access = match b.kind {
                    BindingKind::Uniform => "uniform",
                    BindingKind::StorageRead | BindingKind::TextureRead => "read",
                    BindingKind::StorageReadWrite | BindingKind::TextureReadWrite => "read_write",
                };
                let type_name = harness_neutral(label, &b.name, b.type_name);
                (b.binding, b.name, access.to_string(), type_name)
            })
            .collect();
        // A chain's bindings 20 to 23 are those of shapes beyond the sphere: each must be a
        // row of `contact_shape`; the rest are its source's table.
        let (reflected, shape_rows): (Vec<_>, Vec<_>) = if table.starts_with(CHAIN_TEMPLATE) {
            reflected
                .into_iter()
                .partition(|r| !(20..24).contains(&r.0))
        } else {
            (reflected, Vec::new())
        };
        let shape_table = tables.get("contact_shape").cloned().unwrap_or_default();
        for r in &shape_rows {
            if !shape_table.contains(r) {
                problems.push(format!(
                    "{label}: binding {r:?} is not a row of README table `contact_shape`"
                ));
            }
        }
        let rows: Vec<_> = rows
            .iter()
            .filter(|r| !(historyless.contains(label) && r.1.starts_with("history")))
            .cloned()
            .collect();
        if reflected != rows {
            problems.push(format!(
                "{label}: README table `{table}` differs from reflection\n  README: {rows:?}\n  naga:   {reflected:?}"
            ));
        }
    }
    let mut used: BTreeSet<&String> = modules.iter().map(|m| &m.0).collect();
    let shape = "contact_shape".to_string();
    used.insert(&shape);
    for t in tables.keys().filter(|t| !used.contains(t)) {
        problems.push(format!("shaders/README.md documents unknown kernel `{t}`"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every runtime-sized array `src` binds, split in three parts of 7 elements.
fn split_all(label: &str, src: &str) -> String {
    let module = validated(src, label);
    let splits: Vec<ArraySplit> = grains_shaders::module_bindings(&module)
        .into_iter()
        .filter(|b| b.stride > 0)
        .map(|b| ArraySplit {
            name: b.name,
            chunk: 7,
            parts: 3,
        })
        .collect();
    assert!(!splits.is_empty(), "{label}: no array to split");
    split_arrays(label, src, &splits).unwrap_or_else(|e| panic!("{e}"))
}

/// `(label, composed WGSL, entry point)` of every pass and every registry chain.
fn pass_and_chain_sources() -> Vec<(String, String, String)> {
    let mut sources: Vec<(String, String, String)> = pass_stems()
        .into_iter()
        .map(|s| (s.to_string(), compose_pass(s).unwrap(), s.to_string()))
        .collect();
    for (id, chain) in registry_chains().iter().enumerate() {
        let src = compose_chain(chain, id as u32, &ChainBinding::tight(chain)).unwrap();
        sources.push((chain.name(), src, CHAIN_TEMPLATE.to_string()));
    }
    sources
}

/// Where the storage buffers a stage binds reach less than a kernel's arrays, an array can be
/// held in storage textures instead (`grains_shaders::texture_arrays`): every pass and every
/// chain of the registry validates with each array it does not update atomically in three
/// textures, keeps its entry point's bindings (those arrays' as read or read-write textures,
/// as their buffers were) and binds two more textures for each.
#[test]
fn every_pass_and_chain_validates_with_its_arrays_in_textures() {
    let sources = pass_and_chain_sources();
    let mut held = 0;
    for (label, src, entry) in sources {
        let before = reflect_bindings(&validated(&src, &label), &entry);
        let arrays: Vec<ArraySplit> = grains_shaders::module_bindings(&validated(&src, &label))
            .into_iter()
            .filter(|b| b.stride > 0 && !b.type_name.contains("atomic"))
            .map(|b| ArraySplit {
                name: b.name,
                chunk: 7,
                parts: 3,
            })
            .collect();
        let text =
            grains_shaders::texture_arrays(&label, &src, &arrays).unwrap_or_else(|e| panic!("{e}"));
        let module = validate(&text, &label).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let after = reflect_bindings(&module, &entry);
        for b in &before {
            let a = after.iter().find(|a| a.name == b.name);
            let a = a.unwrap_or_else(|| panic!("{label}: `{}` is no longer bound", b.name));
            if !arrays.iter().any(|x| x.name == b.name) {
                assert_eq!(a.kind, b.kind, "{label}: {}", b.name);
                continue;
            }
            held += 1;
            let kind = if b.kind == BindingKind::StorageReadWrite {
                BindingKind::TextureReadWrite
            } else {
                BindingKind::TextureRead
            };
            for p in 0..3 {
                let part = grains_shaders::part_name(&b.name, p);
                let t = after.iter().find(|a| a.name == part);
                let t = t.unwrap_or_else(|| panic!("{label}: `{part}` is not bound"));
                assert_eq!(t.kind, kind, "{label}: {part}");
            }
        }
    }
    assert!(held > 100, "only {held} arrays went into textures");
}

/// An array larger than the adapter's storage binding is bound as several
/// (`grains_shaders::split_arrays`): every pass and every chain of the registry still
/// validates with each of its arrays split, and keeps its entry point's bindings, plus two
/// parts of each array.
#[test]
fn every_pass_and_chain_validates_with_its_arrays_split() {
    let sources = pass_and_chain_sources();
    for (label, src, entry) in sources {
        let split = split_all(&label, &src);
        let before = reflect_bindings(&validated(&src, &label), &entry);
        let module = validate(&split, &label).unwrap_or_else(|e| panic!("{e}\n{split}"));
        let after = reflect_bindings(&module, &entry);
        for b in &before {
            assert!(
                after.iter().any(|a| a.name == b.name),
                "{label}: `{}` is no longer bound",
                b.name
            );
            if b.stride > 0 {
                for p in 1..3 {
                    let part = grains_shaders::part_name(&b.name, p);
                    let a = after.iter().find(|a| a.name == part);
                    let a = a.unwrap_or_else(|| panic!("{label}: `{part}` is not bound"));
                    assert_eq!((a.kind, a.stride), (b.kind, b.stride), "{label}: {part}");
                }
            }
        }
    }
}
