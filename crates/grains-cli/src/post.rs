//! `grains post ANALYSIS OUT`: an analysis of a run's output folder (its `particles.csv`, and
//! `contacts.csv` for the coordination number), written as `OUT/post/<analysis>.csv`. The
//! analyses themselves are [`grains_core::post`]'s, on arrays.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use grains_core::post;

/// What `grains post` computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Analysis {
    /// Mean coordination number at every output step (needs `contacts.csv`).
    Coordination,
    /// Solid fraction in slabs along `--axis`.
    Packing,
    /// Size distribution by number and by mass.
    Psd,
    /// Angle of repose of the bed's free surface at every output step.
    Repose,
    /// Particles discharged over time, the rate, and Beverloo's coefficient.
    Discharge,
    /// Radial distribution function.
    Rdf,
    /// Mean velocity in slabs along `--axis`.
    Velocity,
    /// Mean stress of the region at every output step (needs the `stress` format).
    Stress,
}

/// Arguments of `grains post`.
#[derive(Args, Debug, Clone)]
pub struct PostArgs {
    /// The analysis.
    #[arg(value_enum)]
    pub analysis: Analysis,
    /// The run's output folder.
    pub out: PathBuf,
    /// The output step to analyse (default: the last).
    #[arg(long)]
    pub step: Option<u64>,
    /// The axis of profiles and the vertical of the angle of repose: x, y or z.
    #[arg(long, default_value = "z")]
    pub axis: String,
    /// The horizontal axis the angle of repose is measured along: x, y or z.
    #[arg(long, default_value = "x")]
    pub along: String,
    /// Bins of profiles and distributions.
    #[arg(long, default_value_t = 20)]
    pub bins: usize,
    /// The region's lower corner, `x,y,z` (m; default: the particles' bounding box).
    #[arg(long, value_parser = vec3)]
    pub min: Option<[f64; 3]>,
    /// The region's upper corner, `x,y,z` (m).
    #[arg(long, value_parser = vec3)]
    pub max: Option<[f64; 3]>,
    /// Width of the angle of repose's columns (m; default three mean diameters).
    #[arg(long)]
    pub width: Option<f64>,
    /// A particle counts as discharged below this height along `--axis` (m), or once deleted.
    #[arg(long)]
    pub below: Option<f64>,
    /// The orifice's diameter, for Beverloo's coefficient (m).
    #[arg(long)]
    pub orifice: Option<f64>,
    /// The particles' density (kg/m^3), for the mass rate.
    #[arg(long)]
    pub density: Option<f64>,
    /// The bed's bulk density (kg/m^3), for Beverloo's coefficient.
    #[arg(long)]
    pub bulk_density: Option<f64>,
    /// Beverloo's `k` (the empty annulus, in diameters).
    #[arg(long, default_value_t = 1.5)]
    pub k: f64,
    /// Largest distance of the radial distribution (m; default five mean diameters).
    #[arg(long)]
    pub rmax: Option<f64>,
    /// The run's scene: `psd` then sets the sizes its `[[insert]]` blocks requested beside the
    /// realised ones.
    #[arg(long)]
    pub scene: Option<PathBuf>,
}

fn vec3(s: &str) -> Result<[f64; 3], String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| format!("`{x}` is not a number"))
        })
        .collect::<Result<_, _>>()?;
    match v.as_slice() {
        [a, b, c] if v.iter().all(|x| x.is_finite()) => Ok([*a, *b, *c]),
        _ => Err(format!("`{s}`: expected x,y,z (three finite numbers)")),
    }
}

fn axis_of(name: &str) -> Result<usize> {
    match name {
        "x" => Ok(0),
        "y" => Ok(1),
        "z" => Ok(2),
        _ => bail!("axis `{name}`: expected x, y or z"),
    }
}

/// One output step of `particles.csv`: each live particle's centre, velocity and radius (m,
/// m/s), and the ids of those deleted (negative radius).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub step: u64,
    pub time: f64,
    pub ids: Vec<u64>,
    pub pos: Vec<[f64; 3]>,
    pub vel: Vec<[f64; 3]>,
    pub radius: Vec<f64>,
    pub deleted: Vec<u64>,
    /// Each live particle's virial stress `sxx, syy, szz, sxy, sxz, syz` (Pa), where the run
    /// wrote the `stress` format; else empty.
    pub stress: Vec<[f64; 6]>,
}

