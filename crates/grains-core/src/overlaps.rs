//! Overlaps of an initial state: a scene whose particles start deeply interpenetrated is shot
//! apart by its springs on the first step, so `grains check` reports the overlaps and
//! `grains run` refuses them above a threshold.

use crate::world::{Domain, World};

/// What a particle overlaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Other {
    /// Another particle (its index).
    Particle(u32),
    /// A plane wall (its index in [`World::walls`]).
    Wall(u32),
}

/// The deepest overlap of a state, relative to the smaller radius of the two bodies (a wall's
/// radius is infinite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// The particle.
    pub i: u32,
    /// What it overlaps.
    pub other: Other,
    /// Overlap depth (m).
    pub depth: f64,
    /// `depth` / the smaller radius.
    pub relative: f64,
}

/// The overlaps of a state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OverlapReport {
    /// Overlapping particle pairs (each pair once).
    pub pairs: u64,
    /// Particles overlapping a wall (each particle-wall pair once).
    pub wall_contacts: u64,
    /// The deepest overlap, relative to the smaller radius, if any.
    pub worst: Option<Overlap>,
}

/// Pairs of particles whose surfaces are closer than `gap` (m), each once as `(i, j, depth)`
/// with `i < j` and `depth = r_i + r_j - distance` (> -gap), found through a grid of cells
/// one largest diameter plus `gap` wide, by minimum image on periodic axes. In `i` order, then
/// by cell. O(N) for packings of similar sizes.
pub fn pairs_within(pos: &[[f32; 4]], domain: &Domain, gap: f64) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for_each_pair_within(pos, domain, gap, |i, j, depth| out.push((i, j, depth)));
    out
}

/// [`pairs_within`] handed to `visit` one pair at a time, in the same order, without holding
/// them all.
pub fn for_each_pair_within(
    pos: &[[f32; 4]],
    domain: &Domain,
    gap: f64,
    mut visit: impl FnMut(u32, u32, f64),
) {
    if let Some(grid) = Grid::new(pos, domain, gap) {
        for i in 0..pos.len() {
            grid.visit_from(i, &mut visit);
        }
    }
}

/// [`for_each_pair_within`] over all cores: each thread folds the pairs of a run of particles
/// `i`, taken in the grid's order (neighbours in memory), into an `A` from `init`, each `i`'s
/// pairs in their sequential order, and `merge` joins the runs' results. The result must not
/// depend on the order of the particles: a count, or a maximum whose ties go to the smaller `i`
/// (which is what one sequential sweep keeps).
pub fn fold_pairs_within<A: Send>(
    pos: &[[f32; 4]],
    domain: &Domain,
    gap: f64,
    init: impl Fn() -> A + Sync + Send,
    visit: impl Fn(&mut A, u32, u32, f64) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> A {
    use rayon::prelude::*;
    let Some(grid) = Grid::new(pos, domain, gap) else {
        return init();
    };
    // Particles in bucket order: consecutive ones share their neighbour cells, which a sweep
    // in index order fetches from anywhere in the table (an eighth of the time of a start-up
    // search over ten million spheres went to those misses, `perf annotate`).
    grid.order
        .par_iter()
        .with_min_len(4096)
        .fold(&init, |mut acc, &i| {
            grid.visit_from(i as usize, &mut |i, j, depth| visit(&mut acc, i, j, depth));
            acc
        })
        .reduce(&init, merge)
}

/// Cells per axis at most: larger cells only add candidates, and the cell ids stay in a u64.
const MAX_CELLS_PER_AXIS: i64 = 1 << 20;

/// A grid of cubic cells at least one largest diameter plus the gap wide, its particles sorted
/// by a hash of their cell into a table of about one bucket per particle (a counting sort, so
/// each bucket holds its members in ascending index). Two cells sharing a bucket are told
/// apart by the cell id kept per particle. It replaced a hash map of cells, whose lookups
/// took 44 % of a 2-million-sphere run's wall time before its first step (`perf`, 2 steps).
struct Grid<'a> {
    pos: &'a [[f32; 4]],
    domain: &'a Domain,
    gap: f64,
    /// Cell widths (m): one largest diameter plus the gap, wider only past
    /// [`MAX_CELLS_PER_AXIS`].
    width: [f64; 3],
    dims: [i64; 3],
    /// The table has `1 << bits` buckets.
    bits: u32,
    /// A periodic axis has fewer than 3 cells: a particle's 27 neighbour cells repeat.
    repeats: bool,
    /// `start[b]..start[b + 1]` indexes `order`, `sorted_pos` and `sorted_id` for bucket `b`.
    start: Vec<u32>,
    order: Vec<u32>,
    /// The positions and cell ids in bucket order: a bucket's candidates are read
    /// contiguously, not gathered from the particles' order.
    sorted_pos: Vec<[f32; 4]>,
    sorted_id: Vec<u64>,
}

