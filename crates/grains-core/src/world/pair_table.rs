//! The pair table of a world: which resolver and chain each pair of materials and shapes
//! takes, and the pairs that touch.

use super::*;

/// The resolver of a neighbour-list pair of particles of these shapes (and whether each is a
/// shell node); `None` for two mesh triangles, which are fixed and never need a force from
/// each other.
pub fn neighbour_resolver(
    a: ShapeKind,
    b: ShapeKind,
    shell_a: bool,
    shell_b: bool,
) -> Option<ResolverKind> {
    use ShapeKind::{Capsule, Clump, Member, Sphere, Triangle};
    // A clump's members touch as spheres; its body touches nothing.
    let as_sphere = |k| if k == Member { Sphere } else { k };
    Some(match (as_sphere(a), as_sphere(b)) {
        (Clump, _) | (_, Clump) | (Member, _) | (_, Member) => return None,
        (Triangle, Triangle) => return None,
        (Triangle, Sphere) | (Sphere, Triangle) => ResolverKind::SphereTriangle,
        (Triangle, Capsule) | (Capsule, Triangle) => ResolverKind::CapsuleTriangle,
        (Capsule, Capsule) => ResolverKind::CapsuleCapsule,
        (Capsule, Sphere) | (Sphere, Capsule) => ResolverKind::CapsuleSphere,
        (Sphere, Sphere) if shell_a != shell_b => ResolverKind::SpherePoint,
        (Sphere, Sphere) => ResolverKind::SphereSphere,
    })
}