/// The frames of a `particles.csv`, by step.
pub fn read_frames(path: &Path) -> Result<Vec<Frame>> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read {}: the run needs the csv format",
            path.display()
        )
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .with_context(|| format!("{}: no column `{name}`", path.display()))
    };
    let c = [
        col("step")?,
        col("time")?,
        col("id")?,
        col("x")?,
        col("y")?,
        col("z")?,
        col("vx")?,
        col("vy")?,
        col("vz")?,
        col("radius")?,
    ];
    let stress: Option<Vec<usize>> = ["sxx", "syy", "szz", "sxy", "sxz", "syz"]
        .iter()
        .map(|n| header.iter().position(|h| h == n))
        .collect();
    let mut frames: BTreeMap<u64, Frame> = BTreeMap::new();
    for (k, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |i: usize| -> Result<f64> {
            cells
                .get(c[i])
                .and_then(|s| s.parse().ok())
                .with_context(|| {
                    format!(
                        "{}:{}: expected a number in column {}",
                        path.display(),
                        k + 2,
                        c[i] + 1
                    )
                })
        };
        let step = num(0)? as u64;
        let f = frames.entry(step).or_insert_with(|| Frame {
            step,
            ..Frame::default()
        });
        f.time = num(1)?;
        let (id, r) = (num(2)? as u64, num(9)?);
        if r <= 0.0 {
            f.deleted.push(id);
            continue;
        }
        f.ids.push(id);
        f.pos.push([num(3)?, num(4)?, num(5)?]);
        f.vel.push([num(6)?, num(7)?, num(8)?]);
        f.radius.push(r);
        if let Some(cols) = &stress {
            let mut s = [0.0; 6];
            for (x, &col) in s.iter_mut().zip(cols) {
                *x = cells
                    .get(col)
                    .and_then(|v| v.parse().ok())
                    .with_context(|| {
                        format!(
                            "{}:{}: expected a number in column {}",
                            path.display(),
                            k + 2,
                            col + 1
                        )
                    })?;
            }
            f.stress.push(s);
        }
    }
    if frames.is_empty() {
        bail!("{}: no frames", path.display());
    }
    Ok(frames.into_values().collect())
}

/// Run the analysis; the file written.
pub fn post(args: &PostArgs) -> Result<PathBuf> {
    let (header, rows) = compute(args)?;
    let dir = args.out.join("post");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(format!("{}.csv", args.analysis.name()));
    let mut text = header;
    text.push('\n');
    for r in rows {
        text.push_str(&r);
        text.push('\n');
    }
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

impl Analysis {
    /// Its name, as on the command line.
    pub fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// An analysis's one figure for a summary (a sweep's line): the last coordination number or
/// angle of repose, the discharge rate (particles/s), the mean solid fraction, the median
/// diameter by mass, the distance of the radial distribution's highest peak, and the mean
/// speed along `--axis`'s profile's slabs' first component. `None` where the run gives none.
pub fn headline(args: &PostArgs) -> Result<Option<f64>> {
    let (_, rows) = compute(args)?;
    let cells: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            r.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    let col = |k: usize| {
        cells
            .iter()
            .filter_map(move |r| r.get(k).copied())
            .filter(|x| x.is_finite())
    };
    let mean = |k: usize| {
        let v: Vec<f64> = col(k).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    Ok(match args.analysis {
        Analysis::Coordination => col(4).next_back(),
        Analysis::Repose => col(2).next_back(),
        Analysis::Discharge => rows
            .iter()
            .find(|r| r.starts_with("rate,"))
            .and_then(|r| r.split(',').nth(3)?.parse().ok()),
        Analysis::Packing => mean(1),
        Analysis::Psd => cells.iter().find(|r| r[5] >= 0.5).map(|r| r[1]),
        Analysis::Rdf => cells
            .iter()
            .max_by(|a, b| a[1].total_cmp(&b[1]))
            .map(|r| r[0]),
        Analysis::Velocity => mean(2),
        Analysis::Stress => col(10).next_back(),
    })
}

/// The analysis's table: its header and rows.
fn compute(args: &PostArgs) -> Result<Table> {
    let frames = read_frames(&args.out.join(grains_io::PARTICLES_CSV))?;
    let frame = match args.step {
        Some(s) => frames
            .iter()
            .find(|f| f.step == s)
            .with_context(|| format!("no output step {s} in particles.csv"))?,
        None => frames.last().context("no frames")?,
    };
    let axis = axis_of(&args.axis)?;
    Ok(match args.analysis {
        Analysis::Coordination => coordination(args, &frames)?,
        Analysis::Discharge => discharge(args, &frames, axis)?,
        Analysis::Repose => repose(args, &frames, axis)?,
        Analysis::Packing => packing(args, frame, axis)?,
        Analysis::Psd => psd(args, frame)?,
        Analysis::Rdf => rdf(args, frame)?,
        Analysis::Velocity => velocity(args, frame, axis)?,
        Analysis::Stress => stress(args, &frames)?,
    })
}

impl PostArgs {
    /// `analysis` of `out` with every option at its default.
    pub fn of(analysis: Analysis, out: PathBuf) -> PostArgs {
        PostArgs {
            analysis,
            out,
            step: None,
            axis: "z".into(),
            along: "x".into(),
            bins: 20,
            min: None,
            max: None,
            width: None,
            below: None,
            orifice: None,
            density: None,
            bulk_density: None,
            k: 1.5,
            rmax: None,
            scene: None,
        }
    }
}

type Table = (String, Vec<String>);

/// The region: `--min`/`--max`, or the frame's spheres' bounding box.
fn region(args: &PostArgs, f: &Frame) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for (p, r) in f.pos.iter().zip(&f.radius) {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] - r);
            hi[k] = hi[k].max(p[k] + r);
        }
    }
    (args.min.unwrap_or(lo), args.max.unwrap_or(hi))
}