impl<'a> Grid<'a> {
    fn new(pos: &'a [[f32; 4]], domain: &'a Domain, gap: f64) -> Option<Grid<'a>> {
        let rmax = pos.iter().map(|p| p[3] as f64).fold(0.0, f64::max);
        if rmax <= 0.0 && gap <= 0.0 {
            return None;
        }
        let d = domain;
        let cell = 2.0 * rmax + gap.max(0.0);
        let width = [0, 1, 2].map(|k| cell.max((d.max[k] - d.min[k]) / MAX_CELLS_PER_AXIS as f64));
        let dims = [0, 1, 2].map(|k| (((d.max[k] - d.min[k]) / width[k]).floor() as i64).max(1));
        // Removed and dormant particles (`REMOVED_RADIUS`) touch nothing and stay out of the
        // grid: a pool of them at one far point would make one cell of every pair of them.
        let live: Vec<u32> = (0..pos.len() as u32)
            .filter(|&i| pos[i as usize][3] >= 0.0)
            .collect();
        let buckets = live.len().next_power_of_two().max(1);
        let mut g = Grid {
            pos,
            domain,
            gap,
            width,
            dims,
            bits: buckets.trailing_zeros(),
            repeats: (0..3).any(|k| d.periodic[k] && dims[k] < 3),
            start: Vec::new(),
            order: Vec::new(),
            sorted_pos: Vec::new(),
            sorted_id: Vec::new(),
        };
        let cells: Vec<[i64; 3]> = live.iter().map(|&i| g.key(&pos[i as usize])).collect();
        let mut count = vec![0u32; buckets];
        for &c in &cells {
            count[g.bucket(c)] += 1;
        }
        let mut start = vec![0u32; buckets + 1];
        crate::kernels::passes::prefix_sum::prefix_sum(&count, &mut start);
        drop(count);
        let mut next = start.clone();
        let mut order = vec![0u32; live.len()];
        let mut ids = vec![0u64; live.len()];
        for (k, &c) in cells.iter().enumerate() {
            let b = g.bucket(c);
            order[next[b] as usize] = live[k];
            ids[next[b] as usize] = g.id_of(c);
            next[b] += 1;
        }
        g.sorted_pos = order.iter().map(|&i| pos[i as usize]).collect();
        g.sorted_id = ids;
        g.order = order;
        g.start = start;
        Some(g)
    }

    fn key(&self, p: &[f32; 4]) -> [i64; 3] {
        let d = self.domain;
        [0, 1, 2].map(|k| {
            let x = (p[k] as f64 - d.min[k]) / self.width[k];
            (x.floor() as i64).clamp(0, self.dims[k] - 1)
        })
    }

    /// The cell's column (x, y), numbered row by row.
    fn column(&self, c: [i64; 3]) -> i64 {
        c[0] * self.dims[1] + c[1]
    }

    fn id_of(&self, c: [i64; 3]) -> u64 {
        (self.column(c) * self.dims[2] + c[2]) as u64
    }

    fn bucket(&self, c: [i64; 3]) -> usize {
        // The column (x, y) by Fibonacci hashing into the table's power of two, then z on from
        // there: the three cells of a column that a particle's neighbours span are three
        // consecutive buckets, read from one stretch of memory.
        if self.bits == 0 {
            return 0;
        }
        let column =
            (self.column(c) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits);
        ((column + c[2] as u64) & ((1u64 << self.bits) - 1)) as usize
    }

    /// The pairs `(i, j)` with `j > i`, cell by cell (the 27 around `i`'s, deduplicated where a
    /// periodic axis has fewer than 3 cells), `j` ascending within a cell.
    fn visit_from(&self, i: usize, visit: &mut impl FnMut(u32, u32, f64)) {
        let (d, pos) = (self.domain, self.pos);
        let len = [0, 1, 2].map(|k| d.max[k] - d.min[k]);
        let a = &pos[i];
        let c = self.key(a);
        let mut seen = [0u64; 27];
        let mut n_seen = 0;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let mut n = [c[0] + dx, c[1] + dy, c[2] + dz];
                    let mut inside = true;
                    for (k, nk) in n.iter_mut().enumerate() {
                        if d.periodic[k] {
                            *nk = nk.rem_euclid(self.dims[k]);
                        } else if *nk < 0 || *nk >= self.dims[k] {
                            inside = false;
                        }
                    }
                    if !inside {
                        continue;
                    }
                    let id = self.id_of(n);
                    if self.repeats {
                        if seen[..n_seen].contains(&id) {
                            continue;
                        }
                        seen[n_seen] = id;
                        n_seen += 1;
                    }
                    let b = self.bucket(n);
                    for k in self.start[b] as usize..self.start[b + 1] as usize {
                        let j = self.order[k];
                        if self.sorted_id[k] != id || j as usize <= i {
                            continue;
                        }
                        let b = &self.sorted_pos[k];
                        let mut r2 = 0.0;
                        for k in 0..3 {
                            let mut x = b[k] as f64 - a[k] as f64;
                            if d.periodic[k] {
                                x -= len[k] * (x / len[k]).round();
                            }
                            r2 += x * x;
                        }
                        let depth = a[3] as f64 + b[3] as f64 - r2.sqrt();
                        if depth > -self.gap {
                            visit(i as u32, j, depth);
                        }
                    }
                }
            }
        }
    }
}

