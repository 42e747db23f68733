//! Triangle meshes from files: Wavefront OBJ (vertices `v x y z`, faces `f a b c ...` with
//! 1-based or negative indices, `a/t/n` forms, polygons fanned into triangles) and STL, ASCII
//! (`solid ... facet ... vertex x y z ...`) or binary (80-byte header, count, 50 bytes per
//! triangle). STL repeats each corner per facet: corners at exactly the same coordinates are
//! merged into one vertex, so a closed STL surface becomes a closed mesh.
//!
//! Every coordinate must be finite and within [`COORDINATE_LIMIT`]: a file that holds a NaN,
//! an infinity or an absurd number is refused with the facet (and the line of a text file).
//! A mesh wall leaves out its degenerate triangles (no area to touch, [`TriangleShape`]) and
//! says how many, and refuses a mesh of which more than [`MAX_DEGENERATE_SHARE`] are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use grains_core::shells::Mesh;

use crate::error::SceneError;
use crate::walk::{Ctx, Table};

/// Largest coordinate a mesh file may hold, in the file's units (before `scale`): past it an
/// f32's spacing is tens of kilometres, no surface a particle can rest on, so such a vertex is a
/// corrupt or mis-scaled file (and one such vertex makes its triangles needles that span it).
pub const COORDINATE_LIMIT: f64 = 1e15;

/// A triangle whose height (twice its area over its longest edge) is at most this fraction of
/// its longest edge is degenerate: its corners are on one line to within the rounding of its
/// coordinates, so it has no surface and no normal. Far above f64 rounding (1e-16) and far
/// below any triangle a mesh is meant to hold.
pub const DEGENERATE_RATIO: f64 = 1e-10;

/// A triangle whose height is below this fraction of its longest edge is a needle: a valid
/// triangle, kept, but thinner than the f32 rounding of the corners the kernels see (6e-8 of
/// its size) can resolve well, so its face normal may be off by several percent.
pub const NEEDLE_RATIO: f64 = 1e-6;

/// Most of a mesh wall's triangles that may be degenerate (10%): beyond it the file is not the
/// surface it should be (a broken export, or units that collapse it).
pub const MAX_DEGENERATE_SHARE: f64 = 0.1;

/// What is wrong with a mesh file, and where (`line` 0 for a binary file's byte layout).
#[derive(Debug)]
pub struct MeshFileError {
    pub line: usize,
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> MeshFileError {
    MeshFileError {
        line,
        message: message.into(),
    }
}

/// A mesh as read, with the line each triangle came from (0 for a binary STL).
struct Located {
    mesh: Mesh,
    lines: Vec<usize>,
}

/// How sound a triangle is: see [`DEGENERATE_RATIO`] and [`NEEDLE_RATIO`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleShape {
    /// Height at least [`NEEDLE_RATIO`] of its longest edge.
    Sound,
    /// Thin, but a triangle: kept.
    Needle,
    /// No area to touch (corners on one line or coincident, or not finite).
    Degenerate,
}

/// The shape class of triangle `t` (corners in m).
pub fn triangle_shape(t: &[[f64; 3]; 3]) -> TriangleShape {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let len2 = |d: [f64; 3]| d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let (e1, e2) = (sub(t[1], t[0]), sub(t[2], t[0]));
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let longest2 = [e1, e2, sub(t[2], t[1])]
        .map(len2)
        .into_iter()
        .fold(0.0, f64::max);
    // Height over longest edge = |n| / longest^2 (|n| is twice the area).
    let ratio = len2(n).sqrt() / longest2;
    // NaN (every corner at one point: 0 / 0) is degenerate too.
    if ratio.is_nan() || ratio <= DEGENERATE_RATIO {
        TriangleShape::Degenerate
    } else if ratio < NEEDLE_RATIO {
        TriangleShape::Needle
    } else {
        TriangleShape::Sound
    }
}

/// The mesh a table's `file` names (relative to the scene), scaled by `scale`, rotated by
/// `rotate = [w, x, y, z]` and moved by `translate`: a `[[shell]]` block's.
pub(crate) fn placed_mesh(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &grains_core::Domain,
) -> Result<Mesh, SceneError> {
    Ok(placed(ctx, b, domain)?.0.mesh)
}

