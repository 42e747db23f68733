//! Triangle meshes from files: Wavefront OBJ (vertices `v x y z`, faces `f a b c ...` with
//! 1-based or negative indices, `a/t/n` forms, polygons fanned into triangles) and STL, ASCII
//! (`solid ... facet ... vertex x y z ...`) or binary (80-byte header, count, 50 bytes per
//! triangle). STL repeats each corner per facet: corners at exactly the same coordinates are
//! merged into one vertex, so a closed STL surface becomes a closed mesh.

use std::collections::HashMap;
use std::path::Path;

use grains_core::shells::Mesh;

use crate::error::SceneError;
use crate::walk::{Ctx, Table};

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

/// The mesh a table's `file` names (relative to the scene), scaled by `scale`, rotated by
/// `rotate = [w, x, y, z]` and moved by `translate`: a `[[shell]]` block's and a mesh wall's.
pub(crate) fn placed_mesh(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<Mesh, SceneError> {
    let fv = b.get("file").unwrap_or_else(|| unreachable!());
    let name = ctx.string(fv, &b.key("file"), "a path to a .obj or .stl file")?;
    let base = ctx.file.parent().unwrap_or(Path::new(""));
    let full = base.join(name);
    let mut mesh = crate::mesh_file::read_mesh(&full).map_err(|e| {
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
    mesh.transform(scale, rotate, translate);
    Ok(mesh)
}

/// Read `path` as OBJ or STL by its extension.
pub fn read_mesh(path: &Path) -> Result<Mesh, MeshFileError> {
    let bytes = std::fs::read(path).map_err(|e| err(0, format!("cannot read it: {e}")))?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mesh = match ext.as_str() {
        "obj" => parse_obj(&String::from_utf8_lossy(&bytes))?,
        "stl" => parse_stl(&bytes)?,
        _ => {
            return Err(err(
                0,
                format!("unknown mesh format \"{ext}\"; expected a .obj or .stl file"),
            ))
        }
    };
    if mesh.triangles.is_empty() {
        return Err(err(0, "the file holds no triangles"));
    }
    Ok(mesh)
}

fn number(line: usize, s: Option<&str>, what: &str) -> Result<f64, MeshFileError> {
    let s = s.ok_or_else(|| err(line, format!("missing {what}")))?;
    let x: f64 = s
        .parse()
        .map_err(|_| err(line, format!("expected {what} (a number), found \"{s}\"")))?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(err(line, format!("{what} is not finite: \"{s}\"")))
    }
}

/// Parse OBJ text.
pub fn parse_obj(text: &str) -> Result<Mesh, MeshFileError> {
    let mut mesh = Mesh::default();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let mut it = raw.split_whitespace();
        match it.next() {
            Some("v") => {
                let x = number(line, it.next(), "x")?;
                let y = number(line, it.next(), "y")?;
                let z = number(line, it.next(), "z")?;
                mesh.vertices.push([x, y, z]);
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
                }
            }
            _ => {}
        }
    }
    Ok(mesh)
}

/// Parse STL bytes, ASCII or binary.
pub fn parse_stl(bytes: &[u8]) -> Result<Mesh, MeshFileError> {
    let binary_len = |n: usize| 84 + 50 * n;
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if bytes.len() == binary_len(n) {
            return Ok(parse_stl_binary(bytes, n));
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
            let x = number(line, it.next(), "x")?;
            let y = number(line, it.next(), "y")?;
            let z = number(line, it.next(), "z")?;
            corners.push([x, y, z]);
            lines.push(line);
        }
    }
    if corners.len() % 3 != 0 {
        return Err(err(
            lines.last().copied().unwrap_or(0),
            format!("{} vertices is not whole facets of 3", corners.len()),
        ));
    }
    Ok(merge(&corners))
}

fn parse_stl_binary(bytes: &[u8], n: usize) -> Mesh {
    let f = |o: usize| f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let mut corners = Vec::with_capacity(3 * n);
    for t in 0..n {
        let base = 84 + 50 * t + 12;
        for c in 0..3 {
            let o = base + 12 * c;
            corners.push([f(o) as f64, f(o + 4) as f64, f(o + 8) as f64]);
        }
    }
    merge(&corners)
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