/// The mean stress of the region at every output step: the particles whose centres lie in it,
/// their solid fraction, `sum V_i sigma_i` over the region's volume (Pa, compression negative,
/// as `stress.csv`), and the pressure `-tr(sigma)/3`.
fn stress(args: &PostArgs, frames: &[Frame]) -> Result<Table> {
    let mut rows = Vec::new();
    for f in frames {
        if f.stress.len() != f.pos.len() {
            bail!(
                "{}: no stress columns: the run needs the stress format (`[output] formats` \
                 with \"stress\")",
                args.out.join(grains_io::PARTICLES_CSV).display()
            );
        }
        let (lo, hi) = region(args, f);
        let r = grains_core::stress::region_stress_of(&f.pos, &f.radius, &f.stress, lo, hi);
        let (n, mean) = (r.particles, r.stress);
        let fraction = if r.volume > 0.0 {
            r.solid_volume / r.volume
        } else {
            0.0
        };
        let cells: Vec<String> = mean.iter().map(|x| format!("{x:e}")).collect();
        rows.push(format!(
            "{},{:e},{n},{fraction:e},{},{:e}",
            f.step,
            f.time,
            cells.join(","),
            -(mean[0] + mean[1] + mean[2]) / 3.0
        ));
    }
    Ok((
        "step,time,particles,solid_fraction,sxx,syy,szz,sxy,sxz,syz,pressure".into(),
        rows,
    ))
}

fn mean_diameter(f: &Frame) -> f64 {
    2.0 * f.radius.iter().sum::<f64>() / f.radius.len().max(1) as f64
}

fn coordination(args: &PostArgs, frames: &[Frame]) -> Result<Table> {
    let path = args.out.join(grains_io::CONTACTS_CSV);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {}: the run needs the contacts format",
            path.display()
        )
    })?;
    let mut pairs: BTreeMap<u64, usize> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        // Particle pairs only: not walls (j < 0), not bonds.
        let (Some(step), Some(j), Some(bond)) = (c.first(), c.get(3), c.get(10)) else {
            continue;
        };
        if j.starts_with('-') || *bond != "0" {
            continue;
        }
        *pairs.entry(step.parse().unwrap_or(0)).or_default() += 1;
    }
    let rows = frames
        .iter()
        .map(|f| {
            let n = pairs.get(&f.step).copied().unwrap_or(0);
            let z = post::coordination(n, f.pos.len());
            format!("{},{},{},{n},{z}", f.step, f.time, f.pos.len())
        })
        .collect();
    Ok(("step,time,particles,contacts,coordination".into(), rows))
}

fn packing(args: &PostArgs, f: &Frame, axis: usize) -> Result<Table> {
    let (lo, hi) = region(args, f);
    let area: f64 = (0..3)
        .filter(|&k| k != axis)
        .map(|k| hi[k] - lo[k])
        .product();
    if area <= 0.0 || hi[axis] <= lo[axis] {
        bail!("the region {lo:?} to {hi:?} is empty");
    }
    let spheres: Vec<([f64; 3], f64)> = f
        .pos
        .iter()
        .copied()
        .zip(f.radius.iter().copied())
        .collect();
    let profile = post::packing_profile(&spheres, axis, (lo[axis], hi[axis]), args.bins, area);
    let rows = profile
        .iter()
        .map(|(x, phi)| format!("{x},{phi}"))
        .collect();
    Ok((format!("{},solid_fraction", args.axis), rows))
}

/// The frame's size distribution; with `--scene`, beside the one its `[[insert]]` blocks
/// requested (every radius they drew, inserted or not), on the same bins.
fn psd(args: &PostArgs, f: &Frame) -> Result<Table> {
    let requested = match &args.scene {
        Some(path) => {
            let scene = grains_scene::load_scene(path)?;
            let r: Vec<f64> = scene
                .world
                .insertions
                .iter()
                .flat_map(|ins| ins.radii.iter().map(|&r| r as f64))
                .collect();
            if r.is_empty() {
                bail!("{}: no [[insert]] block requests sizes", path.display());
            }
            Some(r)
        }
        None => None,
    };
    let range = post::diameter_range(requested.as_deref().unwrap_or(&f.radius));
    let realised = post::size_distribution_in(&f.radius, args.bins, range);
    let wanted = requested.map(|r| post::size_distribution_in(&r, args.bins, range));
    let mut header = "d_lo,d_hi,number,mass,cumulative_number,cumulative_mass".to_string();
    if wanted.is_some() {
        header.push_str(",requested_number,requested_mass");
    }
    let rows = realised
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let mut row = format!(
                "{},{},{},{},{},{}",
                b.lo, b.hi, b.number, b.mass, b.cumulative_number, b.cumulative_mass
            );
            if let Some(w) = &wanted {
                row.push_str(&format!(",{},{}", w[k].number, w[k].mass));
            }
            row
        })
        .collect();
    Ok((header, rows))
}

