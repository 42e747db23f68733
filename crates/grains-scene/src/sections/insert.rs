//! The `[[insert]]` blocks: particles poured into a region at a rate
//! ([`grains_core::insert`]). Each block's particles join the world dormant, after the
//! `[[particles]]` blocks, with radii drawn once from its size distribution.
//!
//! ```toml
//! [[insert]]
//! material = "glass"
//! box = { min = [-0.02, -0.02, 0.08], max = [0.02, 0.02, 0.1] }   # or cylinder = { ... }
//! count = 2000                  # particles in all
//! rate = 4000.0                 # particles/s, or mass_rate = 0.1 (kg/s)
//! start = 0.0                   # s
//! radius = 0.001                # or radii = { distribution = "normal", mean, std }, ...
//! velocity = [0.0, 0.0, -0.5]   # m/s
//! seed = 1
//! every = 0.005                 # s between batches, default the time 20 particles take
//! ```
//!
//! A block with `scripted = true` (and no `rate`, `mass_rate`, `start` or `every`) is a pool of
//! dormant particles that a script inserts (the Python package's `Simulation.insert`), in its
//! region or where the script says.

use grains_core::insert::{Insertion, Region};
use grains_core::material::Material;
use grains_core::parity::SplitMix;
use grains_core::{Domain, Particles};

use crate::error::SceneError;
use crate::messages::MaxByStart;
use crate::walk::{Ctx, Table, Value};

/// A block as parsed, before the time step is known.
pub(crate) struct InsertBlock {
    pub insertion: Insertion,
    /// Seconds between batches.
    pub every: f64,
}

/// Largest particle count of one block.
const MAX_COUNT: u64 = 100_000_000;

/// Parse every `[[insert]]` block, appending its dormant particles to `particles`.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    domain: &Domain,
    particles: &mut Particles,
) -> Result<Vec<InsertBlock>, SceneError> {
    let mut out = Vec::new();
    let Some(v) = root.get("insert") else {
        return Ok(out);
    };
    for b in ctx.tables(v, "insert")? {
        b.deny_unknown(&[
            "material",
            "box",
            "cylinder",
            "count",
            "rate",
            "mass_rate",
            "start",
            "radius",
            "radii",
            "velocity",
            "seed",
            "every",
            "scripted",
        ])?;
        let mv = b.req("material", "a material name")?;
        let mi = crate::sections::material::material_of(ctx, materials, mv, &b.key("material"))?;
        let mat = &materials[mi];
        let region = region_of(ctx, &b)?;
        region_within(ctx, &b, &region, domain)?;
        let cv = b.req(
            "count",
            "the number of particles to insert, a positive integer",
        )?;
        let count = ctx.integer(cv, &b.key("count"), 1)?;
        if count > MAX_COUNT {
            return Err(ctx.err(
                &cv.span(),
                &b.key("count"),
                format!("expected at most {MAX_COUNT} particles, found {count}"),
            ));
        }
        ctx.check_memory(particles.len() as u64 + count, &cv.span(), &b.key("count"))?;
        let seed = b
            .get("seed")
            .map(|v| ctx.integer(v, &b.key("seed"), 0))
            .transpose()?
            .unwrap_or(0);
        let radii = radii_of(ctx, &b, count as usize, seed)?;
        let largest = radii.iter().copied().fold(0.0f32, f32::max) as f64;
        let k = if b.get("radii").is_some() {
            "radii"
        } else {
            "radius"
        };
        let span = b.get(k).map(|v| v.span()).unwrap_or(b.span.clone());
        crate::checks::radius_fits_domain(ctx, domain, largest, &span, &b.key(k))?;
        particle_fits_region(ctx, &b, &region, largest)?;
        let mass = |r: f32| mat.density * 4.0 / 3.0 * std::f64::consts::PI * (r as f64).powi(3);
        let mean_mass = radii.iter().map(|&r| mass(r)).sum::<f64>() / radii.len() as f64;
        let scripted = match b.get("scripted") {
            Some(v) => ctx.boolean(v, &b.key("scripted"))?,
            None => false,
        };
        if scripted {
            let timed = ["rate", "mass_rate", "start", "every"];
            if let Some(k) = timed.into_iter().find(|k| b.get(k).is_some()) {
                return Err(ctx.err(
                    &b.key_span(k),
                    &b.key(k),
                    "a scripted block inserts when its script says, on no schedule: give \
                     `scripted = true` or a schedule (`rate` or `mass_rate`, `start`, \
                     `every`), not both",
                ));
            }
        }
        let rate = match (b.get("rate"), b.get("mass_rate")) {
            _ if scripted => 1.0,
            (Some(_), Some(_)) => {
                return Err(ctx.err(&b.key_span("mass_rate").max_by_start(b.key_span("rate")), &b.key("mass_rate"), "give either `rate` (particles/s) or `mass_rate` (kg/s), not both"))
            }
            (Some(r), None) => ctx.positive(r, &b.key("rate"), "particles/s")?,
            (None, Some(m)) => ctx.positive(m, &b.key("mass_rate"), "kg/s")? / mean_mass,
            (None, None) => {
                return Err(ctx.err(&b.span, &b.key("rate"), "missing the insertion rate: expected `rate = ...` (particles/s) or `mass_rate = ...` (kg/s)"))
            }
        };
        let start = b
            .get("start")
            .map(|v| ctx.non_negative(v, &b.key("start"), "s"))
            .transpose()?
            .unwrap_or(0.0);
        let velocity = b
            .get("velocity")
            .map(|v| ctx.vec3(v, &b.key("velocity"), "m/s"))
            .transpose()?
            .unwrap_or([0.0; 3]);
        let every = match b.get("every") {
            Some(v) => ctx.positive(v, &b.key("every"), "s")?,
            // A scripted block's particles are never due: it asks for no batches.
            None if scripted => f64::INFINITY,
            None => 20.0 / rate,
        };
        let first = particles.len() as u32;
        let far = grains_core::insert::dormant_position(domain.min, domain.max);
        for &r in &radii {
            particles.push_dormant(far, r as f64, mi as u32, mat.density);
        }
        out.push(InsertBlock {
            insertion: Insertion {
                first,
                radii,
                start,
                rate,
                region,
                velocity,
                seed,
                scripted,
            },
            every,
        });
    }
    Ok(out)
}

