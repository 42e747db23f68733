//! The stage file's format, shared by its writer (`grains-io`, beside every checkpoint) and its
//! reader (`grains-scene`, `[initial] from`): a run's spheres where its checkpoint holds them,
//! with the signatures of its chains, for a later scene to start from.

/// Name of the stage file in an output directory.
pub const STAGE_CSV: &str = "stage.csv";

/// Its header line: a row per sphere.
pub const STAGE_HEADER: &str = "id,material,radius,x,y,z,vx,vy,vz,wx,wy,wz";

/// The start of its line of chain signatures.
pub const PAIRS_PREFIX: &str = "# pairs: ";

/// The line of chain signatures: `a|b=<hex>` for each pair of material names.
pub fn pairs_line(pairs: &[(String, String, u64)]) -> String {
    let items: Vec<String> = pairs
        .iter()
        .map(|(a, b, s)| format!("{a}|{b}={s:016x}"))
        .collect();
    format!("{PAIRS_PREFIX}{}", items.join(","))
}

/// The pairs of a line of chain signatures ([`pairs_line`]); `None` where it is not one.
pub fn parse_pairs(line: &str) -> Option<Vec<(String, String, u64)>> {
    let rest = line.strip_prefix(PAIRS_PREFIX)?;
    rest.split(',')
        .filter(|s| !s.is_empty())
        .map(|item| {
            let (names, sig) = item.split_once('=')?;
            let (a, b) = names.split_once('|')?;
            Some((
                a.to_string(),
                b.to_string(),
                u64::from_str_radix(sig, 16).ok()?,
            ))
        })
        .collect()
}

/// One sphere of a stage file.
#[derive(Clone, Debug, PartialEq)]
pub struct StageRow {
    /// Its index in the run that wrote it.
    pub id: u32,
    /// Its material's name.
    pub material: String,
    /// `(radius, x, y, z, vx, vy, vz, wx, wy, wz)`, SI.
    pub values: [f32; 10],
}

/// A row of a stage file, or what is wrong with it.
pub fn parse_row(line: &str) -> Result<StageRow, String> {
    let cells: Vec<&str> = line.split(',').map(str::trim).collect();
    if cells.len() != 12 {
        return Err(format!("{} values where the header names 12", cells.len()));
    }
    let id: u32 = cells[0]
        .parse()
        .map_err(|_| format!("`{}` is not a particle index", cells[0]))?;
    let mut values = [0.0f32; 10];
    for (k, c) in cells[2..].iter().enumerate() {
        let v: f32 = c.parse().map_err(|_| format!("`{c}` is not a number"))?;
        if !v.is_finite() {
            return Err(format!("particle {id} has a value of {c}"));
        }
        values[k] = v;
    }
    if values[0] <= 0.0 {
        return Err(format!("particle {id} has radius {}", values[0]));
    }
    Ok(StageRow {
        id,
        material: cells[1].to_string(),
        values,
    })
}

/// The rows of a stage file's text after its header, each with its 1-based line number, and
/// its chain signatures; or the line and what is wrong.
#[allow(clippy::type_complexity)]
pub fn parse_stage(
    text: &str,
) -> Result<(Vec<(usize, StageRow)>, Vec<(String, String, u64)>), (usize, String)> {
    let mut pairs = None;
    let mut header = false;
    let mut rows = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        if let Some(p) = parse_pairs(line) {
            pairs = Some(p);
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header {
            if line.trim() != STAGE_HEADER {
                return Err((n, format!("expected the header `{STAGE_HEADER}`")));
            }
            header = true;
            continue;
        }
        rows.push((n, parse_row(line).map_err(|e| (n, e))?));
    }
    let pairs = pairs.ok_or((0, "no `# pairs:` line".to_string()))?;
    if rows.is_empty() {
        return Err((0, "the earlier run left no spheres".to_string()));
    }
    Ok((rows, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairs_line_reads_back() {
        let pairs = vec![
            ("glass".to_string(), "glass".to_string(), 0x12ab),
            ("glass".to_string(), "steel".to_string(), u64::MAX),
        ];
        assert_eq!(parse_pairs(&pairs_line(&pairs)), Some(pairs));
        assert_eq!(parse_pairs("# something else"), None);
    }
}
