//! Output files: `particles.csv`, `energy.csv`, `.vtu` frames and the `.pvd` series, read back
//! byte for byte against what was written.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use grains_core::{EnergyReport, Snapshot};
use grains_io::{
    frame_file_name, IoError, OutputLock, OutputOptions, OutputWriter, ResumePoint, ENERGY_HEADER,
    PARTICLES_HEADER,
};
use grains_tests::scenes::SceneText;

/// A fresh directory per test, so tests running in parallel never share files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-io-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn options(dir: &Path) -> OutputOptions {
    OutputOptions {
        dir: dir.to_path_buf(),
        vtk: true,
        csv: true,
        energy: true,
        contacts: true,
        bonds: true,
        walls: true,
        stress: false,
        cells: false,
    }
}

/// Three particles whose every value differs, with negatives, tiny, huge and inexact numbers,
/// so a swapped column or a lossy format shows.
fn snapshot(step: u64, time: f64, shift: f32) -> Snapshot<'static> {
    let v = |base: f32| -> [f32; 4] { [base + shift, -base * 0.1, base * 1e-30, 0.3 + base] };
    Snapshot {
        step,
        time,
        pos: vec![
            [0.1 + shift, 0.2, -0.3, 0.001],
            [1e-30, -1e-30, 123456.79, 2.5e-4],
            [-7.0e-6, 0.0, -0.0, 3.4e38],
        ]
        .into(),
        vel: vec![v(1.0), v(-2.0), [1e-38, -9.9e-5, 1e7, 1.0]].into(),
        omega: vec![v(3.0), v(4.5), v(-6.25)].into(),
        quat: vec![[0.0, 0.0, 0.0, 1.0]; 3].into(),
        force: vec![v(7.0), v(8.125), [f32::MIN_POSITIVE, -1e-45, 0.1, 0.0]].into(),
        torque: vec![v(10.0), v(-11.0), v(12.0)].into(),
        material: vec![0, 7, u32::MAX].into(),
    }
}

fn bits(v: f32) -> u32 {
    v.to_bits()
}

#[test]
fn particles_csv_round_trips_exactly() -> anyhow::Result<()> {
    let dir = scratch("csv");
    let frames = [snapshot(0, 0.0, 0.0), snapshot(250, 0.0025, 0.5)];
    let ids = [10u64, 20, u64::MAX];
    let mut w = OutputWriter::create(&options(&dir))?;
    w.write_frame(&frames[0], None)?;
    w.write_frame(&frames[1], Some(&ids))?;
    w.finish()?;
    assert_eq!(w.frames_written(), 2);

    let text = fs::read_to_string(dir.join("particles.csv"))?;
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("step,time,id,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz,radius")
    );
    assert_eq!(PARTICLES_HEADER, text.lines().next().unwrap_or_default());
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6, "3 particles x 2 frames");
    for (r, row) in rows.iter().enumerate() {
        let (snap, i) = (&frames[r / 3], r % 3);
        assert_eq!(row.len(), 19, "row {r}: {row:?}");
        assert_eq!(row[0].parse::<u64>()?, snap.step);
        assert_eq!(row[1].parse::<f64>()?.to_bits(), snap.time.to_bits());
        let id = if r < 3 { i as u64 } else { ids[i] };
        assert_eq!(row[2].parse::<u64>()?, id);
        let mut want = Vec::new();
        for a in [&snap.pos, &snap.vel, &snap.omega, &snap.force, &snap.torque] {
            want.extend_from_slice(&a[i][..3]);
        }
        want.push(snap.pos[i][3]);
        for (k, (text, want)) in row[3..].iter().zip(&want).enumerate() {
            let got: f32 = text.parse()?;
            assert_eq!(bits(got), bits(*want), "row {r} column {}: {text}", k + 3);
        }
    }

    // The same state written again is the same bytes: nothing depends on timing or history.
    let dir2 = scratch("csv-again");
    let mut w = OutputWriter::create(&options(&dir2))?;
    w.write_frame(&frames[0], None)?;
    w.write_frame(&frames[1], Some(&ids))?;
    w.finish()?;
    assert_eq!(fs::read(dir2.join("particles.csv"))?, text.as_bytes());

    // A new writer in the same directory starts the table afresh.
    let w = OutputWriter::create(&options(&dir))?;
    drop(w);
    let again = fs::read_to_string(dir.join("particles.csv"))?;
    assert_eq!(again, format!("{PARTICLES_HEADER}\n"));

    fs::remove_dir_all(&dir)?;
    fs::remove_dir_all(&dir2)?;
    Ok(())
}

/// One `<DataArray .../>` of a `.vtu` header.
#[derive(Debug)]
struct DataArray {
    attrs: BTreeMap<String, String>,
}

impl DataArray {
    fn get(&self, key: &str) -> &str {
        self.attrs.get(key).map_or("", String::as_str)
    }
}

/// `key="value"` pairs of one tag body.
fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq]
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        let after = &rest[eq + 2..];
        let end = after.find('"').unwrap_or(after.len());
        out.insert(key, after[..end].to_string());
        rest = &after[(end + 1).min(after.len())..];
    }
    out
}

/// The body of the first `<name ...>` tag in `xml`.
fn tag_attributes(xml: &str, name: &str) -> BTreeMap<String, String> {
    let start = xml
        .find(&format!("<{name} "))
        .unwrap_or_else(|| panic!("no <{name}> in {xml}"));
    let end = start + xml[start..].find('>').unwrap_or(0);
    attributes(&xml[start..end])
}

struct Vtu {
    header: String,
    arrays: Vec<DataArray>,
    /// Everything after the `_` marker.
    data: Vec<u8>,
}

fn read_vtu(path: &Path) -> anyhow::Result<Vtu> {
    let bytes = fs::read(path)?;
    let marker = b"<AppendedData encoding=\"raw\">";
    let at = bytes
        .windows(marker.len())
        .position(|w| w == marker)
        .ok_or_else(|| anyhow::anyhow!("no raw AppendedData in {}", path.display()))?;
    let underscore = at
        + marker.len()
        + bytes[at + marker.len()..]
            .iter()
            .position(|&b| b == b'_')
            .ok_or_else(|| anyhow::anyhow!("no _ marker"))?;
    // Only whitespace may stand between the tag and the marker.
    assert!(bytes[at + marker.len()..underscore]
        .iter()
        .all(u8::is_ascii_whitespace));
    let header = String::from_utf8(bytes[..underscore].to_vec())?;
    let arrays = header
        .match_indices("<DataArray ")
        .map(|(i, _)| {
            let end = i + header[i..].find("/>").unwrap_or(0);
            DataArray {
                attrs: attributes(&header[i..end]),
            }
        })
        .collect();
    Ok(Vtu {
        header,
        arrays,
        data: bytes[underscore + 1..].to_vec(),
    })
}

impl Vtu {
    fn array(&self, name: &str) -> &DataArray {
        self.arrays
            .iter()
            .find(|a| a.get("Name") == name)
            .unwrap_or_else(|| panic!("no DataArray {name}"))
    }

    /// The payload of the block a `DataArray` points at, after its UInt64 byte count.
    fn block(&self, name: &str) -> &[u8] {
        let offset: usize = self.array(name).get("offset").parse().expect("offset");
        let len = u64::from_le_bytes(self.data[offset..offset + 8].try_into().expect("8 bytes"));
        &self.data[offset + 8..offset + 8 + len as usize]
    }