fn region_of(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<Region, SceneError> {
    match (b.get("box"), b.get("cylinder")) {
        (Some(_), Some(_)) => Err(ctx.err(&b.key_span("cylinder").max_by_start(b.key_span("box")), &b.key("cylinder"), "give either `box` or `cylinder` as the region, not both")),
        (None, None) => Err(ctx.err(&b.span, &b.key("box"), "missing the region: expected `box = { min, max }` or `cylinder = { center, axis, radius, height }`")),
        (Some(v), None) => {
            let t = ctx.table(v, &b.key("box"), "a table { min = [x, y, z], max = [x, y, z] }")?;
            t.deny_unknown(&["min", "max"])?;
            let min = ctx.vec3(t.req("min", "[x, y, z] (m)")?, &t.key("min"), "m")?;
            let hv = t.req("max", "[x, y, z] (m)")?;
            let max = ctx.vec3(hv, &t.key("max"), "m")?;
            if (0..3).any(|k| max[k] <= min[k]) {
                return Err(ctx.err(&hv.span(), &t.key("max"), "expected max above min on every axis"));
            }
            Ok(Region::Box { min, max })
        }
        (None, Some(v)) => {
            let t = ctx.table(v, &b.key("cylinder"), "a table { center, axis, radius, height }")?;
            t.deny_unknown(&["center", "axis", "radius", "height"])?;
            let center = ctx.vec3(t.req("center", "the base centre [x, y, z] (m)")?, &t.key("center"), "m")?;
            let av = t.req("axis", "[x, y, z]")?;
            let a = ctx.vec3(av, &t.key("axis"), "unit vector")?;
            let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            if !(l.is_finite() && l > 1e-12) {
                return Err(ctx.err(&av.span(), &t.key("axis"), "expected a non-zero axis"));
            }
            let radius = ctx.positive(t.req("radius", "a positive number (m)")?, &t.key("radius"), "m")?;
            let height = ctx.positive(t.req("height", "a positive number (m)")?, &t.key("height"), "m")?;
            Ok(Region::Cylinder { center, axis: a.map(|x| x / l), radius, height })
        }
    }
}

/// Refuse a region that reaches outside the domain: a particle is placed at a random point of
/// the region, and one whose centre lies outside the domain is never placed, so such a block
/// would insert fewer particles than it says, or none, without a word. Names the region's key
/// and the side it crosses.
fn region_within(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    region: &Region,
    domain: &Domain,
) -> Result<(), SceneError> {
    // The region's axis-aligned extent.
    let (lo, hi, key) = match *region {
        Region::Box { min, max } => (min, max, "box"),
        Region::Cylinder {
            center,
            axis,
            radius,
            height,
        } => {
            let top = [0, 1, 2].map(|k| center[k] + height * axis[k]);
            // The rim's reach along axis k: radius times the sine of the axis's angle to it.
            let rim = [0, 1, 2].map(|k| radius * (1.0 - axis[k] * axis[k]).max(0.0).sqrt());
            (
                [0, 1, 2].map(|k| center[k].min(top[k]) - rim[k]),
                [0, 1, 2].map(|k| center[k].max(top[k]) + rim[k]),
                "cylinder",
            )
        }
    };
    let span = b.key_span(key);
    for k in 0..3 {
        // Rounding of a tilted cylinder's extent is not a crossing.
        let slack = 1e-9 * (domain.max[k] - domain.min[k]);
        let axis = ["x", "y", "z"][k];
        let side = if lo[k] < domain.min[k] - slack {
            Some(("min", lo[k], domain.min[k], "below"))
        } else if hi[k] > domain.max[k] + slack {
            Some(("max", hi[k], domain.max[k], "above"))
        } else {
            None
        };
        if let Some((bound, reach, limit, dir)) = side {
            return Err(ctx.err(
                &span,
                &b.key(key),
                format!(
                    "the region reaches {axis} = {}, {dir} the domain's {bound} {axis} = {}: \
                     particles are placed only inside the domain, so it would insert fewer \
                     than `count`; expected a region within the domain on every side",
                    grains_core::units::qty(reach, "m"),
                    grains_core::units::qty(limit, "m"),
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse a region too small for the block's largest particle (`radius`, m): a box narrower
/// than its diameter on some axis, a cylinder whose diameter or height is. No such particle
/// could be placed inside it, so the block would insert nothing.
fn particle_fits_region(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    region: &Region,
    radius: f64,
) -> Result<(), SceneError> {
    let (key, narrowest, what) = match *region {
        Region::Box { min, max } => {
            let (w, k) = (0..3)
                .map(|k| (max[k] - min[k], k))
                .fold((f64::INFINITY, 0), |a, c| if c.0 < a.0 { c } else { a });
            ("box", w, format!("along {}", ["x", "y", "z"][k]))
        }
        Region::Cylinder {
            radius: r, height, ..
        } if 2.0 * r <= height => ("cylinder", 2.0 * r, "its diameter".to_string()),
        Region::Cylinder { height, .. } => ("cylinder", height, "its height".to_string()),
    };
    if 2.0 * radius <= narrowest {
        return Ok(());
    }
    // A region smaller than a particle by a factor of ten or more is a unit slip, not a tight
    // fit.
    let hint = if 2.0 * radius >= 10.0 * narrowest {
        ": were the radii given in mm? (SI units: m)"
    } else {
        ""
    };
    Err(ctx.err(
        &b.key_span(key),
        &b.key(key),
        format!(
            "a particle of radius {} cannot fit in the region, which is {} across ({what}), so \
             the block would insert nothing{hint}; expected a region at least one diameter ({}) \
             across on every side",
            grains_core::units::qty(radius, "m"),
            grains_core::units::qty(narrowest, "m"),
            grains_core::units::qty(2.0 * radius, "m"),
        ),
    ))
}

/// The radii of a block's `count` particles.
fn radii_of(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    count: usize,
    seed: u64,
) -> Result<Vec<f32>, SceneError> {
    let mut rng = SplitMix(seed ^ 0x5EED_1A5E);
    match (b.get("radius"), b.get("radii")) {
        (Some(_), Some(_)) => Err(ctx.err(&b.key_span("radii").max_by_start(b.key_span("radius")), &b.key("radii"), "give either `radius` or `radii`, not both")),
        (None, None) => Err(ctx.err(&b.span, &b.key("radius"), "missing the particle size: expected `radius = ...` (m) or `radii = { distribution = ..., ... }` or `radii = { table = [[r, mass fraction], ...] }`")),
        (Some(v), None) => Ok(vec![ctx.positive(v, &b.key("radius"), "m")? as f32; count]),
        (None, Some(v)) => {
            let t = ctx.table(v, &b.key("radii"), "a table { distribution = ..., ... } or { table = [[r, mass fraction], ...] }")?;
            if let Some(tv) = t.get("table") {
                t.deny_unknown(&["table"])?;
                return table_radii(ctx, &t, tv, count, &mut rng);
            }
            t.deny_unknown(&["distribution", "mean", "std", "min", "max"])?;
            let dv = t.req("distribution", "\"normal\", \"lognormal\" or \"uniform\"")?;
            let kind = ctx.string(dv, &t.key("distribution"), "\"normal\", \"lognormal\" or \"uniform\"")?;
            let get = |k: &str| t.get(k).map(|v| ctx.positive(v, &t.key(k), "m")).transpose();
            let (min, max) = (get("min")?, get("max")?);
            if let (Some(a), Some(z)) = (min, max) {
                if z <= a {
                    return Err(ctx.err(&t.key_span("max"), &t.key("max"), "expected max above min"));
                }
            }
            let sample: Box<dyn FnMut(&mut SplitMix) -> f64> = match kind {
                "uniform" => {
                    let (Some(a), Some(z)) = (min, max) else {
                        return Err(ctx.err(&t.span, &t.key("min"), "a uniform distribution needs `min` and `max` (m)"));
                    };
                    Box::new(move |r: &mut SplitMix| a + (z - a) * r.uniform())
                }
                "normal" | "lognormal" => {
                    let mean = get("mean")?.ok_or_else(|| ctx.err(&t.span, &t.key("mean"), "missing `mean` (m)"))?;
                    let std = t.get("std").map(|v| ctx.non_negative(v, &t.key("std"), "m")).transpose()?.ok_or_else(|| ctx.err(&t.span, &t.key("std"), "missing `std` (m)"))?;
                    let normal = |r: &mut SplitMix| {
                        let (u1, u2) = (r.uniform().max(1e-300), r.uniform());
                        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
                    };
                    if kind == "normal" {
                        Box::new(move |r: &mut SplitMix| mean + std * normal(r))
                    } else {
                        // The radius's own mean and spread: sigma^2 = ln(1 + std^2/mean^2).
                        let s2 = (1.0 + (std / mean).powi(2)).ln();
                        let mu = mean.ln() - 0.5 * s2;
                        Box::new(move |r: &mut SplitMix| (mu + s2.sqrt() * normal(r)).exp())
                    }
                }
                other => {
                    return Err(ctx.err(&dv.span(), &t.key("distribution"), format!("expected \"normal\", \"lognormal\" or \"uniform\", found \"{other}\"")))
                }
            };
            let mut sample = sample;
            let (lo, hi) = (min.unwrap_or(0.0), max.unwrap_or(f64::INFINITY));
            let mut radii = Vec::with_capacity(count);
            let mut tries = 0u64;
            while radii.len() < count {
                tries += 1;
                if tries > 1000 * count as u64 + 1000 {
                    return Err(ctx.err(&t.span, &b.key("radii"), "the distribution gives almost no radius within [min, max]; widen the bounds"));
                }
                let r = sample(&mut rng);
                if r > 0.0 && r >= lo && r <= hi && (r as f32) > 0.0 {
                    radii.push(r as f32);
                }
            }
            Ok(radii)
        }
    }
}

/// How far a size table's mass fractions may add from 1: decimal fractions such as thirds
/// written to seven places still pass.
const FRACTION_SUM_TOLERANCE: f64 = 1e-6;

/// Radii from a table of sizes and mass fractions: by number, each size's share is its mass
/// fraction over its particle mass (`r^3`).
fn table_radii(
    ctx: &Ctx<'_>,
    t: &Table<'_, '_>,
    tv: &Value<'_>,
    count: usize,
    rng: &mut SplitMix,
) -> Result<Vec<f32>, SceneError> {
    let what = "an array of [radius (m), mass fraction] pairs";
    let rows = ctx.array(tv, &t.key("table"), what)?;
    if rows.is_empty() {
        return Err(ctx.err(
            &tv.span(),
            &t.key("table"),
            format!("expected {what}, found an empty array"),
        ));
    }
    let mut sizes = Vec::new();
    let mut fractions = 0.0;
    for (k, row) in rows.iter().enumerate() {
        let key = format!("{}[{k}]", t.key("table"));
        let two = ctx.array(row, &key, "[radius (m), mass fraction]")?;
        if two.len() != 2 {
            return Err(ctx.err(
                &row.span(),
                &key,
                format!(
                    "expected [radius (m), mass fraction], found {} element(s)",
                    two.len()
                ),
            ));
        }
        let r = ctx.positive(&two[0], &format!("{key}[0]"), "m")?;
        let f = ctx.positive(&two[1], &format!("{key}[1]"), "a mass fraction")?;
        sizes.push((r, f / r.powi(3)));
        fractions += f;
    }
    // Fractions that do not add to 1 are a typo or a missing row, not a wish to be normalised.
    if (fractions - 1.0).abs() > FRACTION_SUM_TOLERANCE {
        // Nine decimals: past the tolerance, short of the rounding of the sum.
        let nine = format!("{fractions:.9}");
        let sum = nine.trim_end_matches('0').trim_end_matches('.');
        return Err(ctx.err(
            &tv.span(),
            &t.key("table"),
            format!(
                "the mass fractions add to {sum}; they must add to 1 (within \
                 {FRACTION_SUM_TOLERANCE:e}): each size's share of the mass"
            ),
        ));
    }
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let mut radii = Vec::with_capacity(count);
    for _ in 0..count {
        let mut u = rng.uniform() * total;
        let mut pick = sizes[sizes.len() - 1].0;
        for &(r, w) in &sizes {
            if u < w {
                pick = r;
                break;
            }
            u -= w;
        }
        radii.push(pick as f32);
    }
    Ok(radii)
}