fn repose(args: &PostArgs, frames: &[Frame], up: usize) -> Result<Table> {
    let along = axis_of(&args.along)?;
    let mut rows = Vec::new();
    for f in frames {
        let (lo, hi) = region(args, f);
        let width = args.width.unwrap_or(3.0 * mean_diameter(f));
        let angle = post::angle_of_repose(&f.pos, (along, up), width, (lo[along], hi[along]));
        let a = angle.map_or(String::new(), |a| a.to_string());
        rows.push(format!("{},{},{a}", f.step, f.time));
    }
    Ok(("step,time,angle_deg".into(), rows))
}

/// The particles discharged by each frame, `(time, count)`, and how many took part: those seen
/// in the run (inserted ones once they are) that are deleted, or below `below` along `axis`.
pub fn discharged(frames: &[Frame], axis: usize, below: f64) -> (Vec<(f64, u64)>, u64) {
    let mut seen = std::collections::HashSet::new();
    let mut counts = Vec::new();
    for f in frames {
        seen.extend(f.ids.iter().copied());
        let gone = f.deleted.iter().filter(|id| seen.contains(id)).count();
        let low = f.pos.iter().filter(|p| p[axis] < below).count();
        counts.push((f.time, (gone + low) as u64));
    }
    (counts, seen.len() as u64)
}

fn discharge(args: &PostArgs, frames: &[Frame], axis: usize) -> Result<Table> {
    let below = args.below.unwrap_or(f64::NEG_INFINITY);
    let (counts, total) = discharged(frames, axis, below);
    let mut rows: Vec<String> = frames
        .iter()
        .zip(&counts)
        .map(|(f, c)| format!("{},{},{},,,,", f.step, f.time, c.1))
        .collect();
    // The rate's line: particles/s, then kg/s and Beverloo's C where their inputs are given.
    if let Some((rate, first, second)) = post::discharge_rate(&counts, total) {
        // The particles' size where they are still there.
        let f = frames
            .iter()
            .find(|f| !f.radius.is_empty())
            .context("no particles")?;
        let d = mean_diameter(f);
        let mass = args
            .density
            .map(|rho| rho * std::f64::consts::PI / 6.0 * d * d * d);
        let w = mass.map(|m| m * rate);
        let c = match (w, args.bulk_density, args.orifice) {
            (Some(w), Some(rho_b), Some(d_o)) => {
                Some(post::beverloo_coefficient(w, rho_b, 9.81, d_o, d, args.k))
            }
            _ => None,
        };
        let opt = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
        rows.push(
            format!("rate,,{total},{rate},{first},{second},{}", opt(w)) + &format!(",{}", opt(c)),
        );
    }
    Ok((
        "step,time,discharged,rate,rate_first_half,rate_second_half,mass_rate,beverloo_c".into(),
        rows,
    ))
}

fn rdf(args: &PostArgs, f: &Frame) -> Result<Table> {
    let (lo, hi) = region(args, f);
    let volume: f64 = (0..3).map(|k| hi[k] - lo[k]).product();
    if volume <= 0.0 {
        bail!("the region {lo:?} to {hi:?} is empty");
    }
    let rmax = args.rmax.unwrap_or(5.0 * mean_diameter(f));
    let inside: Vec<[f64; 3]> = f
        .pos
        .iter()
        .filter(|p| (0..3).all(|k| p[k] >= lo[k] && p[k] <= hi[k]))
        .copied()
        .collect();
    let rows = post::radial_distribution(&inside, rmax, args.bins, volume)
        .iter()
        .map(|(r, g)| format!("{r},{g}"))
        .collect();
    Ok(("r,g".into(), rows))
}

fn velocity(args: &PostArgs, f: &Frame, axis: usize) -> Result<Table> {
    let (lo, hi) = region(args, f);
    let rows = post::velocity_profile(&f.pos, &f.vel, axis, (lo[axis], hi[axis]), args.bins)
        .iter()
        .map(|(x, n, v)| format!("{x},{n},{},{},{}", v[0], v[1], v[2]))
        .collect();
    Ok((format!("{},count,vx,vy,vz", args.axis), rows))
}
