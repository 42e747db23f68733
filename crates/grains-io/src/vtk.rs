//! VTK XML files for ParaView: one `.vtu` per frame, a `.pvd` collection naming them.
//!
//! Frames use raw appended binary data: every array is one block, `UInt64` byte count then the
//! little-endian values, and each `DataArray` names its block by its offset from the byte after
//! the `_` marker. Base64 inline data would be a third larger and slower to write.

use std::io::{self, Write};

use grains_core::{ContactRecord, Snapshot};

/// The VTK cell type of a single point.
const VTK_VERTEX: u8 = 1;

/// Prefix and extension of each file a frame writes at its step, by its part in
/// `particles.pvd`: the particles (0), the contact lines (1), the shells (2), the walls (3).
/// Naming a file and recognising one (a resume's cut, a fresh run's clearing) both read this.
pub(crate) const PART_FILES: [(&str, &str); 4] = [
    ("frame_", ".vtu"),
    ("contacts_", ".vtp"),
    ("shells_", ".vtp"),
    ("walls_", ".vtp"),
];

/// The file of part `part` ([`PART_FILES`]) of the frame at `step`.
pub(crate) fn part_file_name(part: usize, step: u64) -> String {
    let (prefix, ext) = PART_FILES[part];
    format!("{prefix}{step:08}{ext}")
}

/// Name of the `.vtu` file of the frame at `step`, relative to the output directory.
pub fn frame_file_name(step: u64) -> String {
    part_file_name(0, step)
}

