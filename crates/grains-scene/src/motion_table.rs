//! A mesh wall's table of poses (`motion = { table = "poses.csv" }`): a CSV file, relative to
//! the scene, with the header `t,x,y,z` or `t,x,y,z,rx,ry,rz` and a row per pose: time (s),
//! the displacement of the mesh from where the scene places it (m) and its rotation vector
//! about the motion's centre (rad). Lines starting with `#` and blank lines are skipped. The
//! times increase strictly, every value is finite, the first row leaves the mesh where the
//! scene places it (zero displacement and rotation), and there are at least two rows. Errors
//! name the scene's key and the file's line.

use std::path::Path;

use crate::error::SceneError;
use crate::walk::{Ctx, Value};

/// Columns of a table without rotations, and with them.
const SHORT: [&str; 4] = ["t", "x", "y", "z"];
const LONG: [&str; 7] = ["t", "x", "y", "z", "rx", "ry", "rz"];

/// Read the table that `v` (the key `key`) names, as rows `(t, dx, dy, dz, rx, ry, rz, 0)`.
pub(crate) fn read(ctx: &Ctx<'_>, v: &Value<'_>, key: &str) -> Result<Vec<[f32; 8]>, SceneError> {
    let name = ctx.string(v, key, "a path to a CSV file of poses (t,x,y,z[,rx,ry,rz])")?;
    let full = ctx.file.parent().unwrap_or(Path::new("")).join(name);
    let err = |line: usize, what: String| {
        let at = if line > 0 {
            format!(":{line}")
        } else {
            String::new()
        };
        ctx.err(&v.span(), key, format!("{}{at}: {what}", full.display()))
    };
    let text = std::fs::read_to_string(&full).map_err(|e| err(0, format!("cannot read: {e}")))?;
    parse(&text).map_err(|(line, what)| err(line, what))
}

/// The rows of table text `text`, or the 1-based line and what is wrong with it.
fn parse(text: &str) -> Result<Vec<[f32; 8]>, (usize, String)> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (hl, header) = lines.next().ok_or((0, "the table is empty".to_string()))?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let columns = if names == SHORT {
        4
    } else if names == LONG {
        7
    } else {
        return Err((
            hl,
            format!(
                "the header is `{header}`; expected `{}` or `{}`",
                SHORT.join(","),
                LONG.join(",")
            ),
        ));
    };
    let mut rows: Vec<[f32; 8]> = Vec::new();
    for (line, l) in lines {
        let cells: Vec<&str> = l.split(',').map(str::trim).collect();
        if cells.len() != columns {
            return Err((
                line,
                format!("{} values where the header names {columns}", cells.len()),
            ));
        }
        let mut row = [0.0f32; 8];
        for (k, c) in cells.iter().enumerate() {
            let x: f64 = c
                .parse()
                .map_err(|_| (line, format!("`{c}` is not a number ({})", names[k])))?;
            if !x.is_finite() {
                return Err((
                    line,
                    format!("{} is {c}; every value must be finite", names[k]),
                ));
            }
            row[k] = x as f32;
        }
        if let Some(last) = rows.last() {
            if row[0] <= last[0] {
                return Err((
                    line,
                    format!(
                        "time {} s does not come after the row before's {} s: the times must increase",
                        row[0], last[0]
                    ),
                ));
            }
        } else if row[0] < 0.0 {
            return Err((line, format!("time {} s is before the run starts", row[0])));
        } else if row[1..7].iter().any(|&x| x != 0.0) {
            return Err((
                line,
                "the first row must leave the mesh where the scene places it: zero \
                 displacement and rotation (give the mesh's place with `translate` and `rotate`)"
                    .to_string(),
            ));
        }
        rows.push(row);
    }
    if rows.len() < 2 {
        return Err((
            0,
            format!("{} rows of poses; a table needs at least two", rows.len()),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn a_table_reads_with_and_without_rotations() {
        let rows = parse("# poses\nt,x,y,z\n0,0,0,0\n1,0.5,0,0\n").unwrap();
        assert_eq!(
            rows,
            vec![[0.0; 8], [1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
        );
        let rows = parse("t,x,y,z,rx,ry,rz\n0,0,0,0,0,0,0\n2,0,0,0,0,0,2.5\n").unwrap();
        assert_eq!(rows[1][6], 2.5);
    }

    #[test]
    fn bad_tables_name_their_line() {
        let cases = [
            ("t,x,y\n0,0,0\n", 1, "header"),
            ("t,x,y,z\n0,0,0,0\n0,1,0,0\n", 3, "must increase"),
            ("t,x,y,z\n0,0,0,0\n1,NaN,0,0\n", 3, "finite"),
            ("t,x,y,z\n0,0,0,0\n1,abc,0,0\n", 3, "not a number"),
            ("t,x,y,z\n0,1,0,0\n1,2,0,0\n", 2, "first row"),
            ("t,x,y,z\n0,0,0,0\n", 0, "at least two"),
            ("t,x,y,z\n0,0,0\n", 2, "3 values"),
        ];
        for (text, line, what) in cases {
            let (l, m) = parse(text).unwrap_err();
            assert_eq!(l, line, "{text:?}: {m}");
            assert!(m.contains(what), "{text:?}: {m}");
        }
    }
}