/// As [`placed_mesh`], for a mesh wall: its degenerate triangles left out and counted (a
/// warning naming the file and the count, and the needles kept), refused when more than
/// [`MAX_DEGENERATE_SHARE`] of them are degenerate.
pub(crate) fn wall_mesh(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &grains_core::Domain,
) -> Result<Mesh, SceneError> {
    let (located, full) = placed(ctx, b, domain)?;
    let Located { mut mesh, lines } = located;
    let total = mesh.triangles.len();
    let mut degenerate: Vec<usize> = Vec::new();
    let mut needles: Vec<usize> = Vec::new();
    for (k, t) in mesh.triangles.iter().enumerate() {
        match triangle_shape(&t.map(|i| mesh.vertices[i as usize])) {
            TriangleShape::Degenerate => degenerate.push(k),
            TriangleShape::Needle => needles.push(k),
            TriangleShape::Sound => {}
        }
    }
    let span = b.get("file").map(|v| v.span()).unwrap_or(b.span.clone());
    let key = b.key("file");
    // 1-based facet numbers, with the line of a text file.
    let facet = |k: usize| match lines.get(k).copied().unwrap_or(0) {
        0 => format!("facet {}", k + 1),
        line => format!("facet {} (line {line})", k + 1),
    };
    let list = |ks: &[usize]| {
        let shown: Vec<String> = ks.iter().take(3).map(|&k| facet(k)).collect();
        let more = if ks.len() > 3 { ", ..." } else { "" };
        format!("{}{more}", shown.join(", "))
    };
    let are = |n: usize| if n == 1 { "is" } else { "are" };
    let share = degenerate.len() as f64 / total.max(1) as f64;
    if share > MAX_DEGENERATE_SHARE {
        return Err(ctx.err(
            &span,
            &key,
            format!(
                "{}: {} of its {total} triangles ({:.1}%) {} degenerate (corners on one line \
                 or coincident: no area), e.g. {}; at most {}% may be: repair the mesh, or check \
                 that its export and units are right",
                full.display(),
                degenerate.len(),
                100.0 * share,
                are(degenerate.len()),
                list(&degenerate),
                100.0 * MAX_DEGENERATE_SHARE
            ),
        ));
    }
    if !degenerate.is_empty() {
        ctx.warn(
            &span,
            &key,
            format!(
                "{}: {} of its {total} triangles {} degenerate (corners on one line or \
                 coincident: no area to touch) and left out: {}",
                full.display(),
                degenerate.len(),
                are(degenerate.len()),
                list(&degenerate)
            ),
        );
        let drop: std::collections::HashSet<usize> = degenerate.iter().copied().collect();
        let kept = mesh
            .triangles
            .iter()
            .enumerate()
            .filter(|(k, _)| !drop.contains(k))
            .map(|(_, t)| *t)
            .collect();
        mesh.triangles = kept;
    }
    if !needles.is_empty() {
        ctx.warn(
            &span,
            &key,
            format!(
                "{}: {} of its {total} triangles {} (narrower than {NEEDLE_RATIO:e} of their \
                 length), kept, but their face normals are uncertain at the kernels' f32 \
                 precision: {}",
                full.display(),
                needles.len(),
                if needles.len() == 1 {
                    "is a needle"
                } else {
                    "are needles"
                },
                list(&needles)
            ),
        );
    }
    Ok(mesh)
}