    fn f32s(&self, name: &str) -> Vec<f32> {
        self.block(name)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    fn i64s(&self, name: &str) -> Vec<i64> {
        self.block(name)
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }
}

#[test]
fn vtu_frames_decode_and_pvd_lists_them() -> anyhow::Result<()> {
    let dir = scratch("vtu");
    let frames = [snapshot(0, 0.0, 0.0), snapshot(250, 0.0025, 0.5)];
    let mut w = OutputWriter::create(&options(&dir))?;
    for f in &frames {
        w.write_frame(f, None)?;
    }
    w.finish()?;

    for snap in &frames {
        let name = frame_file_name(snap.step);
        assert_eq!(name, format!("frame_{:08}.vtu", snap.step));
        let vtu = read_vtu(&dir.join(&name))?;
        assert!(vtu.header.starts_with("<?xml version=\"1.0\"?>\n"));
        let file = tag_attributes(&vtu.header, "VTKFile");
        assert_eq!(file["type"], "UnstructuredGrid");
        assert_eq!(file["byte_order"], "LittleEndian");
        assert_eq!(file["header_type"], "UInt64");
        let piece = tag_attributes(&vtu.header, "Piece");
        assert_eq!(piece["NumberOfPoints"], "3");
        assert_eq!(piece["NumberOfCells"], "3");

        // Every block: its offset follows the previous block exactly, its byte count matches
        // type x components x points, and the last one ends where the closing tags begin.
        let mut arrays: Vec<&DataArray> = vtu.arrays.iter().collect();
        arrays.sort_by_key(|a| a.get("offset").parse::<usize>().unwrap_or(usize::MAX));
        let mut expect_offset = 0usize;
        for a in &arrays {
            assert_eq!(a.get("format"), "appended", "{a:?}");
            let offset: usize = a.get("offset").parse()?;
            assert_eq!(offset, expect_offset, "{a:?}");
            let size = match a.get("type") {
                "Float32" | "UInt32" | "Int32" => 4,
                "Int64" | "UInt64" | "Float64" => 8,
                "UInt8" => 1,
                other => anyhow::bail!("unexpected type {other}"),
            };
            let comps: usize = a
                .attrs
                .get("NumberOfComponents")
                .map_or(Ok(1), |c| c.parse())?;
            let len = u64::from_le_bytes(vtu.data[offset..offset + 8].try_into()?) as usize;
            assert_eq!(len, 3 * size * comps, "{a:?}");
            expect_offset = offset + 8 + len;
        }
        assert_eq!(
            &vtu.data[expect_offset..],
            b"\n  </AppendedData>\n</VTKFile>\n"
        );
        let names: Vec<&str> = arrays.iter().map(|a| a.get("Name")).collect();
        for want in [
            "id",
            "radius",
            "velocity",
            "angular_velocity",
            "orientation",
            "force",
            "torque",
            "material",
            "Points",
            "connectivity",
            "offsets",
            "types",
        ] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        assert_eq!(vtu.array("radius").get("type"), "Float32");
        assert_eq!(vtu.array("velocity").get("NumberOfComponents"), "3");
        assert_eq!(vtu.array("material").get("type"), "UInt32");
        assert_eq!(vtu.array("orientation").get("NumberOfComponents"), "4");

        let radius = vtu.f32s("radius");
        let want: Vec<f32> = snap.pos.iter().map(|p| p[3]).collect();
        assert_eq!(
            radius.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        for (field, rows) in [
            ("velocity", &snap.vel),
            ("Points", &snap.pos),
            ("force", &snap.force),
        ] {
            let got = vtu.f32s(field);
            let want: Vec<f32> = rows.iter().flat_map(|r| r[..3].to_vec()).collect();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{field}"
            );
        }
        assert_eq!(vtu.i64s("id"), [0, 1, 2]);
        assert_eq!(vtu.i64s("connectivity"), [0, 1, 2]);
        assert_eq!(vtu.i64s("offsets"), [1, 2, 3]);
        assert_eq!(vtu.block("types"), [1, 1, 1]);
        let material: Vec<u32> = vtu
            .block("material")
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(material[..], snap.material[..]);
    }

    let pvd = fs::read_to_string(dir.join("particles.pvd"))?;
    assert_eq!(tag_attributes(&pvd, "VTKFile")["type"], "Collection");
    let sets: Vec<BTreeMap<String, String>> = pvd
        .match_indices("<DataSet ")
        .map(|(i, _)| attributes(&pvd[i..i + pvd[i..].find("/>").unwrap_or(0)]))
        .collect();
    assert_eq!(sets.len(), 2, "{pvd}");
    for (set, snap) in sets.iter().zip(&frames) {
        assert_eq!(set["file"], frame_file_name(snap.step));
        assert_eq!(
            set["timestep"].parse::<f64>()?.to_bits(),
            snap.time.to_bits()
        );
    }
    assert!(!dir.join("particles.pvd.tmp").exists());

    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A snapshot without orientations (no particle keeps one) writes every orientation as the
/// identity: the same file, byte for byte, as the identities given.
#[test]
fn a_vtu_frame_without_orientations_writes_the_identity() -> anyhow::Result<()> {
    let (given, none) = (scratch("vtu-quat-given"), scratch("vtu-quat-none"));
    let with = snapshot(0, 0.0, 0.0);
    let mut without = snapshot(0, 0.0, 0.0);
    without.quat = Vec::new().into();
    for (dir, snap) in [(&given, &with), (&none, &without)] {
        let mut w = OutputWriter::create(&options(dir))?;
        w.write_frame(snap, None)?;
        w.finish()?;
    }
    let name = frame_file_name(0);
    assert_eq!(fs::read(given.join(&name))?, fs::read(none.join(&name))?);
    // Orientations for some particles only are an error, not a short column.
    let mut short = snapshot(0, 0.0, 0.0);
    short.quat = vec![[0.0, 0.0, 0.0, 1.0]].into();
    let mut w = OutputWriter::create(&options(&scratch("vtu-quat-short")))?;
    let err = w
        .write_frame(&short, None)
        .expect_err("a short orientation column");
    assert!(err.to_string().contains("quat"), "{err}");
    Ok(())
}

#[test]
fn pvd_is_valid_after_every_frame() -> anyhow::Result<()> {
    let dir = scratch("pvd-live");
    let mut w = OutputWriter::create(&options(&dir))?;
    let pvd = || fs::read_to_string(dir.join("particles.pvd"));
    assert!(pvd()?.contains("<Collection>"));
    assert_eq!(pvd()?.matches("<DataSet ").count(), 0);
    w.write_frame(&snapshot(5, 0.5, 0.0), None)?;
    // No finish: a run killed now must still leave a series naming its frame.
    let text = pvd()?;
    assert_eq!(text.matches("<DataSet ").count(), 1);
    assert!(text.trim_end().ends_with("</VTKFile>"));
    assert!(text.contains("file=\"frame_00000005.vtu\""));
    drop(w);
    fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn energy_csv_round_trips_exactly() -> anyhow::Result<()> {
    let dir = scratch("energy");
    let reports = [
        EnergyReport::default(),
        EnergyReport {
            kinetic: 0.1 + 0.2,
            rotational: 1e-300,
            gravitational: -12345.678901234567,
            elastic: 5e-324,
            damping_dissipated: 1.0 / 3.0,
            friction_dissipated: 6.02214076e23,
            total: -0.0,
            removed: 2.5e-7,
            wall_work: -3.75e-2,
            inserted: 7.0e-9,
            kinematic_work: 1.5e-6,
        },
    ];
    let times = [0.0, 1e-5 * 3.0];
    let mut w = OutputWriter::create(&options(&dir))?;
    for (k, (e, t)) in reports.iter().zip(times).enumerate() {
        w.write_energy(k as u64 * 100, t, e)?;
    }
    // Flushed per line: readable before finish.
    let text = fs::read_to_string(dir.join("energy.csv"))?;
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("step,time,kinetic,rotational,gravitational,elastic,damping_dissipated,friction_dissipated,total,removed,wall_work,kinematic_work,inserted")
    );
    assert_eq!(ENERGY_HEADER, text.lines().next().unwrap_or_default());
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2);
    for (k, row) in rows.iter().enumerate() {
        let cols: Vec<&str> = row.split(',').collect();
        assert_eq!(cols.len(), 13, "{row}");
        assert_eq!(cols[0].parse::<u64>()?, k as u64 * 100);
        assert_eq!(cols[1].parse::<f64>()?.to_bits(), times[k].to_bits());
        let e = &reports[k];
        let want = [
            e.kinetic,
            e.rotational,
            e.gravitational,
            e.elastic,
            e.damping_dissipated,
            e.friction_dissipated,
            e.total,
            e.removed,
            e.wall_work,
            e.kinematic_work,
            e.inserted,
        ];
        for (c, w) in cols[2..].iter().zip(want) {
            assert_eq!(c.parse::<f64>()?.to_bits(), w.to_bits(), "{row}: {c}");
        }
    }
    w.finish()?;
    fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn switched_off_formats_leave_no_files() -> anyhow::Result<()> {
    let dir = scratch("off");
    let opts = OutputOptions {
        dir: dir.clone(),
        vtk: false,
        csv: false,
        energy: false,
        contacts: false,
        bonds: false,
        walls: false,
        stress: false,
        cells: false,
    };
    let mut w = OutputWriter::create(&opts)?;
    w.write_frame(&snapshot(1, 0.1, 0.0), None)?;
    w.write_energy(1, 0.1, &EnergyReport::default())?;
    w.finish()?;
    assert_eq!(w.frames_written(), 1);
    assert_eq!(fs::read_dir(&dir)?.count(), 0);
    fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn bad_directory_is_an_error_naming_it() -> anyhow::Result<()> {
    let base = scratch("blocked");
    fs::create_dir_all(&base)?;
    let file = base.join("not-a-dir");
    fs::write(&file, b"x")?;
    for dir in [file.clone(), file.join("out")] {
        let err = match OutputWriter::create(&options(&dir)) {
            Ok(_) => anyhow::bail!("{} accepted as output directory", dir.display()),
            Err(e) => e,
        };
        assert!(matches!(err, IoError::CreateDir { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&dir.display().to_string()), "{msg}");
        assert!(msg.starts_with("cannot create directory "), "{msg}");
    }
    fs::remove_dir_all(&base)?;
    Ok(())
}

#[test]
fn mismatched_snapshot_is_refused() -> anyhow::Result<()> {
    let dir = scratch("mismatch");
    let mut w = OutputWriter::create(&options(&dir))?;
    let mut snap = snapshot(3, 0.3, 0.0);
    snap.torque.to_mut().pop();
    let err = w.write_frame(&snap, None).err();
    assert!(
        matches!(
            err,
            Some(IoError::Snapshot {
                field: "torque",
                expected: 3,
                got: 2,
                ..
            })
        ),
        "{err:?}"
    );
    let err = w.write_frame(&snapshot(3, 0.3, 0.0), Some(&[1, 2])).err();
    assert!(
        matches!(err, Some(IoError::Snapshot { field: "ids", .. })),
        "{err:?}"
    );
    assert_eq!(w.frames_written(), 0);
    let csv = fs::read_to_string(dir.join("particles.csv"))?;
    assert_eq!(
        csv.lines().count(),
        1,
        "nothing written for a refused frame"
    );
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A checkpoint of `state` (`bytes`) as version 9 wrote it: `nbr_i`, each entry's owner,
/// after `nbr_start`, none of the last three arrays (`applied_force`, `kinematic_work`,
/// `wall_origin`) and no checksum at the end.
fn with_owners(bytes: &[u8], state: &grains_core::BackendState) -> Vec<u8> {
    use grains_core::state::STATE_ARRAYS;
    let bytes = &bytes[..bytes.len() - 4];
    // Without the arrays of later versions: the kinematic work (12), the walls' origins (13)
    // and the applied forces (14).
    let last = &STATE_ARRAYS[STATE_ARRAYS.len() - 3..];
    assert_eq!(
        [last[0].name, last[1].name, last[2].name],
        ["applied_force", "kinematic_work", "wall_origin"]
    );
    let later = last[0].elem * state.applied_force.len()
        + last[1].elem * state.kinematic_work.len()
        + last[2].elem * state.wall_origin.len();
    let bytes = &bytes[..bytes.len() - 24 - later];
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    // Magic, version, fingerprint, step; the rebuild steps; removed and inserted counts and
    // energies; then each array as its count and elements.
    let mut at = 8 + 4 + 8 + 8;
    at += 8 + 8 * u64_at(at) as usize;
    at += 4 * 8;
    for a in STATE_ARRAYS {
        at += 8 + a.elem * u64_at(at) as usize;
        if a.name == "nbr_start" {
            break;
        }
    }
    let owners: Vec<u32> =
        grains_core::kernels::passes::pair_record::entry_owners(&state.nbr_start).collect();
    let mut out = bytes[..at].to_vec();
    out[8..12].copy_from_slice(&9u32.to_le_bytes());
    out.extend_from_slice(&(owners.len() as u64).to_le_bytes());
    out.extend_from_slice(bytemuck::cast_slice(&owners));
    out.extend_from_slice(&bytes[at..]);
    out
}

/// Checkpoints round-trip exactly, and those of the previous format (9) still read; a
/// truncated, foreign or older file is an error naming it.
#[test]
fn checkpoint_round_trips_and_refuses_damage() {
    use grains_core::kernel_types::PairSlot;
    use grains_core::BackendState;
    let dir = std::env::temp_dir().join(format!("grains-io-ck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("checkpoint.bin");
    let state = BackendState {
        step: 1234,
        rebuild_steps: vec![0, 17, 400],
        removed: 3,
        removed_energy: -1.25e-3,
        inserted: 11,
        inserted_energy: 4.5e-4,
        pos: vec![[1.0, -2.0, 3.5e-7, 1e-3], [0.25, 0.5, 0.75, 2e-3]],
        pos_comp: vec![[1e-12, 0.0, -3e-13, 0.0]; 2],
        vel: vec![[0.1, 0.2, 0.3, 9.0]; 2],
        omega: vec![[4.0, 5.0, 6.0, 7.0]; 2],
        quat: vec![[0.0, 0.0, 0.0, 1.0]; 2],
        force: vec![[1.0; 4]; 2],
        torque: vec![[2.0; 4]; 2],
        ref_pos: vec![[3.0; 4]; 2],
        dissipated: vec![[1e-9, -1e-17, 2e-9, 0.0]; 2],
        nbr_start: vec![0, 1, 2],
        nbr_j: vec![1, 0],
        nbr_pair: vec![0, 0],
        nbr_slot: vec![1],
        history: vec![1e-6, 2e-6, 0.0, 1.0],
        slots: vec![PairSlot::default(); 1],
        fixed_history: vec![0.5, -0.25, 0.0, 7.0],
        fixed_slots: vec![PairSlot {
            force: [1.0, 2.0, 3.0],
            elastic: 4.0,
            ..PairSlot::default()
        }],
        fixed_active: vec![1],
        shell_rest: vec![1e-3, 2e-3],
        shell_forces: vec![[0.5, -1.0, 2.0, 1e-6]; 8],
        shell_volumes: vec![[1e-6, -3.0, 1e-9, 0.0]],
        surface_records: vec![[0.5, 0.25, -1.0, 2.0]; 8],
        walls: vec![grains_core::kernel_types::Wall::plane(
            [0.0; 3],
            [0.0, 0.0, 1.0],
            0,
        )],
        wall_work: vec![[1e-3, -1e-12]; 2],
        applied_force: vec![[0.5, -1.5, 2e-7, 0.0]; 2],
        kinematic_work: vec![[-2e-4, 3e-13]; 2],
        wall_origin: vec![grains_core::kernel_types::Wall::plane(
            [0.0, 0.0, -1.0],
            [0.0, 0.0, 1.0],
            0,
        )],
    };
    grains_io::write_checkpoint(&path, 0xdead_beef, &state).expect("write");
    let (fp, back) = grains_io::read_checkpoint(&path).expect("read");
    assert_eq!(fp, 0xdead_beef);
    assert_eq!(back, state);
    let bytes = std::fs::read(&path).expect("bytes");
    // Format 9 kept each entry's owner (`nbr_i`) after `nbr_start`, and no kinematic work:
    // such a file still reads, to the same state with none (taken up as zero).
    let v9 = with_owners(&bytes, &state);
    std::fs::write(&path, &v9).expect("version 9");
    let (fp, back) = grains_io::read_checkpoint(&path).expect("read version 9");
    assert_eq!(fp, 0xdead_beef);
    let unbooked = BackendState {
        applied_force: Vec::new(),
        kinematic_work: Vec::new(),
        wall_origin: Vec::new(),
        ..state.clone()
    };
    assert_eq!(back, unbooked);
    std::fs::write(&path, &v9[..v9.len() - 5]).expect("truncate version 9");
    let e = grains_io::read_checkpoint(&path).expect_err("truncated version 9");
    assert!(e.to_string().contains("truncated"), "{e}");
    let mut v8 = bytes.clone();
    v8[8..12].copy_from_slice(&8u32.to_le_bytes());
    std::fs::write(&path, &v8).expect("version 8");
    let e = grains_io::read_checkpoint(&path).expect_err("version 8");
    assert!(e.to_string().contains("format version 8"), "{e}");
    std::fs::write(&path, &bytes[..bytes.len() - 5]).expect("truncate");
    let e = grains_io::read_checkpoint(&path).expect_err("truncated");
    assert!(
        e.to_string()
            .contains("checksum mismatch: the file is damaged")
            && e.to_string().contains("checkpoint.bin"),
        "{e}"
    );
    std::fs::write(&path, b"not a checkpoint at all").expect("junk");
    let e = grains_io::read_checkpoint(&path).expect_err("junk");
    assert!(e.to_string().contains("not a grains checkpoint"), "{e}");
    let e = grains_io::read_checkpoint(&dir.join("missing.bin")).expect_err("missing");
    assert!(e.to_string().contains("cannot read it"), "{e}");
}

/// `contacts.csv` rows (wall contacts with `j = -1 - w`) and the contact-line frame, listed as
/// part 1 of its step in `particles.pvd` beside the particle frame (part 0); a resume keeps
/// them up to its step.
#[test]
fn contacts_are_written_as_rows_and_lines() -> anyhow::Result<()> {
    use grains_core::ContactRecord;
    let dir = scratch("contacts");
    let mut w = OutputWriter::create(&options(&dir))?;
    w.write_frame(&snapshot(0, 0.0, 0.0), None)?;
    let snap = snapshot(7, 0.5, 0.0);
    w.write_frame(&snap, None)?;
    let records = [
        ContactRecord {
            i: 0,
            j: 1,
            overlap: 1e-6,
            normal_force: 2.5,
            tangential_force: 0.5,
            tangential: [0.0, 0.3, -0.4],
            normal: [1.0, 0.0, 0.0],
            point: [0.5, 0.0, 0.0],
            bond: true,
            relative_velocity: [-0.25, 0.0, 0.5],
            torque: [0.0, 0.125, 0.0],
        },
        ContactRecord {
            i: 2,
            j: -4,
            overlap: -2e-7,
            normal_force: -0.125,
            tangential_force: 0.0,
            tangential: [0.0, 0.0, 0.0],
            normal: [0.0, 0.0, -1.0],
            point: [0.0, 0.0, -1.0],
            bond: false,
            relative_velocity: [0.0; 3],
            torque: [0.0; 3],
        },
    ];
    w.write_contacts(7, 0.5, &records, &snap.pos)?;
    w.finish()?;
    let csv = fs::read_to_string(dir.join("contacts.csv"))?;
    assert_eq!(
        csv,
        "step,time,i,j,overlap,fn,ft,nx,ny,nz,bond,ftx,fty,ftz,fx,fy,fz,vx,vy,vz,tx,ty,tz\n\
         7,0.5,0,1,1e-6,2.5,0.5,1,0,0,1,0,0.3,-0.4,-2.5,0.3,-0.4,-0.25,0,0.5,0,0.125,0\n\
         7,0.5,2,-4,-2e-7,-0.125,0,0,0,-1,0,0,0,0,0,0,-0.125,0,0,0,0,0,0\n"
    );
    let vtp = fs::read_to_string(dir.join("contacts_00000007.vtp"))?;
    assert!(
        vtp.contains("NumberOfPoints=\"4\" NumberOfLines=\"2\""),
        "{vtp}"
    );
    assert!(vtp.contains("Name=\"normal_force\""), "{vtp}");
    let pvd = fs::read_to_string(dir.join("particles.pvd"))?;
    assert!(
        pvd.contains("part=\"0\" file=\"frame_00000007.vtu\""),
        "{pvd}"
    );
    assert!(
        pvd.contains("part=\"1\" file=\"contacts_00000007.vtp\""),
        "{pvd}"
    );
    let opts = OutputOptions {
        energy: false,
        walls: false,
        ..options(&dir)
    };
    drop(OutputWriter::resume(&opts, &at(7, 7, 3))?);
    let pvd = fs::read_to_string(dir.join("particles.pvd"))?;
    assert!(
        pvd.contains("contacts_00000007.vtp"),
        "a resume drops the contact frame: {pvd}"
    );
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The CPU backend hands its state out array by array (`stream_state`), so that a checkpoint
/// does not hold the state a second time: the file is byte for byte the one written from its
/// whole `state()`, on scenes with walls and contacts (`settle`), moving walls and their work
/// (`drum`), bonds (`springs`) and shells (`cell_on_floor`).
#[test]
fn streamed_cpu_checkpoints_are_the_whole_states_bytes() {
    use grains_core::Backend;
    let dir = scratch("stream-ck");
    fs::create_dir_all(&dir).expect("scratch dir");
    for (name, steps) in [
        ("settle", 1500),
        ("drum", 400),
        ("springs", 300),
        ("cell_on_floor", 200),
    ] {
        let path = grains_tests::workspace_root().join(format!("scenes/{name}.toml"));
        let text = fs::read_to_string(&path).expect("scene");
        let world = grains_tests::scene_world(&text, &path);
        let mut b = grains_core::CpuBackend::new(world).unwrap_or_else(|e| panic!("{e}"));
        b.run(steps);
        let state = b.state();
        let (whole, streamed) = (dir.join("whole.bin"), dir.join("streamed.bin"));
        grains_io::write_checkpoint(&whole, 7, &state).expect("write");
        grains_io::write_backend_checkpoint(&streamed, 7, &mut b).expect("write");
        let (a, s) = (
            fs::read(&whole).expect("read"),
            fs::read(&streamed).expect("read"),
        );
        let first = a.iter().zip(&s).position(|(x, y)| x != y);
        assert!(
            a.len() == s.len() && first.is_none(),
            "{name}: {} and {} bytes, first difference at {first:?}",
            a.len(),
            s.len()
        );
        let (_, back) = grains_io::read_checkpoint(&streamed).expect("read back");
        assert!(
            back == state,
            "{name}: the streamed file reads back as the state"
        );
        match name {
            "settle" => assert!(!state.slots.is_empty(), "contacts"),
            "drum" => assert!(!state.wall_work.is_empty(), "moving walls' work"),
            "springs" => assert!(!state.fixed_slots.is_empty(), "bonds"),
            _ => assert!(!state.shell_rest.is_empty(), "shells"),
        }
    }
}

/// The resume point of a checkpoint at `step`, frames every `every` steps of `rows` rows.
fn at(step: u64, every: u64, rows: u64) -> ResumePoint {
    ResumePoint {
        step,
        every,
        last: 1000,
        frame_rows: rows,
        rows_every_frame: true,
    }
}

/// A resumed run keeps the CSV rows of the steps up to its checkpoint and drops the later
/// ones; a table that cannot be read back is an error naming it, and left as it was.
#[test]
fn resuming_keeps_the_rows_up_to_the_checkpoint_and_refuses_an_unreadable_table(
) -> anyhow::Result<()> {
    let dir = scratch("reopen");
    let opts = OutputOptions {
        vtk: false,
        csv: false,
        contacts: false,
        bonds: false,
        walls: false,
        ..options(&dir)
    };
    let mut w = OutputWriter::create(&opts)?;
    for step in [0, 100, 200, 300] {
        w.write_energy(step, step as f64 * 1e-5, &EnergyReport::default())?;
    }
    w.finish()?;
    let path = dir.join("energy.csv");
    let mut w = OutputWriter::resume(&opts, &at(200, 100, 0))?.writer;
    w.write_energy(300, 3e-3, &EnergyReport::default())?;
    w.finish()?;
    let text = fs::read_to_string(&path)?;
    let steps: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| &l[..l.find(',').unwrap_or(0)])
        .collect();
    assert_eq!(steps, ["0", "100", "200", "300"], "{text}");
    assert_eq!(text.lines().next(), Some(ENERGY_HEADER));
    // A row that is not text (a damaged disk block) among those to keep.
    let mut bytes = text.replacen("\n100,", "\n1\u{fffd}0,", 1).into_bytes();
    let at_bad = bytes
        .windows(2)
        .position(|w| w == [0xef, 0xbf])
        .expect("marker");
    bytes[at_bad] = 0xff;
    fs::write(&path, &bytes)?;
    let e = OutputWriter::resume(&opts, &at(200, 100, 0))
        .err()
        .expect("an unreadable table is refused");
    assert!(
        e.to_string().contains("energy.csv") && e.to_string().contains("line 3 is not text"),
        "{e}"
    );
    assert_eq!(fs::read(&path)?, bytes, "the table is left as it was");
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// With the `stress` format, a resumed run keeps `stress.csv`'s lines up to its checkpoint and
/// `particles.csv`'s stress columns in its header, and appends after them.
#[test]
fn resuming_cuts_the_stress_log_back_to_the_checkpoint() -> anyhow::Result<()> {
    let dir = scratch("stress");
    let opts = OutputOptions {
        vtk: false,
        energy: false,
        contacts: false,
        bonds: false,
        walls: false,
        stress: true,
        ..options(&dir)
    };
    let region = grains_core::stress::RegionStress {
        particles: 3,
        ..Default::default()
    };
    let stress = vec![[-1.0, -2.0, -3.0, 0.5, 0.25, 0.125]; 3];
    let mut w = OutputWriter::create(&opts)?;
    for step in [0, 100, 200, 300] {
        let time = step as f64 * 1e-5;
        let extra = grains_io::PerParticle {
            stress: Some(&stress),
            ..Default::default()
        };
        w.write_frame_with(&snapshot(step, time, 0.0), None, extra)?;
        w.write_stress(step, time, &region)?;
    }
    w.finish()?;
    let mut w = OutputWriter::resume(&opts, &at(200, 100, 3))?.writer;
    w.write_stress(300, 3e-3, &region)?;
    w.finish()?;
    let text = fs::read_to_string(dir.join("stress.csv"))?;
    let steps: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| &l[..l.find(',').unwrap_or(0)])
        .collect();
    assert_eq!(steps, ["0", "100", "200", "300"], "{text}");
    assert_eq!(text.lines().next(), Some(grains_io::STRESS_HEADER));
    let particles = fs::read_to_string(dir.join("particles.csv"))?;
    assert!(particles.starts_with(&format!("{PARTICLES_HEADER},sxx,syy,szz,sxy,sxz,syz\n")));
    assert!(particles
        .lines()
        .nth(1)
        .is_some_and(|l| l.ends_with(",-1,-2,-3,0.5,0.25,0.125")));
    assert_eq!(
        particles.lines().count(),
        1 + 3 * 3,
        "the rows up to step 200"
    );
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A bead in a box: a world with walls to draw.
fn boxed_world() -> grains_core::World {
    grains_tests::test_world(
        &SceneText::new()
            .simulation(&["duration = 0.01", "dt = 1e-5"])
            .domain([0.0; 3], [0.01; 3])
            .material("glass", 2500.0, 5.0e6, 0.3)
            .particles("glass", 0.001, &["positions = [[0.005, 0.005, 0.005]]"])
            .wall(
                "glass",
                "box = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }",
            )
            .hertz("glass", "glass", &[])
            .build(),
    )
}

/// Frames 0, 100, 200 and 300 of three particles in every format (the walls of
/// [`boxed_world`]), the directory's files after them read back by name.
fn four_frames(dir: &Path) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let world = boxed_world();
    let mut w = OutputWriter::create(&options(dir))?;
    for step in [0, 100, 200, 300] {
        let time = step as f64 * 1e-5;
        w.write_frame(&snapshot(step, time, step as f32), None)?;
        w.write_wall_surfaces(
            step,
            time,
            &world,
            (&world.walls, &world.triangles),
            &world.particles.pos,
        )?;
        w.write_energy(step, time, &EnergyReport::default())?;
        w.write_walls(step, time, &[Default::default()])?;
    }
    w.finish()?;
    files(dir)
}

/// Every file of `dir` by name, with its bytes.
fn files(dir: &Path) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut all = BTreeMap::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        all.insert(
            e.file_name().to_string_lossy().into_owned(),
            fs::read(e.path())?,
        );
    }
    Ok(all)
}

/// A resume checks the output against its checkpoint: a row cut short at the end of
/// `particles.csv`, and everything written after the checkpoint, are removed (what stays is
/// what the run had written at the checkpoint's step, byte for byte); a checkpoint ahead of
/// the output, a table missing the rows of a step, a frame file gone are refused, naming the
/// file and changing nothing; a frame of the checkpoint's own step cut short is removed
/// everywhere, to be written again.
#[test]
fn a_resume_cuts_the_output_back_to_its_checkpoint_or_says_what_is_lost() -> anyhow::Result<()> {
    let dir = scratch("resume-check");
    let whole = four_frames(&dir)?;
    // The same frames again, for what the output held at step 200: the same files but those
    // of step 300.
    let at200 = four_frames(&scratch("resume-check-200"))?;
    let opts = options(&dir);
    // A run killed mid-row after step 300 of a checkpoint at 200.
    let mut torn = whole["particles.csv"].clone();
    torn.extend_from_slice(b"400,0.004,0,1.5");
    fs::write(dir.join("particles.csv"), &torn)?;
    let r = OutputWriter::resume(&opts, &at(200, 100, 3))?;
    assert!(!r.rewrite_frame);
    drop(r);
    let cut = files(&dir)?;
    for (name, bytes) in &cut {
        let expected = whole.get(name).map(Vec::as_slice).unwrap_or_default();
        if name.ends_with(".csv") {
            let rows_to_200 = |b: &[u8]| {
                String::from_utf8_lossy(b)
                    .lines()
                    .filter(|l| !l.starts_with("300,"))
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
            };
            assert_eq!(
                String::from_utf8_lossy(bytes),
                rows_to_200(expected),
                "{name}"
            );
        }
    }
    assert!(
        !cut.contains_key("frame_00000300.vtu"),
        "the frame after the checkpoint stays"
    );
    assert!(
        cut.contains_key("walls_00000200.vtp") && !cut.contains_key("walls_00000300.vtp"),
        "the walls are cut back with the frames"
    );
    assert_eq!(
        cut.keys().collect::<Vec<_>>(),
        at200
            .keys()
            .filter(|k| !k.ends_with("300.vtu") && !k.ends_with("300.vtp"))
            .collect::<Vec<_>>()
    );
    let pvd = String::from_utf8_lossy(&cut["particles.pvd"]).into_owned();
    assert!(
        pvd.contains("frame_00000200.vtu") && !pvd.contains("300"),
        "{pvd}"
    );

    // Refusals, each leaving the directory as it was.
    let refused = |tag: &str, damage: &dyn Fn(&Path), point: ResumePoint, says: &[&str]| {
        let dir = scratch(tag);
        four_frames(&dir).expect("frames");
        damage(&dir);
        let before = files(&dir).expect("files");
        let e = OutputWriter::resume(&options(&dir), &point)
            .err()
            .unwrap_or_else(|| panic!("{tag}: resumed"));
        let m = e.to_string();
        for s in says {
            assert!(m.contains(s), "{tag}: {m}");
        }
        assert!(m.contains("--resume"), "{tag}: says what would work: {m}");
        assert_eq!(files(&dir).expect("files"), before, "{tag}: changed");
    };
    refused(
        "resume-ahead",
        &|_| {},
        at(500, 100, 3),
        &[
            "particles.csv",
            "ends at step 300",
            "checkpoint is at step 500",
        ],
    );
    refused(
        "resume-missing-rows",
        &|d| {
            let p = d.join("energy.csv");
            let text = fs::read_to_string(&p).expect("energy");
            let kept: String = text
                .lines()
                .filter(|l| !l.starts_with("100,"))
                .map(|l| format!("{l}\n"))
                .collect();
            fs::write(&p, kept).expect("write");
        },
        at(300, 100, 3),
        &["energy.csv", "no rows of step 100"],
    );
    refused(
        "resume-missing-frame",
        &|d| fs::remove_file(d.join("frame_00000100.vtu")).expect("remove"),
        at(300, 100, 3),
        &["particles.pvd", "frame_00000100.vtu", "is missing"],
    );
    refused(
        "resume-missing-walls",
        &|d| fs::remove_file(d.join("walls_00000100.vtp")).expect("remove"),
        at(300, 100, 3),
        &["particles.pvd", "walls_00000100.vtp", "is missing"],
    );
    refused(
        "resume-missing-table",
        &|d| fs::remove_file(d.join("walls.csv")).expect("remove"),
        at(300, 100, 3),
        &["walls.csv", "it is missing"],
    );

    // The frame of the checkpoint's step cut short (a run stopped writing it): removed in
    // every file, to be written again; the output is then what it was at step 200.
    let dir = scratch("resume-rewrite");
    four_frames(&dir)?;
    let p = dir.join("particles.csv");
    let text = fs::read_to_string(&p)?;
    let cut_at = text.rfind("\n300,").expect("last frame") + 1;
    fs::write(&p, &text[..cut_at + 20])?;
    let r = OutputWriter::resume(&options(&dir), &at(300, 100, 3))?;
    assert!(
        r.rewrite_frame,
        "the frame of step 300 is to be written again"
    );
    assert_eq!(r.bonds_through, Some(200));
    drop(r);
    let mut now = files(&dir)?;
    let mut then = at200.clone();
    for m in [&mut now, &mut then] {
        // Rewritten on every frame: the series' bytes are compared through its frames.
        m.remove("particles.pvd");
        m.retain(|k, _| !k.ends_with("300.vtu") && !k.ends_with("300.vtp"));
    }
    let rows_to_200 = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| !l.starts_with("300,"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    };
    for (name, bytes) in &mut then {
        if name.ends_with(".csv") {
            *bytes = rows_to_200(bytes);
        }
    }
    assert_eq!(now, then);
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A fresh run's directory holds that run alone: the tables, series, frames and checkpoint
/// of an earlier run there are removed, and nothing else is.
#[test]
fn a_fresh_writer_clears_an_earlier_runs_files_and_nothing_else() -> anyhow::Result<()> {
    let dir = scratch("fresh");
    four_frames(&dir)?;
    for keep in ["notes.txt", "frame_final.vtu", "frame_00000100.vtu.bak"] {
        fs::write(dir.join(keep), "mine")?;
    }
    fs::write(dir.join("checkpoint.bin"), "an earlier run's")?;
    fs::write(dir.join("shells_00000300.vtp"), "an earlier run's")?;
    fs::write(dir.join("walls_00000300.vtp"), "an earlier run's")?;
    let mut w = OutputWriter::create(&options(&dir))?;
    w.write_frame(&snapshot(0, 0.0, 0.0), None)?;
    w.finish()?;
    let names: Vec<String> = files(&dir)?.into_keys().collect();
    assert_eq!(
        names,
        [
            "broken_bonds.csv",
            "contacts.csv",
            "energy.csv",
            "frame_00000000.vtu",
            "frame_00000100.vtu.bak",
            "frame_final.vtu",
            "notes.txt",
            "particles.csv",
            "particles.pvd",
            "walls.csv"
        ]
    );
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// An output directory's lock: a second holder is refused with the first one's pid, host,
/// scene and start; released (dropped), it is taken again, and a lock file left by a run that
/// died (not held) is taken over.
#[test]
fn an_output_lock_refuses_a_second_holder_and_takes_over_a_stale_one() -> anyhow::Result<()> {
    let dir = scratch("lock");
    fs::create_dir_all(&dir)?;
    let first = OutputLock::take(&dir, Path::new("scenes/first.toml"))?;
    let e = OutputLock::take(&dir, Path::new("scenes/second.toml")).expect_err("a second lock");
    let m = e.to_string();
    let pid = format!("pid {} on ", std::process::id());
    assert!(
        m.contains("is in use by another grains run")
            && m.contains(&pid)
            && m.contains("scene scenes/first.toml, running since 20")
            && m.contains(&dir.display().to_string()),
        "{m}"
    );
    drop(first);
    assert!(!dir.join(".grains.lock").exists(), "removed when released");
    fs::write(dir.join(".grains.lock"), "pid = 999999999\nhost = gone\n")?;
    let again = OutputLock::take(&dir, Path::new("scenes/second.toml"))?;
    let text = fs::read_to_string(dir.join(".grains.lock"))?;
    assert!(text.contains("scene = scenes/second.toml"), "{text}");
    drop(again);
    // A directory the lock created is removed with it where nothing was written there.
    fs::remove_dir_all(&dir)?;
    drop(OutputLock::take(&dir, Path::new("scenes/refused.toml"))?);
    assert!(!dir.exists(), "an empty directory left behind");
    Ok(())
}

/// A flipped bit anywhere in a checkpoint (its step, its fingerprint, a position) is refused
/// as damage, naming the file, never read as another state.
#[test]
fn a_flipped_bit_in_a_checkpoint_is_refused() {
    let dir = scratch("flip");
    fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("checkpoint.bin");
    let state = grains_core::BackendState {
        step: 300,
        pos: vec![[1.0, 2.0, 3.0, 0.5]; 4],
        vel: vec![[0.0; 4]; 4],
        ..Default::default()
    };
    grains_io::write_checkpoint(&path, 42, &state).expect("write");
    let good = fs::read(&path).expect("read");
    grains_io::read_checkpoint(&path).expect("an intact checkpoint reads");
    for byte in [12, 20, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[byte] ^= 0x10;
        fs::write(&path, &bad).expect("write");
        let e = grains_io::open_checkpoint(&path)
            .err()
            .unwrap_or_else(|| panic!("byte {byte} flipped: read"));
        assert_eq!(
            e.to_string(),
            format!(
                "checkpoint {}: checksum mismatch: the file is damaged",
                path.display()
            ),
            "byte {byte}"
        );
    }
    fs::remove_dir_all(&dir).expect("clean");
}

/// A checkpoint taken up array by array (`CpuBackend::from_source`, what `grains run --resume`
/// does on the CPU backend) gives the backend of the whole state read first
/// (`CpuBackend::from_state`): the same state at once and after 20 more steps, bit for bit. A
/// damaged list, packing or array length is refused with the same reason on both paths.
#[test]
fn a_checkpoint_streamed_into_the_cpu_backend_is_the_whole_states_backend() {
    use grains_core::{Backend, CpuBackend};
    let dir = std::env::temp_dir().join(format!("grains-io-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("checkpoint.bin");
    // A lattice compressed by 0.5% in a walled box: every neighbour touches from the start,
    // the walls too, with friction's springs loaded.
    let world = grains_tests::test_world(
        &SceneText::new()
            .simulation(&[
                "steps = 50",
                "dt = 1e-5",
                "gravity = [0.0, 0.0, -9.81]",
                "skin = 0.001",
            ])
            .domain([-0.001; 3], [0.0388; 3])
            .material("glass", 2500.0, 5.0e6, 0.3)
            .material("steel", 7800.0, 5.0e6, 0.3)
            .particles(
                "glass",
                0.001,
                &[
                    "lattice = { spacing = 0.00199, count = [20, 20, 20] }",
                    "velocity = [0.01, -0.02, 0.0]",
                ],
            )
            .wall(
                "glass",
                "box = { min = [-0.001, -0.001, -0.001], max = [0.0388, 0.0388, 0.0388] }",
            )
            .hertz(
                "glass",
                "glass",
                &[
                    "damping = { law = \"viscous\", restitution = 0.5 }",
                    "tangential = { law = \"cundall_strack\", friction = 0.5 }",
                ],
            )
            .build(),
    );
    let mut first = CpuBackend::new(world.clone()).expect("cpu");
    first.run(30);
    grains_io::write_backend_checkpoint(&path, 7, &mut first).expect("write");
    let state = first.state();
    let walls = state
        .nbr_j
        .iter()
        .filter(|&&q| q as usize >= world.particles.len())
        .count();
    assert!(
        state.slots.len() > 20_000 && walls > 1000 && state.history.iter().any(|&h| h != 0.0),
        "contacts, walls and springs in the state: {} slots, {walls} wall entries",
        state.slots.len()
    );
    let streamed = |path: &Path| -> Result<CpuBackend, String> {
        let mut ck = grains_io::open_checkpoint(path).map_err(|e| e.to_string())?;
        let header = std::mem::take(&mut ck.header);
        let b =
            CpuBackend::from_source(world.clone(), header, &mut ck).map_err(|e| e.to_string())?;
        ck.finish().map_err(|e| e.to_string())?;
        Ok(b)
    };
    let whole = |path: &Path| -> Result<CpuBackend, String> {
        let (_, s) = grains_io::read_checkpoint(path).map_err(|e| e.to_string())?;
        CpuBackend::from_state(world.clone(), s).map_err(|e| e.to_string())
    };
    let (mut a, mut b) = (
        whole(&path).expect("whole"),
        streamed(&path).expect("streamed"),
    );
    assert!(
        a.state() == state,
        "the whole state's backend gives it back"
    );
    assert!(
        b.state() == state,
        "the streamed backend gives the state back"
    );
    a.run(20);
    b.run(20);
    first.run(20);
    let end = first.state();
    assert!(a.state() == end && b.state() == end, "20 steps on");
    // Damaged states, written as checkpoints: each path refuses them with the state's reason
    // (the streamed one after the file's path).
    let owners: Vec<u32> =
        grains_core::kernels::passes::pair_record::entry_owners(&state.nbr_start).collect();
    let k = (0..state.nbr_pair.len())
        .find(|&k| owners[k] < state.nbr_j[k])
        .expect("an owning entry");
    let r = state
        .nbr_slot
        .iter()
        .position(|&a| a != 0)
        .expect("a contact");
    type Hurt = Box<dyn Fn(&mut grains_core::BackendState)>;
    let damage: Vec<(&str, Hurt)> = vec![
        ("a record index", Box::new(move |s| s.nbr_pair[k] += 1)),
        ("a slot flag", Box::new(move |s| s.nbr_slot[r] += 1)),
        (
            "a short history",
            Box::new(|s| {
                s.history.pop();
            }),
        ),
        (
            "a short slot array",
            Box::new(|s| {
                s.slots.pop();
            }),
        ),
        ("an unsorted list", Box::new(|s| s.nbr_j.swap(0, 1))),
        (
            "a short start table",
            Box::new(|s| {
                s.nbr_start.pop();
            }),
        ),
    ];
    for (what, hurt) in damage {
        let mut s = state.clone();
        hurt(&mut s);
        grains_io::write_checkpoint(&path, 7, &s).expect("write");
        let e1 = whole(&path)
            .err()
            .unwrap_or_else(|| panic!("{what}: accepted whole"));
        let e2 = streamed(&path)
            .err()
            .unwrap_or_else(|| panic!("{what}: accepted streamed"));
        eprintln!("{what}: {e2}");
        assert!(
            e2.contains(&e1) && e2.contains("checkpoint.bin"),
            "{what}: {e1} / {e2}"
        );
    }
}

/// A frame shows only the particles a glyph can draw: a dormant `[[insert]]` particle or a
/// deleted one (radius `REMOVED_RADIUS`) and a clump's body (`CLUMP_BODY_RADIUS`) are left out
/// of the `.vtu`, every array alike, and the ones shown keep their ids; ParaView's Glyph by
/// `radius` drew one sphere of 1e30 over the scene. `particles.csv` keeps every row, the
/// hidden ones marked by their negative radius.
#[test]
fn frames_leave_out_the_particles_no_glyph_can_draw() -> anyhow::Result<()> {
    use grains_core::backend::REMOVED_RADIUS;
    use grains_core::shapes::CLUMP_BODY_RADIUS;
    let dir = scratch("vtu-hidden");
    let mut snap = snapshot(10, 1e-3, 0.0);
    let mut more = |p: [f32; 4], m: u32| {
        snap.pos.to_mut().push(p);
        for a in [
            &mut snap.vel,
            &mut snap.omega,
            &mut snap.force,
            &mut snap.torque,
        ] {
            a.to_mut().push([m as f32, 0.0, 0.0, 0.0]);
        }
        snap.quat.to_mut().push([0.0, 0.0, 0.0, 1.0]);
        snap.material.to_mut().push(m);
    };
    more([0.0, 0.0, 0.0, REMOVED_RADIUS], 11);
    more([1.0, 2.0, 3.0, 0.002], 12);
    more([4.0, 5.0, 6.0, CLUMP_BODY_RADIUS], 13);
    let ids: Vec<u64> = (0..snap.pos.len() as u64).map(|i| 100 + i).collect();
    let mut w = OutputWriter::create(&options(&dir))?;
    w.write_frame(&snap, Some(&ids))?;
    w.finish()?;
    let vtu = read_vtu(&dir.join(frame_file_name(10)))?;
    let piece = tag_attributes(&vtu.header, "Piece");
    assert_eq!(piece["NumberOfPoints"], "4");
    assert_eq!(vtu.i64s("id"), vec![100, 101, 102, 104]);
    let radius = vtu.f32s("radius");
    assert!(radius.iter().all(|&r| r > 0.0), "{radius:?}");
    assert_eq!(radius[3], 0.002);
    assert_eq!(vtu.f32s("Points")[9..12], [1.0, 2.0, 3.0]);
    assert_eq!(vtu.f32s("velocity")[9], 12.0);
    assert_eq!(vtu.block("material")[12..16], 12u32.to_le_bytes());
    assert_eq!(vtu.i64s("connectivity"), vec![0, 1, 2, 3]);
    let rows = grains_tests::csv_rows(&dir.join("particles.csv"));
    assert_eq!(rows.len(), 6, "particles.csv keeps every particle");
    assert_eq!(rows[3][18] as f32, REMOVED_RADIUS);
    Ok(())
}

/// The pour's frames (an `[[insert]]` block, most of its particles dormant at first) hold
/// only particles with a positive radius, the ones inserted, so ParaView's Glyph by `radius`
/// draws the scene.
#[test]
fn the_pours_frames_hold_only_glyphable_particles() -> anyhow::Result<()> {
    let dir = scratch("pour-frames");
    let scene = grains_tests::workspace_root().join("scenes/pour.toml");
    let args = [
        "grains",
        "run",
        &scene.to_string_lossy(),
        "--backend",
        "cpu",
    ];
    let out = dir.to_string_lossy().into_owned();
    grains_cli::main_with_args(
        args.into_iter()
            .chain(["--out", &out, "-q", "--steps", "1"]),
    )?;
    let rows = grains_tests::csv_rows(&dir.join("particles.csv"));
    let dormant = rows.iter().filter(|r| r[18] < 0.0).count();
    assert!(dormant > 0, "dormant particles at the start of the pour");
    for step in [0, 1] {
        let vtu = read_vtu(&dir.join(frame_file_name(step)))?;
        let radius = vtu.f32s("radius");
        let listed = rows.iter().filter(|r| r[0] == step as f64).count();
        let live = rows
            .iter()
            .filter(|r| r[0] == step as f64 && r[18] > 0.0)
            .count();
        assert_eq!(radius.len(), live, "step {step}: {listed} rows");
        assert!(radius.iter().all(|&r| r > 0.0), "step {step}: {radius:?}");
    }
    Ok(())
}

/// The ASCII polydata of a `walls_*.vtp`: its points, polygons and cell columns.
pub(crate) struct WallVtp {
    pub points: Vec<[f64; 3]>,
    pub polys: Vec<Vec<usize>>,
    pub wall: Vec<i64>,
    pub kind: Vec<i64>,
}

/// The numbers of the first `<DataArray ...>` after `after` (and named `name` where given).
fn ascii_array(xml: &str, after: &str, name: Option<&str>) -> Vec<f64> {
    let from = xml.find(after).unwrap_or_else(|| panic!("no {after}"));
    let rest = &xml[from..];
    let tag = match name {
        Some(n) => rest.find(&format!("Name=\"{n}\"")),
        None => rest.find("<DataArray"),
    }
    .unwrap_or_else(|| panic!("no array {name:?} after {after}"));
    let body = &rest[tag..];
    let start = body.find('>').expect("tag end") + 1;
    let end = body.find("</DataArray>").expect("array end");
    body[start..end]
        .split_whitespace()
        .map(|x| x.parse().expect("number"))
        .collect()
}

/// Read a `walls_*.vtp`, checking that its counts agree with its arrays.
pub(crate) fn read_wall_vtp(path: &Path) -> anyhow::Result<WallVtp> {
    let xml = fs::read_to_string(path)?;
    let piece = tag_attributes(&xml, "Piece");
    let n_points: usize = piece["NumberOfPoints"].parse()?;
    let n_polys: usize = piece["NumberOfPolys"].parse()?;
    let xyz = ascii_array(&xml, "<Points>", None);
    assert_eq!(xyz.len(), 3 * n_points, "{}", path.display());
    let points = xyz.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let conn = ascii_array(&xml, "<Polys>", Some("connectivity"));
    let offsets = ascii_array(&xml, "<Polys>", Some("offsets"));
    assert_eq!(offsets.len(), n_polys);
    let mut polys = Vec::new();
    let mut at = 0;
    for &o in &offsets {
        let ids: Vec<usize> = conn[at..o as usize].iter().map(|&i| i as usize).collect();
        assert!(ids.len() >= 3 && ids.iter().all(|&i| i < n_points));
        polys.push(ids);
        at = o as usize;
    }
    assert_eq!(at, conn.len());
    let column = |name| -> Vec<i64> {
        let v = ascii_array(&xml, "<CellData", Some(name));
        assert_eq!(v.len(), n_polys, "{name}");
        v.into_iter().map(|x| x as i64).collect()
    };
    Ok(WallVtp {
        points,
        polys,
        wall: column("wall"),
        kind: column("kind"),
    })
}

impl WallVtp {
    /// The points of the polygons of wall `w` (cell value `wall`), each once, in order.
    pub fn wall_points(&self, w: i64) -> Vec<[f64; 3]> {
        let mut ids: Vec<usize> = (0..self.polys.len())
            .filter(|&c| self.wall[c] == w)
            .flat_map(|c| self.polys[c].clone())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(|i| self.points[i]).collect()
    }
}

/// A world of every wall kind in the domain [-0.06, 0.06] x [-0.06, 0.06] x [-0.02, 0.08]: the
/// domain's box (walls 0-5), a plane through its centre across the diagonal (6), a hollow
/// cylinder of 3 cm about z (7), a disk of 2 cm at z = -1 cm (8), the hopper's cone of 6 mm
/// orifice and 30° (9), and the STL hopper as a mesh wall.
fn every_wall_world() -> grains_core::World {
    let text = SceneText::new()
        .simulation(&["duration = 0.01", "dt = 1e-5", "gravity = [0.0, 0.0, -9.81]"])
        .domain([-0.06, -0.06, -0.02], [0.06, 0.06, 0.08])
        .material("glass", 2500.0, 5.0e6, 0.3)
        .material("steel", 7800.0, 5.0e6, 0.3)
        .particles("glass", 0.001, &["positions = [[0.0, 0.0, 0.05]]"])
        .wall(
            "glass",
            "box = { min = [-0.06, -0.06, -0.02], max = [0.06, 0.06, 0.08] }",
        )
        .wall(
            "glass",
            "plane = { point = [0.0, 0.0, 0.03], normal = [1.0, 1.0, 1.0] }",
        )
        .wall(
            "glass",
            "cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.03, hollow = true }",
        )
        .wall(
            "glass",
            "disk = { center = [0.0, 0.0, -0.01], normal = [0.0, 0.0, 1.0], radius = 0.02 }",
        )
        .wall(
            "glass",
            "cone = { point = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.006, half_angle = 30.0 }",
        )
        .wall("steel", "mesh = { file = \"hopper_cone.stl\" }")
        .hertz("glass", "glass", &[])
        .hertz("glass", "steel", &[])
        .build();
    let file = grains_tests::workspace_root().join("scenes/every_wall.toml");
    grains_tests::scene_world(&text, &file)
}

/// The walls of a world as `walls_<step>.vtp`, part 3 of the series: the box's faces and a
/// diagonal plane clipped to the domain (a hexagon through its centre), the cylinder's points
/// at its radius from its axis over the domain's height, the disk's within its radius on its
/// plane, the cone's at its radius for their height, and the mesh's every triangle.
#[test]
fn walls_are_written_as_surfaces_in_the_domain() -> anyhow::Result<()> {
    let dir = scratch("wall-surfaces");
    let world = every_wall_world();
    assert_eq!(world.walls.len(), 10);
    let mut w = OutputWriter::create(&options(&dir))?;
    w.write_frame(&snapshot(0, 0.0, 0.0), None)?;
    w.write_wall_surfaces(
        0,
        0.0,
        &world,
        (&world.walls, &world.triangles),
        &world.particles.pos,
    )?;
    w.finish()?;
    let pvd = fs::read_to_string(dir.join("particles.pvd"))?;
    assert!(
        pvd.contains("part=\"3\" file=\"walls_00000000.vtp\""),
        "{pvd}"
    );
    let vtp = read_wall_vtp(&dir.join("walls_00000000.vtp"))?;
    let (lo, hi) = ([-0.06, -0.06, -0.02], [0.06, 0.06, 0.08]);
    let inside = |x: &[f64; 3]| (0..3).all(|k| x[k] >= lo[k] - 1e-7 && x[k] <= hi[k] + 1e-7);
    for plane in 0..7 {
        let pts = vtp.wall_points(plane);
        let wall = &world.walls[plane as usize];
        assert!(pts.len() >= 3, "wall {plane}: {pts:?}");
        for x in &pts {
            assert!(inside(x), "wall {plane}: {x:?} outside the domain");
            let d: f64 = (0..3)
                .map(|k| (x[k] - wall.point[k] as f64) * wall.normal[k] as f64)
                .sum();
            assert!(d.abs() < 1e-7, "wall {plane}: {x:?} off its plane by {d}");
        }
        if plane < 6 {
            // A face of the domain's box is the whole face.
            assert_eq!(pts.len(), 4, "wall {plane}: {pts:?}");
        }
    }
    assert_eq!(vtp.wall_points(6).len(), 6, "a hexagon through the centre");
    let rho = |x: &[f64; 3]| x[0].hypot(x[1]);
    let cylinder = vtp.wall_points(7);
    assert_eq!(cylinder.len(), 2 * grains_io::SEGMENTS);
    for x in &cylinder {
        assert!((rho(x) - 0.03).abs() < 1e-7, "cylinder: {x:?}");
    }
    let heights: Vec<f64> = cylinder.iter().map(|x| x[2]).collect();
    assert!(heights
        .iter()
        .all(|&z| (z + 0.02).abs() < 1e-7 || (z - 0.08).abs() < 1e-7));
    let disk = vtp.wall_points(8);
    assert_eq!(disk.len(), grains_io::SEGMENTS);
    for x in &disk {
        assert!(
            rho(x) <= 0.02 + 1e-7 && (x[2] + 0.01).abs() < 1e-7,
            "disk: {x:?}"
        );
    }
    let slope = (30.0f64).to_radians().tan();
    for x in &vtp.wall_points(9) {
        assert!(
            x[2] > -1e-7 && x[2] <= 0.08 + 1e-7 && (rho(x) - 0.006 - slope * x[2]).abs() < 1e-6,
            "cone: {x:?}"
        );
    }
    let mesh = (0..vtp.kind.len())
        .filter(|&c| vtp.kind[c] == grains_io::KIND_MESH as i64)
        .count();
    assert!(mesh > 2000, "the hopper's facets, split: {mesh}");
    assert_eq!(mesh, world.triangle_tail());
    fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The output-size estimate a run checks the disk against bounds a frame's `.vtu` as written
/// from above, within 5% for a frame of 2000 particles (it scales the difference of a one- and
/// a two-particle frame, whose header offsets gain a digit or two: about 2 B a particle over).
/// Frames leave out particles without a positive radius, and the estimate once measured frames
/// of such particles: a hundredth of the real size.
#[test]
fn the_frame_size_estimate_is_the_written_frame() -> anyhow::Result<()> {
    let dir = scratch("frame-size");
    let opts = OutputOptions {
        csv: false,
        energy: false,
        contacts: false,
        ..options(&dir)
    };
    let n = 2000;
    let row = |i: usize| [i as f32 * 1e-3, 0.5, -0.25, 1e-3];
    let snap = Snapshot {
        step: 0,
        time: 0.0,
        pos: (0..n).map(row).collect::<Vec<_>>().into(),
        vel: vec![[0.1, 0.2, 0.3, 1.0]; n].into(),
        omega: vec![[0.0; 4]; n].into(),
        quat: vec![[0.0, 0.0, 0.0, 1.0]; n].into(),
        force: vec![[1.0; 4]; n].into(),
        torque: vec![[0.0; 4]; n].into(),
        material: vec![0; n].into(),
    };
    let mut w = OutputWriter::create(&opts)?;
    w.write_frame(&snap, None)?;
    w.finish()?;
    let written = fs::metadata(dir.join(frame_file_name(0)))?.len() as f64;
    let estimate = grains_io::frame_bytes_estimate(&opts, n as u64) as f64;
    assert!(
        estimate >= written && estimate <= 1.05 * written,
        "estimate {estimate} B, written {written} B"
    );
    Ok(())
}
