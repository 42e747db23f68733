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