/// The mesh of `b.file`, placed, and the file's path; refused when it is larger than the
/// domain by orders of magnitude ([`crate::checks::mesh_fits_domain`]).
fn placed(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &grains_core::Domain,
) -> Result<(Located, PathBuf), SceneError> {
    let fv = b.get("file").unwrap_or_else(|| unreachable!());
    let name = ctx.string(fv, &b.key("file"), "a path to a .obj or .stl file")?;
    let base = ctx.file.parent().unwrap_or(Path::new(""));
    let full = base.join(name);
    let mut located = read_located(&full).map_err(|e| {
        let at = if e.line > 0 {
            format!(":{}", e.line)
        } else {
            String::new()
        };
        ctx.err(
            &fv.span(),
            &b.key("file"),
            format!("{}{at}: {}", full.display(), e.message),
        )
    })?;
    let scale = b
        .get("scale")
        .map(|v| ctx.positive(v, &b.key("scale"), "a factor"))
        .transpose()?
        .unwrap_or(1.0);
    let translate = b
        .get("translate")
        .map(|v| ctx.vec3(v, &b.key("translate"), "m"))
        .transpose()?
        .unwrap_or([0.0; 3]);
    let rotate = match b.get("rotate") {
        Some(v) => {
            let q = ctx.quaternion(v, &b.key("rotate"))?;
            let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (n - 1.0).abs() > 1e-3 {
                return Err(ctx.err(
                    &v.span(),
                    &b.key("rotate"),
                    format!(
                        "expected a unit quaternion [w, x, y, z], found one of length {}",
                        grains_core::units::sig4(n)
                    ),
                ));
            }
            q
        }
        None => [1.0, 0.0, 0.0, 0.0],
    };
    located.mesh.transform(scale, rotate, translate);
    let k = if b.get("scale").is_some() {
        "scale"
    } else {
        "file"
    };
    let span = b.get(k).map(|v| v.span()).unwrap_or(b.span.clone());
    crate::checks::mesh_fits_domain(ctx, domain, &located.mesh.vertices, scale, &span, &b.key(k))?;
    Ok((located, full))
}

/// Read `path` as OBJ or STL by its extension.
pub fn read_mesh(path: &Path) -> Result<Mesh, MeshFileError> {
    Ok(read_located(path)?.mesh)
}

fn read_located(path: &Path) -> Result<Located, MeshFileError> {
    let bytes = std::fs::read(path).map_err(|e| err(0, format!("cannot read it: {e}")))?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let located = match ext.as_str() {
        "obj" => obj_located(&String::from_utf8_lossy(&bytes))?,
        "stl" => stl_located(&bytes)?,
        _ => {
            return Err(err(
                0,
                format!("unknown mesh format \"{ext}\"; expected a .obj or .stl file"),
            ))
        }
    };
    if located.mesh.triangles.is_empty() {
        return Err(err(0, "the file holds no triangles"));
    }
    Ok(located)
}

/// A coordinate as the file gives it: `Err` names `place` (the facet and corner, or the OBJ
/// vertex), the axis and what was found, for a NaN, an infinity or a value beyond
/// [`COORDINATE_LIMIT`].
fn coordinate(
    x: f64,
    text: impl Fn() -> String,
    place: impl Fn() -> String,
    axis: usize,
) -> Result<f64, String> {
    let name = ["x", "y", "z"][axis];
    if x.is_finite() && x.abs() <= COORDINATE_LIMIT {
        return Ok(x);
    }
    let (place, text) = (place(), text());
    if !x.is_finite() {
        Err(format!(
            "{place}: {name} = {text} is not a finite number; expected a coordinate in \
             [-{COORDINATE_LIMIT:e}, {COORDINATE_LIMIT:e}]"
        ))
    } else {
        Err(format!(
            "{place}: {name} = {text} is beyond {COORDINATE_LIMIT:e} in size, no place for a \
             surface (a corrupt or mis-scaled file); expected a coordinate in \
             [-{COORDINATE_LIMIT:e}, {COORDINATE_LIMIT:e}]"
        ))
    }
}

/// The three coordinates after a `v` or `vertex` keyword on text line `line`.
fn point<'a>(
    line: usize,
    mut it: impl Iterator<Item = &'a str>,
    place: &str,
) -> Result<[f64; 3], MeshFileError> {
    let mut p = [0.0; 3];
    for (axis, o) in p.iter_mut().enumerate() {
        let what = ["x", "y", "z"][axis];
        let s = it
            .next()
            .ok_or_else(|| err(line, format!("{place}: missing {what}")))?;
        let x: f64 = s.parse().map_err(|_| {
            err(
                line,
                format!("{place}: expected {what} (a number), found \"{s}\""),
            )
        })?;
        *o = coordinate(x, || s.to_string(), || place.to_string(), axis)
            .map_err(|m| err(line, m))?;
    }
    Ok(p)
}

/// Parse OBJ text.
pub fn parse_obj(text: &str) -> Result<Mesh, MeshFileError> {
    Ok(obj_located(text)?.mesh)
}