/// What one appended block holds.
enum Block<'a> {
    Ids(Option<&'a [u64]>),
    /// Component 3 of `[f32; 4]` rows (the radius).
    W(&'a [[f32; 4]]),
    /// Components 0..3 of `[f32; 4]` rows.
    Xyz(&'a [[f32; 4]]),
    /// All four components: orientations as quaternions (x, y, z, w); none given, the
    /// identity for every particle (no particle keeps an orientation).
    Xyzw(&'a [[f32; 4]]),
    U32(&'a [u32]),
    /// A lineage word per particle as Int32: -1 for none (`u32::MAX`).
    Lineage(&'a [u32]),
    /// Symmetric tensors `(xx, yy, zz, xy, xz, yz)`, written in ParaView's order of a
    /// six-component tensor: XX, YY, ZZ, XY, YZ, XZ.
    Sym6(&'a [[f64; 6]]),
    /// 0, 1, ..., n - 1 as Int64 (connectivity: each cell is its own point).
    Iota,
    /// 1, 2, ..., n as Int64 (each cell ends one point further).
    IotaPlusOne,
    Types,
}

struct Array<'a> {
    name: &'static str,
    vtk_type: &'static str,
    components: usize,
    block: Block<'a>,
}

impl Array<'_> {
    fn scalar_size(&self) -> usize {
        match self.vtk_type {
            "Int64" => 8,
            "Float32" | "UInt32" | "Int32" => 4,
            "UInt8" => 1,
            other => unreachable!("no VTK type {other} is written"),
        }
    }

    fn byte_len(&self, n: usize) -> usize {
        n * self.components * self.scalar_size()
    }

    fn tag(&self, indent: &str, offset: usize) -> String {
        let comps = if self.components > 1 {
            format!(" NumberOfComponents=\"{}\"", self.components)
        } else {
            String::new()
        };
        format!(
            "{indent}<DataArray type=\"{}\" Name=\"{}\"{comps} format=\"appended\" offset=\"{offset}\"/>\n",
            self.vtk_type, self.name
        )
    }

    /// Write the array's block: its rows, or only those `live` names (then `n` of them).
    fn write_block(&self, w: &mut impl Write, n: usize, live: Option<&[u32]>) -> io::Result<()> {
        w.write_all(&(self.byte_len(n) as u64).to_le_bytes())?;
        let xyz = |w: &mut dyn Write, r: &[f32; 4]| {
            w.write_all(&r[0].to_le_bytes())?;
            w.write_all(&r[1].to_le_bytes())?;
            w.write_all(&r[2].to_le_bytes())
        };
        match self.block {
            // Ids are written as Int64 because ParaView handles it everywhere; the bits of a
            // u64 above i64::MAX are kept, only their reading changes.
            Block::Ids(Some(ids)) => each(ids, live, |&v| w.write_all(&v.to_le_bytes())),
            // Without ids a particle's id is its index.
            Block::Ids(None) => match live {
                Some(live) => live
                    .iter()
                    .try_for_each(|&i| w.write_all(&(i as u64).to_le_bytes())),
                None => (0..n as u64).try_for_each(|v| w.write_all(&v.to_le_bytes())),
            },
            Block::Iota => (0..n as u64).try_for_each(|v| w.write_all(&v.to_le_bytes())),
            Block::IotaPlusOne => (1..=n as u64).try_for_each(|v| w.write_all(&v.to_le_bytes())),
            Block::W(rows) => each(rows, live, |r| w.write_all(&r[3].to_le_bytes())),
            Block::Xyz(rows) => each(rows, live, |r| xyz(w, r)),
            Block::Xyzw([]) => (0..n).try_for_each(|_| {
                grains_core::shapes::IDENTITY
                    .iter()
                    .try_for_each(|x| w.write_all(&x.to_le_bytes()))
            }),
            Block::Xyzw(rows) => each(rows, live, |r| {
                r.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
            }),
            Block::U32(v) => each(v, live, |x| w.write_all(&x.to_le_bytes())),
            Block::Lineage(v) => each(v, live, |&x| {
                w.write_all(&(crate::csv::signed(x) as i32).to_le_bytes())
            }),
            Block::Sym6(v) => each(v, live, |t| {
                [t[0], t[1], t[2], t[3], t[5], t[4]]
                    .iter()
                    .try_for_each(|&x| w.write_all(&(x as f32).to_le_bytes()))
            }),
            Block::Types => {
                let chunk = [VTK_VERTEX; 4096];
                let mut left = n;
                while left > 0 {
                    let k = left.min(chunk.len());
                    w.write_all(&chunk[..k])?;
                    left -= k;
                }
                Ok(())
            }
        }
    }
}

/// `f` over `rows`, or over the rows `live` names.
fn each<T>(
    rows: &[T],
    live: Option<&[u32]>,
    mut f: impl FnMut(&T) -> io::Result<()>,
) -> io::Result<()> {
    match live {
        Some(live) => live.iter().try_for_each(|&i| f(&rows[i as usize])),
        None => rows.iter().try_for_each(f),
    }
}

/// The particles a frame shows, where some are not to be: those with a positive radius. A
/// dormant particle of an `[[insert]]` block and a deleted lost particle have the radius
/// [`grains_core::backend::REMOVED_RADIUS`], a clump's body
/// [`grains_core::shapes::CLUMP_BODY_RADIUS`] (its member spheres are drawn): a glyph scaled
/// by such a radius would hide the whole scene. `None` when every particle is shown.
fn shown(snap: &Snapshot) -> Option<Vec<u32>> {
    let live = |p: &[f32; 4]| p[3] > 0.0;
    if snap.pos.iter().all(live) {
        return None;
    }
    Some(
        (0..snap.pos.len() as u32)
            .filter(|&i| live(&snap.pos[i as usize]))
            .collect(),
    )
}

/// Writes the whole `.vtu` of `snap` to `w`: the particles it shows ([`shown`]), each with its
/// `id`. Lengths have been checked by the caller.
/// With `extra`'s stress, each particle's virial stress (Pa) as the tensor array `stress`; with
/// its lineage, `generation` and `parent` (-1 for none): colour by generation in ParaView.
pub(crate) fn write_vtu(
    w: &mut impl Write,
    snap: &Snapshot,
    ids: Option<&[u64]>,
    extra: crate::PerParticle<'_>,
) -> io::Result<()> {
    let live = shown(snap);
    let n = live.as_ref().map_or(snap.pos.len(), Vec::len);
    let arr = |name, vtk_type, components, block| Array {
        name,
        vtk_type,
        components,
        block,
    };
    let mut point_data = vec![
        arr("id", "Int64", 1, Block::Ids(ids)),
        arr("radius", "Float32", 1, Block::W(&snap.pos)),
        arr("velocity", "Float32", 3, Block::Xyz(&snap.vel)),
        arr("angular_velocity", "Float32", 3, Block::Xyz(&snap.omega)),
        // Quaternion (x, y, z, w) from body to world frame; a capsule's axis is its body z.
        arr("orientation", "Float32", 4, Block::Xyzw(&snap.quat)),
        arr("force", "Float32", 3, Block::Xyz(&snap.force)),
        arr("torque", "Float32", 3, Block::Xyz(&snap.torque)),
        arr("material", "UInt32", 1, Block::U32(&snap.material)),
    ];
    if let Some(t) = extra.stress {
        point_data.push(arr("stress", "Float32", 6, Block::Sym6(t)));
    }
    if let Some((generation, parent)) = extra.lineage {
        point_data.push(arr("generation", "Int32", 1, Block::Lineage(generation)));
        point_data.push(arr("parent", "Int32", 1, Block::Lineage(parent)));
    }
    let points = [arr("Points", "Float32", 3, Block::Xyz(&snap.pos))];
    let cells = [
        arr("connectivity", "Int64", 1, Block::Iota),
        arr("offsets", "Int64", 1, Block::IotaPlusOne),
        arr("types", "UInt8", 1, Block::Types),
    ];

    // Offsets are known before any data is written, so the file goes out in one pass.
    let mut offset = 0usize;
    let mut tags = |arrays: &[Array], indent: &str| {
        let mut s = String::new();
        for a in arrays {
            s.push_str(&a.tag(indent, offset));
            offset += 8 + a.byte_len(n);
        }
        s
    };
    let pd_tags = tags(&point_data, "        ");
    let pt_tags = tags(&points, "        ");
    let cell_tags = tags(&cells, "        ");

    write!(
        w,
        "<?xml version=\"1.0\"?>\n\
         <VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n\
         \x20 <UnstructuredGrid>\n\
         \x20   <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">\n\
         \x20     <PointData Scalars=\"radius\" Vectors=\"velocity\">\n\
         {pd_tags}\
         \x20     </PointData>\n\
         \x20     <Points>\n\
         {pt_tags}\
         \x20     </Points>\n\
         \x20     <Cells>\n\
         {cell_tags}\
         \x20     </Cells>\n\
         \x20   </Piece>\n\
         \x20 </UnstructuredGrid>\n\
         \x20 <AppendedData encoding=\"raw\">\n_"
    )?;
    for a in point_data.iter().chain(&points).chain(&cells) {
        a.write_block(w, n, live.as_deref())?;
    }
    w.write_all(b"\n  </AppendedData>\n</VTKFile>\n")
}

/// File name of the contact-line frame of `step`.
pub fn contacts_file_name(step: u64) -> String {
    part_file_name(1, step)
}

/// Writes the force network of one frame as VTK polydata (ASCII): a line per contact from
/// particle `i`'s centre to particle `j`'s (to the contact point for a wall), with the normal
/// and tangential force, the overlap and `j` as cell data. Colour by `normal_force` and use a
/// Tube filter to see force chains.
pub(crate) fn write_contact_lines(
    w: &mut impl Write,
    records: &[ContactRecord],
    pos: &[[f32; 4]],
) -> io::Result<()> {
    let n = records.len();
    writeln!(
        w,
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <PolyData>\n    <Piece NumberOfPoints=\"{}\" NumberOfLines=\"{n}\">",
        2 * n
    )?;
    writeln!(w, "      <Points>\n        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">")?;
    for r in records {
        let a = pos[r.i as usize];
        let b = if r.j >= 0 {
            // The centre of `j` as seen from `i` (its nearest periodic image).
            let dist = a[3] + pos[r.j as usize][3] - r.overlap;
            r.normal.map(|c| c * dist)
        } else {
            [r.point[0] - a[0], r.point[1] - a[1], r.point[2] - a[2]]
        };
        let b = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        writeln!(
            w,
            "          {} {} {} {} {} {}",
            a[0], a[1], a[2], b[0], b[1], b[2]
        )?;
    }
    writeln!(w, "        </DataArray>\n      </Points>\n      <Lines>")?;
    writeln!(
        w,
        "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">"
    )?;
    for k in 0..n {
        writeln!(w, "          {} {}", 2 * k, 2 * k + 1)?;
    }
    writeln!(w, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">")?;
    for k in 0..n {
        writeln!(w, "          {}", 2 * k + 2)?;
    }
    writeln!(
        w,
        "        </DataArray>\n      </Lines>\n      <CellData Scalars=\"normal_force\">"
    )?;
    type Column = (&'static str, fn(&ContactRecord) -> String);
    let columns: [Column; 4] = [
        ("normal_force", |r| r.normal_force.to_string()),
        ("tangential_force", |r| r.tangential_force.to_string()),
        ("overlap", |r| r.overlap.to_string()),
        ("j", |r| r.j.to_string()),
    ];
    for (name, value) in columns {
        let ty = if name == "j" { "Int64" } else { "Float32" };
        writeln!(
            w,
            "        <DataArray type=\"{ty}\" Name=\"{name}\" format=\"ascii\">"
        )?;
        for r in records {
            writeln!(w, "          {}", value(r))?;
        }
        writeln!(w, "        </DataArray>")?;
    }
    writeln!(
        w,
        "      </CellData>\n    </Piece>\n  </PolyData>\n</VTKFile>"
    )
}

/// File name of the shell frame of `step`.
pub fn shells_file_name(step: u64) -> String {
    part_file_name(2, step)
}

/// Writes the shells of one frame as VTK polydata (ASCII): every node as a point (shells in
/// order), each mesh edge as a line with its spring's `tension` (N, positive stretched), each
/// triangle as a polygon whose `tension` is the mean of its three edges'; point data: the
/// node's total `force` (N) and its `shell` index.
pub(crate) fn write_shells(
    w: &mut impl Write,
    shells: &grains_core::shells::Shells,
    pos: &[[f32; 4]],
    force: &[[f32; 4]],
    tension: &[f32],
) -> io::Result<()> {
    let mut local = vec![u32::MAX; pos.len()];
    let mut points = Vec::new();
    let mut shell_of = Vec::new();
    for (s, &(first, count)) in shells.nodes.iter().enumerate() {
        for p in first..first + count {
            local[p as usize] = points.len() as u32;
            points.push(p as usize);
            shell_of.push(s);
        }
    }
    // A ring's segments are its lines; only shells' triangles are polygons.
    let triangles: Vec<&[u32; 4]> = (shells.triangles.iter())
        .filter(|t| t[2] != grains_core::shells::NO_NODE)
        .collect();
    let (ne, nt) = (shells.edges.len(), triangles.len());
    writeln!(
        w,
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <PolyData>\n    <Piece NumberOfPoints=\"{}\" NumberOfLines=\"{ne}\" NumberOfPolys=\"{nt}\">",
        points.len()
    )?;
    writeln!(w, "      <PointData Vectors=\"force\">\n        <DataArray type=\"Float32\" Name=\"force\" NumberOfComponents=\"3\" format=\"ascii\">")?;
    for &p in &points {
        let f = force.get(p).copied().unwrap_or_default();
        writeln!(w, "          {} {} {}", f[0], f[1], f[2])?;
    }
    writeln!(
        w,
        "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"shell\" format=\"ascii\">"
    )?;
    for s in &shell_of {
        writeln!(w, "          {s}")?;
    }
    writeln!(w, "        </DataArray>\n      </PointData>\n      <Points>\n        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">")?;
    for &p in &points {
        let x = pos[p];
        writeln!(w, "          {} {} {}", x[0], x[1], x[2])?;
    }
    writeln!(w, "        </DataArray>\n      </Points>")?;
    let cells = |w: &mut dyn Write, tag: &str, conn: &[Vec<u32>]| -> io::Result<()> {
        writeln!(w, "      <{tag}>\n        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">")?;
        for c in conn {
            let ids: Vec<String> = c.iter().map(|&p| local[p as usize].to_string()).collect();
            writeln!(w, "          {}", ids.join(" "))?;
        }
        writeln!(w, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">")?;
        let mut at = 0;
        for c in conn {
            at += c.len();
            writeln!(w, "          {at}")?;
        }
        writeln!(w, "        </DataArray>\n      </{tag}>")
    };
    let lines: Vec<Vec<u32>> = shells.edges.iter().map(|e| vec![e[0], e[1]]).collect();
    let polys: Vec<Vec<u32>> = triangles.iter().map(|t| t[..3].to_vec()).collect();
    cells(w, "Lines", &lines)?;
    cells(w, "Polys", &polys)?;
    let mut by_edge = std::collections::HashMap::new();
    for (e, t) in shells.edges.iter().zip(tension) {
        by_edge.insert((e[0].min(e[1]), e[0].max(e[1])), *t);
    }
    writeln!(w, "      <CellData Scalars=\"tension\">\n        <DataArray type=\"Float32\" Name=\"tension\" format=\"ascii\">")?;
    for t in tension {
        writeln!(w, "          {t}")?;
    }
    for t in &triangles {
        let mut sum = 0.0f32;
        for c in 0..3 {
            let (a, b) = (t[c], t[(c + 1) % 3]);
            sum += by_edge.get(&(a.min(b), a.max(b))).copied().unwrap_or(0.0);
        }
        writeln!(w, "          {}", sum / 3.0)?;
    }
    writeln!(
        w,
        "        </DataArray>\n      </CellData>\n    </Piece>\n  </PolyData>\n</VTKFile>"
    )
}

/// Writes a `.pvd` collection of `(time, file)` frames to `w`: particle frames as part 0,
/// contact-line frames as part 1, shell frames as part 2 and wall frames as part 3 of the
/// same time step.
pub(crate) fn write_pvd(w: &mut impl Write, frames: &[(f64, String)]) -> io::Result<()> {
    w.write_all(
        b"<?xml version=\"1.0\"?>\n\
          <VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n\
          \x20 <Collection>\n",
    )?;
    for (time, file) in frames {
        let part = if file.starts_with("contacts_") {
            1
        } else if file.starts_with("shells_") {
            2
        } else if file.starts_with("walls_") {
            3
        } else {
            0
        };
        writeln!(
            w,
            "    <DataSet timestep=\"{time}\" group=\"\" part=\"{part}\" file=\"{file}\"/>"
        )?;
    }
    w.write_all(b"  </Collection>\n</VTKFile>\n")
}