/// The neighbour list a run starts from, counted without building it: what `grains check`
/// sets beside its dense-pack estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListCount {
    /// Entries: each particle pair from both sides, each particle-wall pair once.
    pub entries: usize,
    /// Records: each pair once, walls' included.
    pub records: usize,
}

/// The list of the world's initial positions: pairs of bounding spheres whose surfaces are
/// within the skin plus the longest reach of a found pair's chain, and particles as near a
/// wall. Pairs of the same clump and of two mesh triangles are left out as the broad phase
/// leaves them out; other shapes count by their bounding spheres, so the count can only be
/// high for them.
pub fn initial_list(world: &World) -> ListCount {
    use crate::kernels::sources::SourceKind;
    let t = &world.table;
    let reach = t
        .chain_range
        .iter()
        .zip(&t.chains)
        .filter(|(_, c)| c.source != SourceKind::Fixed)
        .map(|(&r, _)| r as f64)
        .fold(0.0, f64::max);
    let gap = world.skin + reach;
    let p = &world.particles;
    let shapes = p.shape_table();
    let kind = |i: usize| {
        p.shape_of(i)
            .shape_kind()
            .unwrap_or(crate::shapes::ShapeKind::Sphere)
    };
    let body = |i: u32| crate::kernels::passes::pair_count::body_of(i as usize, &p.shape, &shapes);
    let pairs = fold_pairs_within(
        &p.pos,
        &world.domain,
        gap,
        || 0usize,
        |pairs, i, j, _| {
            let same_clump = body(i) != u32::MAX && body(i) == body(j);
            let triangles = kind(i as usize) == crate::shapes::ShapeKind::Triangle
                && kind(j as usize) == crate::shapes::ShapeKind::Triangle;
            if !same_clump && !triangles {
                *pairs += 1;
            }
        },
        |a, b| a + b,
    );
    let mut walls = 0usize;
    for (i, a) in p.pos.iter().enumerate() {
        if kind(i) == crate::shapes::ShapeKind::Triangle {
            continue;
        }
        for wall in &world.walls {
            if crate::kernels::walls::wall_contact(*a, wall).1 as f64 > -gap {
                walls += 1;
            }
        }
    }
    ListCount {
        entries: 2 * pairs + walls,
        records: pairs + walls,
    }
}