fn obj_located(text: &str) -> Result<Located, MeshFileError> {
    let mut mesh = Mesh::default();
    let mut lines = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let mut it = raw.split_whitespace();
        match it.next() {
            Some("v") => {
                let place = format!("vertex {}", mesh.vertices.len() + 1);
                mesh.vertices.push(point(line, it, &place)?);
            }
            Some("f") => {
                let mut corners = Vec::new();
                for w in it {
                    let first = w.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| {
                        err(line, format!("expected a vertex index, found \"{w}\""))
                    })?;
                    let n = mesh.vertices.len() as i64;
                    let idx = if i > 0 { i - 1 } else { n + i };
                    if i == 0 || idx < 0 || idx >= n {
                        return Err(err(
                            line,
                            format!(
                                "vertex index {i} is out of range: {n} vertices are defined so far"
                            ),
                        ));
                    }
                    corners.push(idx as u32);
                }
                if corners.len() < 3 {
                    return Err(err(line, "a face needs at least 3 vertices"));
                }
                for c in 1..corners.len() - 1 {
                    mesh.triangles
                        .push([corners[0], corners[c], corners[c + 1]]);
                    lines.push(line);
                }
            }
            _ => {}
        }
    }
    Ok(Located { mesh, lines })
}

/// Parse STL bytes, ASCII or binary.
pub fn parse_stl(bytes: &[u8]) -> Result<Mesh, MeshFileError> {
    Ok(stl_located(bytes)?.mesh)
}

fn stl_located(bytes: &[u8]) -> Result<Located, MeshFileError> {
    let binary_len = |n: usize| 84 + 50 * n;
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if bytes.len() == binary_len(n) {
            let mesh = merge(&stl_binary_corners(bytes, n)?);
            return Ok(Located {
                mesh,
                lines: vec![0; n],
            });
        }
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        err(
            0,
            "neither a binary STL (its size does not match its triangle count) nor ASCII text",
        )
    })?;
    if !text.trim_start().starts_with("solid") {
        return Err(err(1, "an ASCII STL starts with `solid`"));
    }
    let mut corners = Vec::new();
    let mut lines = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let mut it = raw.split_whitespace();
        if it.next() == Some("vertex") {
            let line = k + 1;
            let place = format!(
                "facet {}, corner {}",
                corners.len() / 3 + 1,
                corners.len() % 3 + 1
            );
            corners.push(point(line, it, &place)?);
            lines.push(line);
        }
    }
    if corners.len() % 3 != 0 {
        return Err(err(
            lines.last().copied().unwrap_or(0),
            format!("{} vertices is not whole facets of 3", corners.len()),
        ));
    }
    // Each facet's line is its first corner's.
    let lines = lines.iter().step_by(3).copied().collect();
    Ok(Located {
        mesh: merge(&corners),
        lines,
    })
}

/// The corners of a binary STL's `n` facets, each checked.
fn stl_binary_corners(bytes: &[u8], n: usize) -> Result<Vec<[f64; 3]>, MeshFileError> {
    let f = |o: usize| f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let mut corners = Vec::with_capacity(3 * n);
    for t in 0..n {
        let base = 84 + 50 * t + 12;
        for c in 0..3 {
            let o = base + 12 * c;
            let mut p = [0.0; 3];
            for (axis, x) in p.iter_mut().enumerate() {
                let v32 = f(o + 4 * axis);
                let place = || {
                    format!(
                        "facet {} of {n} (bytes {}..{}), corner {}",
                        t + 1,
                        84 + 50 * t,
                        84 + 50 * (t + 1),
                        c + 1
                    )
                };
                *x = coordinate(v32 as f64, || format!("{v32:e}"), place, axis)
                    .map_err(|m| err(0, m))?;
            }
            corners.push(p);
        }
    }
    Ok(corners)
}

/// Triangles of consecutive corner triples, corners at equal coordinates merged.
fn merge(corners: &[[f64; 3]]) -> Mesh {
    let mut index: HashMap<[u64; 3], u32> = HashMap::new();
    let mut mesh = Mesh::default();
    let mut ids = Vec::with_capacity(corners.len());
    for c in corners {
        let key = c.map(|x| (x + 0.0).to_bits());
        let id = *index.entry(key).or_insert_with(|| {
            mesh.vertices.push(*c);
            mesh.vertices.len() as u32 - 1
        });
        ids.push(id);
    }
    for t in ids.chunks_exact(3) {
        mesh.triangles.push([t[0], t[1], t[2]]);
    }
    mesh
}