impl World {
    /// The kind of shape of each material's particles (`None` for a material no particle
    /// has); a material shared by two kinds is an error, because the material pair picks the
    /// resolver.
    pub fn material_shapes(&self) -> Result<Vec<Option<ShapeKind>>, CoreError> {
        let p = &self.particles;
        let mut out: Vec<Option<(ShapeKind, usize)>> = vec![None; self.materials.len()];
        for i in 0..p.len() {
            // A clump's members are its spheres; its body has no surface.
            let k = match p.shape_of(i).shape_kind() {
                Some(ShapeKind::Clump) => continue,
                Some(ShapeKind::Member) | None => ShapeKind::Sphere,
                Some(k) => k,
            };
            let Some(slot) = out.get_mut(p.material[i] as usize) else {
                continue;
            };
            match *slot {
                None => *slot = Some((k, i)),
                Some((k0, i0)) if k0 != k => {
                    let name = self
                        .materials
                        .get(p.material[i] as usize)
                        .map_or("", |m| m.name.as_str());
                    let word = |k: ShapeKind| match k {
                        ShapeKind::Sphere | ShapeKind::Member | ShapeKind::Clump => {
                            "a sphere (or a clump)"
                        }
                        ShapeKind::Capsule => "a capsule",
                        ShapeKind::Triangle => "a mesh wall's triangle",
                    };
                    return Err(CoreError::BadShape(format!(
                        "material \"{name}\" is used by {} (particle {i0}) and by {} \
                         (particle {i}); give each kind of shape a material of its own (the \
                         pair of materials picks the contact geometry)",
                        word(k0),
                        word(k)
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(out.into_iter().map(|o| o.map(|(k, _)| k)).collect())
    }

    /// The pair table of the material pairs each source meets.
    pub(super) fn build_table(&mut self) -> Result<(), CoreError> {
        let (particles, materials) = (&self.particles, &self.materials);
        let (all_pairs, _) = touching_pairs(particles, &[], materials);
        // One set of wall pairs per wall kind, each with its resolver and its block of the
        // wall source's table.
        let n2 = materials.len() * materials.len();
        let wall_pairs: Vec<(u32, Vec<TouchingPair>)> = (0..WALL_KINDS as u32)
            .map(|k| {
                let of_kind: Vec<Wall> =
                    self.walls.iter().filter(|w| w.kind == k).copied().collect();
                (k, touching_pairs(particles, &of_kind, materials).1)
            })
            .collect();
        // A sphere meets a shell node through `sphere_point`; nodes meet each other, and
        // spheres each other, as spheres. Other shapes pick their resolver by the shapes of
        // the two materials (a material is one kind of shape).
        let mut shell_material = vec![false; materials.len()];
        for &(first, count) in &self.shells.nodes {
            for p in first..first + count {
                if let Some(m) = shell_material.get_mut(particles.material[p as usize] as usize) {
                    *m = true;
                }
            }
        }
        let is_shell = |m: usize| shell_material.get(m).copied().unwrap_or(false);
        let kinds = self.material_shapes()?;
        let kind = |m: usize| kinds.get(m).copied().flatten().unwrap_or(ShapeKind::Sphere);
        let mut by_resolver: std::collections::BTreeMap<ResolverKind, Vec<TouchingPair>> =
            Default::default();
        // Nodes of rings with node-to-segment contact meet through it, and node to node only
        // where an interaction names their materials.
        let by_segments = crate::shells::surface_only_materials(
            &self.shells,
            &particles.material,
            materials.len(),
        );
        let named = |a: usize, b: usize| {
            (self.interactions.iter()).any(|i| i.between == (a, b) || i.between == (b, a))
        };
        for tp in all_pairs {
            if by_segments[tp.a] && by_segments[tp.b] && !named(tp.a, tp.b) {
                continue;
            }
            let Some(r) =
                neighbour_resolver(kind(tp.a), kind(tp.b), is_shell(tp.a), is_shell(tp.b))
            else {
                continue;
            };
            by_resolver.entry(r).or_default().push(tp);
        }
        let mut wall_sets: Vec<(u32, ResolverKind, Vec<TouchingPair>)> = Vec::new();
        for (k, pairs) in wall_pairs {
            let mut spheres = Vec::new();
            let mut capsules = Vec::new();
            for tp in pairs {
                match kind(tp.a) {
                    ShapeKind::Sphere | ShapeKind::Member => spheres.push(tp),
                    ShapeKind::Triangle | ShapeKind::Clump => {}
                    ShapeKind::Capsule if k == crate::kernels::walls::WALL_PLANE => {
                        capsules.push(tp)
                    }
                    ShapeKind::Capsule => {
                        let name = materials.get(tp.a).map_or("", |m| m.name.as_str());
                        return Err(CoreError::BadShape(format!(
                            "capsules of \"{name}\" meet a {} wall, and capsules have a \
                             resolver for plane and mesh walls only; use planes (or a box) \
                             or a [[wall]] mesh",
                            ["plane", "cylinder", "disk", "cone"][k as usize]
                        )));
                    }
                }
            }
            wall_sets.push((k, ResolverKind::of_wall(k), spheres));
            if !capsules.is_empty() {
                wall_sets.push((k, ResolverKind::CapsulePlane, capsules));
            }
        }
        let fixed = fixed_touching_pairs(particles, &self.fixed_pairs, materials);
        let mut r_max = vec![0.0f64; materials.len()];
        for (p, &m) in particles.pos.iter().zip(&particles.material) {
            if let Some(r) = r_max.get_mut(m as usize) {
                *r = r.max(p[3] as f64);
            }
        }
        for ins in &self.insertions {
            for (j, &radius) in ins.radii.iter().enumerate() {
                let m = particles.material[ins.first as usize + j] as usize;
                if let Some(r) = r_max.get_mut(m) {
                    *r = r.max(radius as f64);
                }
            }
        }
        // In an implicit mode every chain ends with the contact matrix's assembly.
        let with_matrix = |list: &[Interaction]| -> Vec<Interaction> {
            let mut list = list.to_vec();
            if self.dynamics.implicit() {
                for it in &mut list {
                    it.laws.push(crate::registry::LawSpec::ContactMatrix(()));
                }
            }
            list
        };
        let (interactions, fixed_interactions) = (
            with_matrix(&self.interactions),
            with_matrix(&self.fixed_interactions),
        );
        let mut sets: Vec<PairSet<'_>> = by_resolver
            .iter()
            .map(|(&resolver, pairs)| PairSet {
                source: SourceKind::Neighbour,
                resolver,
                pairs,
                interactions: &interactions,
                offset: 0,
            })
            .collect();
        for (k, resolver, pairs) in &wall_sets {
            sets.push(PairSet {
                source: SourceKind::Wall,
                resolver: *resolver,
                pairs,
                interactions: &interactions,
                offset: *k as usize * n2,
            });
        }
        sets.push(PairSet {
            source: SourceKind::Fixed,
            resolver: ResolverKind::SphereSphere,
            pairs: &fixed,
            interactions: &fixed_interactions,
            offset: 0,
        });
        let mut table = PairTable::build(materials, &sets, &r_max)?;
        // A fixed pair is evaluated at any distance (its laws decide where they act: a damper
        // between bonded particles acts apart too); a found pair out to its chain's range, plus
        // the skin for a chain that acts beyond touching.
        table.chain_reach = table
            .chain_range
            .iter()
            .zip(&table.chains)
            .map(|(&r, c)| match c.source {
                SourceKind::Fixed => f32::MAX,
                SourceKind::Neighbour | SourceKind::Wall if r > 0.0 => r + self.skin as f32,
                SourceKind::Neighbour | SourceKind::Wall => 0.0,
            })
            .collect();
        self.table = table;
        Ok(())
    }
}

/// The material pairs that can touch, and why: two particles of one material when it has at
/// least two, particles of two materials when both have some, and each particle material with
/// each wall material. A material with a single particle needs no interaction with itself.
pub fn touching_pairs(
    particles: &Particles,
    walls: &[Wall],
    materials: &[Material],
) -> (Vec<TouchingPair>, Vec<TouchingPair>) {
    let mut count = vec![0usize; materials.len()];
    for &m in &particles.material {
        if let Some(c) = count.get_mut(m as usize) {
            *c += 1;
        }
    }
    let name = |k: usize| materials.get(k).map(|m| m.name.as_str()).unwrap_or("");
    let mut spheres = Vec::new();
    for a in 0..count.len() {
        for b in a..count.len() {
            let why = if a == b && count[a] >= 2 {
                format!("{} particles of \"{}\"", count[a], name(a))
            } else if a != b && count[a] > 0 && count[b] > 0 {
                format!("particles of \"{}\" and of \"{}\"", name(a), name(b))
            } else {
                continue;
            };
            spheres.push(TouchingPair { a, b, why });
        }
    }
    let mut wall_mats: Vec<usize> = walls.iter().map(|w| w.material as usize).collect();
    wall_mats.sort_unstable();
    wall_mats.dedup();
    let mut on_walls = Vec::new();
    for (a, &c) in count.iter().enumerate() {
        if c == 0 {
            continue;
        }
        for &w in &wall_mats {
            let why = format!("particles of \"{}\" and a wall of \"{}\"", name(a), name(w));
            on_walls.push(TouchingPair { a, b: w, why });
        }
    }
    (spheres, on_walls)
}

/// The material pairs the fixed pairs join, each once, with the first pair that joins them.
pub fn fixed_touching_pairs(
    particles: &Particles,
    fixed_pairs: &[[u32; 2]],
    materials: &[Material],
) -> Vec<TouchingPair> {
    let name = |k: usize| materials.get(k).map(|m| m.name.as_str()).unwrap_or("");
    let mut out: Vec<TouchingPair> = Vec::new();
    for &[i, j] in fixed_pairs {
        let (a, b) = (
            particles.material[i as usize] as usize,
            particles.material[j as usize] as usize,
        );
        let (a, b) = (a.min(b), a.max(b));
        if out.iter().any(|t| (t.a, t.b) == (a, b)) {
            continue;
        }
        let why = format!(
            "the fixed pair of particles {i} (\"{}\") and {j} (\"{}\")",
            name(a),
            name(b)
        );
        out.push(TouchingPair { a, b, why });
    }
    out
}