/// Every overlap of the world's initial positions: particle pairs ([`pairs_within`] a gap of
/// 0) and particles against plane walls.
pub fn initial_overlaps(world: &World) -> OverlapReport {
    let pos = &world.particles.pos;
    // The deepest; of equal ones, the first of a sweep in particle order.
    let consider = |o: Overlap, report: &mut OverlapReport| {
        if report
            .worst
            .is_none_or(|w| o.relative > w.relative || (o.relative == w.relative && o.i < w.i))
        {
            report.worst = Some(o);
        }
    };
    // Shapes beyond the sphere: their own resolver's overlap (the bounding spheres' overestimates
    // it), and none between two mesh triangles.
    let p = &world.particles;
    let kind = |i: u32| {
        p.shape_of(i as usize)
            .shape_kind()
            .unwrap_or(crate::shapes::ShapeKind::Sphere)
    };
    let (step, domain, shapes) = (world.step_params(), world.domain.params(), p.shape_table());
    let bodies = crate::kernels::resolvers::Bodies {
        step: &step,
        domain: &domain,
        walls: &world.walls,
        pos: &p.pos,
        vel: &p.vel,
        omega: &p.omega,
        quat: &p.quat,
        shape: &p.shape,
        shapes: &shapes,
        triangles: &world.triangles,
    };
    let body = |i: u32| crate::kernels::passes::pair_count::body_of(i as usize, &p.shape, &shapes);
    let (nm, chains) = (world.materials.len(), &world.table.sphere_chain);
    let visit = |report: &mut OverlapReport, i: u32, j: u32, bound: f64| {
        // Members of one clump overlap by design.
        if body(i) != u32::MAX && body(i) == body(j) {
            return;
        }
        // Nor do particles that no chain joins touch (nodes of rings or shells that meet
        // through their elements).
        let (mi, mj) = (
            p.material[i as usize] as usize,
            p.material[j as usize] as usize,
        );
        if chains.get(mi * nm + mj) == Some(&crate::materials::NO_CHAIN) {
            return;
        }
        let depth = match crate::world::neighbour_resolver(kind(i), kind(j), false, false) {
            None => return,
            Some(crate::registry::ResolverKind::SphereSphere) => bound,
            Some(r) if bound > 0.0 => {
                let pair = crate::kernel_types::SourcePair {
                    p: i,
                    q: j,
                    ..Default::default()
                };
                r.overlap(&pair, &bodies) as f64
            }
            Some(_) => bound,
        };
        if depth > 0.0 {
            report.pairs += 1;
            let (a, b) = (pos[i as usize][3], pos[j as usize][3]);
            let o = Overlap {
                i,
                other: Other::Particle(j),
                depth,
                relative: depth / (a.min(b) as f64),
            };
            consider(o, report);
        }
    };
    // Runs of particles in parallel: the tie rule of `consider` keeps what one sequential sweep
    // keeps.
    let join = |mut a: OverlapReport, b: OverlapReport| {
        a.pairs += b.pairs;
        if let Some(o) = b.worst {
            consider(o, &mut a);
        }
        a
    };
    let mut report =
        fold_pairs_within(pos, &world.domain, 0.0, OverlapReport::default, visit, join);
    for (i, a) in pos.iter().enumerate() {
        let k = kind(i as u32);
        if k == crate::shapes::ShapeKind::Triangle {
            continue;
        }
        for (w, wall) in world.walls.iter().enumerate() {
            let depth = if k == crate::shapes::ShapeKind::Capsule {
                let pair = crate::kernel_types::SourcePair {
                    p: i as u32,
                    q: w as u32,
                    ..Default::default()
                };
                crate::registry::ResolverKind::CapsulePlane.overlap(&pair, &bodies) as f64
            } else {
                crate::kernels::walls::wall_contact(*a, wall).1 as f64
            };
            if depth > 0.0 {
                report.wall_contacts += 1;
                let o = Overlap {
                    i: i as u32,
                    other: Other::Wall(w as u32),
                    depth,
                    relative: depth / a[3] as f64,
                };
                consider(o, &mut report);
            }
        }
    }
    report
}

/// The speed (m/s) at which an initial overlap would fire its two bodies apart if the Hertz
/// energy it stores, `8/15 E* sqrt(R*) delta^(5/2)` (Johnson 1985, §4.2), all became their
/// relative motion: `sqrt(2 W / m*)`. A wall has infinite radius and mass. Other normal laws
/// store a comparable energy at the small overlaps a scene may start with; the guard's factor
/// of 100 covers the difference.
pub fn release_speed(world: &World, o: &Overlap) -> f64 {
    let p = &world.particles;
    let i = o.i as usize;
    let mat = |k: usize| world.materials.get(k);
    let (r_eff, m_eff, other) = match o.other {
        Other::Particle(j) => {
            let j = j as usize;
            let (ri, rj) = (p.pos[i][3] as f64, p.pos[j][3] as f64);
            let (mi, mj) = (p.mass[i] as f64, p.mass[j] as f64);
            if mj <= 0.0 {
                // A mesh triangle: a wall.
                (ri, mi, p.material[j] as usize)
            } else {
                (
                    ri * rj / (ri + rj),
                    mi * mj / (mi + mj),
                    p.material[j] as usize,
                )
            }
        }
        Other::Wall(w) => (
            p.pos[i][3] as f64,
            p.mass[i] as f64,
            world.walls[w as usize].material as usize,
        ),
    };
    let (Some(a), Some(b)) = (mat(p.material[i] as usize), mat(other)) else {
        return 0.0;
    };
    let e = crate::material::effective_young(a, b);
    let work = 8.0 / 15.0 * e * r_eff.sqrt() * o.depth.powf(2.5);
    (2.0 * work / m_eff).sqrt()
}
