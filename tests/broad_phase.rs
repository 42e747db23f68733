//! Broad phase: the candidate list against brute force, no missed contact over a run, history
//! carried across rebuilds.

use grains_core::cpu::NeighbourList;
use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::kernels::passes::pair_record::entry_owners;
use grains_core::kernels::resolvers::sphere_sphere::min_image;
use grains_core::{Backend, CpuBackend, Domain, Particles, World};
use grains_tests::worlds::*;

fn cpu(world: World) -> CpuBackend {
    match CpuBackend::new(world) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    }
}

/// Random, overlapping, polydisperse spheres: no lattice regularity for the hash to lean on.
fn random_world(n: usize, periodic: bool, seed: u64) -> World {
    let mut rng = SplitMix(seed);
    let l = 0.02;
    let mut p = Particles::default();
    for _ in 0..n {
        let x = [rng.range(0.0, l), rng.range(0.0, l), rng.range(0.0, l)];
        let r = rng.range(0.0003, 0.0012);
        p.push_sphere(x, r, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    }
    let domain = Domain {
        min: [0.0; 3],
        max: [l; 3],
        periodic: [periodic; 3],
    };
    world(
        p,
        vec![],
        material("m", 1e6, 2500.0),
        hertz_only(),
        domain,
        [0.0; 3],
        1e-6,
        0.0004,
    )
}

/// 216 shaken frictional spheres in a 6 x 6 x 6 lattice box: periodic with no gravity, or
/// walled with gravity; dt at the time-step report's choice.
fn shaken_box(periodic: bool, seed: u64) -> World {
    let (r, spacing) = (0.001, 0.0024);
    let l = 6.0 * spacing;
    let p = lattice_particles([0.0; 3], [l; 3], r, spacing, 2500.0, 0.5, 100.0, seed);
    let domain = Domain {
        min: [0.0; 3],
        max: [l; 3],
        periodic: [periodic; 3],
    };
    let walls = if periodic {
        vec![]
    } else {
        box_walls([0.0; 3], [l as f32; 3])
    };
    let inter = self_interaction(
        hertz(),
        Some(0.7),
        Some((0.3, 0.3)),
        TangentialStiffness::Mindlin,
    );
    let gravity = if periodic {
        [0.0; 3]
    } else {
        [0.0, 0.0, -9.81]
    };
    let mut w = world(
        p,
        walls,
        material("m", 5e6, 2500.0),
        inter,
        domain,
        gravity,
        1.0,
        0.0003,
    );
    w.dt = grains_core::timestep::timestep_report(&w).auto_dt;
    w
}

/// Every pair whose surfaces are closer than `cutoff`, by the same f32 test the kernel uses.
fn brute_force(b: &CpuBackend, cutoff: f32) -> Vec<(u32, u32)> {
    let d = b.world.domain.params();
    let mut out = Vec::new();
    for i in 0..b.pos.len() {
        for j in i + 1..b.pos.len() {
            let (x, y) = (b.pos[i], b.pos[j]);
            let v = min_image([y[0] - x[0], y[1] - x[1], y[2] - x[2]], &d);
            let reach = x[3] + y[3] + cutoff;
            if v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < reach * reach {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[test]
fn candidate_pairs_equal_brute_force_on_random_packings() {
    for (seed, periodic) in [(1, false), (2, true), (3, false), (4, true)] {
        let mut b = cpu(random_world(1500, periodic, seed));
        let cutoff = b.grid().cutoff;
        let expected = brute_force(&b, cutoff);
        let got = b.candidate_pairs();
        assert!(!expected.is_empty());
        assert_eq!(got, expected, "seed {seed}, periodic {periodic}");
        // Every pair has one record: the owning entries' records are 0, 1, 2, ... in list
        // order, and the other entry of a particle pair, (q, p), shares the record of (p, q).
        // The CPU keeps each pair once (its records and the heads' references to them); the
        // full list it gives back must be well formed and give the same list back.
        let records = b.state().nbr_slot.len();
        let (nbr_j, nbr_pair) = b.list.to_full();
        let nbr_i: Vec<u32> = entry_owners(&b.list.nbr_start).collect();
        let again =
            NeighbourList::from_full(b.list.nbr_start.clone(), nbr_j.clone(), nbr_pair.clone());
        assert_eq!(again.to_full(), (nbr_j.clone(), nbr_pair.clone()));
        assert_eq!(
            (&again.pair_j, &again.head_pair),
            (&b.list.pair_j, &b.list.head_pair)
        );
        let n = b.list.nbr_start.len() as u32 - 1;
        // Each particle's candidates sorted by index, as `pair_fill` writes them on both
        // backends: the head (partners below it, which the CPU builds by transposing the
        // records) in partner order, then its own.
        for p in 0..n as usize {
            let range = b.list.nbr_start[p] as usize..b.list.nbr_start[p + 1] as usize;
            assert!(
                nbr_j[range].windows(2).all(|w| w[0] < w[1]),
                "particle {p}'s candidates are not sorted (seed {seed})"
            );
        }
        let mut owner_of = std::collections::HashMap::new();
        let mut next = 0u32;
        for k in 0..nbr_j.len() {
            let (i, j) = (nbr_i[k], nbr_j[k]);
            assert!(
                b.list.nbr_start[i as usize] as usize <= k
                    && k < b.list.nbr_start[i as usize + 1] as usize
            );
            if j > i {
                assert_eq!(nbr_pair[k], next, "owning entry {k} of seed {seed}");
                owner_of.insert((i, j), next);
                next += 1;
            }
        }
        assert_eq!(next as usize, records, "one record per pair");
        for k in 0..nbr_j.len() {
            let (i, j) = (nbr_i[k], nbr_j[k]);
            if j < i {
                assert!(j < n);
                assert_eq!(
                    Some(&nbr_pair[k]),
                    owner_of.get(&(j, i)),
                    "entry ({i}, {j})"
                );
            }
        }
    }
}

/// A small gas in a periodic box and a settle in a walled box: after every step, every pair
/// of touching spheres must be in the candidate list, while the list is rebuilt far less
/// often than every step.
#[test]
fn no_contact_is_missed_over_a_run() {
    for periodic in [true, false] {
        let mut b = cpu(shaken_box(periodic, 11));
        let mut contacts_seen = 0usize;
        for _ in 0..1500 {
            b.step();
            let touching = brute_force(&b, 0.0);
            contacts_seen += touching.len();
            let list = b.candidate_pairs();
            for pair in &touching {
                assert!(
                    list.binary_search(pair).is_ok(),
                    "missed contact {pair:?} at step {}",
                    b.counters().steps
                );
            }
        }
        let c = b.counters();
        assert!(
            contacts_seen > 100,
            "too few contacts for a meaningful audit: {contacts_seen}"
        );
        assert!(
            c.rebuilds > 2 && c.rebuilds < 750,
            "rebuilds: {}",
            c.rebuilds
        );
    }
}

/// History survives rebuilds: the same frictional packing with a small skin (many rebuilds)
/// and a large skin (few) evolves bitwise identically, since candidates that do not touch add
/// exact zeros and every touching pair keeps its tangential spring through each rebuild.
#[test]
fn history_is_carried_across_rebuilds() {
    let run = |skin: f64| {
        let (r, spacing) = (0.001, 0.0021);
        let l = 6.0 * spacing;
        let p = lattice_particles([0.0; 3], [l, l, 2.0 * l], r, spacing, 2500.0, 0.0, 0.0, 5);
        let domain = Domain {
            min: [0.0; 3],
            max: [l, l, 2.0 * l],
            periodic: [false; 3],
        };
        let walls = box_walls([0.0; 3], [l as f32, l as f32, 2.0 * l as f32]);
        let inter = self_interaction(
            hertz(),
            Some(0.5),
            Some((0.5, 0.5)),
            TangentialStiffness::Mindlin,
        );
        let w = world(
            p,
            walls,
            material("m", 5e6, 2500.0),
            inter,
            domain,
            [0.0, 0.0, -9.81],
            5e-6,
            skin,
        );
        let mut b = cpu(w);
        b.run(4000);
        (
            b.snapshot().into_owned(),
            b.counters().rebuilds,
            b.energy().friction_dissipated,
        )
    };
    let (a, rebuilds_a, fric) = run(0.00005);
    let (b, rebuilds_b, _) = run(0.001);
    assert!(
        rebuilds_a > 3 * rebuilds_b,
        "skins should differ in rebuilds: {rebuilds_a} vs {rebuilds_b}"
    );
    assert!(fric > 0.0, "friction must have acted for history to matter");
    assert_eq!(a.pos, b.pos);
    assert_eq!(a.vel, b.vel);
    assert_eq!(a.omega, b.omega);
}

/// Walls are candidates only of the particles near them, yet no wall contact is missed: in a
/// shaken, settling box every (particle, plane) pair closer than the radius is the list entry
/// `(p, n + w)` at every step. And the slot flags hold their promise: a record out of contact
/// has no slot and no history, and those in contact have one each, packed in record order.
#[test]
fn walls_join_the_list_without_missing_a_contact_and_inactive_slots_are_zero() {
    let w = shaken_box(false, 17);
    let walls = w.walls.clone();
    // The CPU keeps its history records unpadded; the state pads them to whole vec4s.
    let (stride, padded) = (w.table.nbr_history_words, w.table.nbr_history_stride);
    let mut b = cpu(w);
    let n = b.pos.len() as u32;
    let (mut wall_contacts, mut inactive_checked, mut most_wall_entries) = (0usize, 0usize, 0);
    for _ in 0..1500 {
        b.step();
        let list = &b.list;
        for (i, x) in b.pos.iter().enumerate() {
            for (k, wall) in walls.iter().enumerate() {
                let d: f32 = (0..3)
                    .map(|c| (x[c] - wall.point[c]) * wall.normal[c])
                    .sum();
                if d < x[3] {
                    wall_contacts += 1;
                    let range = list.pair_start[i] as usize..list.pair_start[i + 1] as usize;
                    assert!(
                        list.pair_j[range].contains(&(n + k as u32)),
                        "missed the contact of particle {i} with wall {k} at step {}",
                        b.counters().steps
                    );
                }
            }
        }
        let wall_entries = list.pair_j.iter().filter(|&&j| j >= n).count();
        most_wall_entries = most_wall_entries.max(wall_entries);
        // Records out of contact hold no slot and no history; the others' are laid out in
        // record order (in their contact blocks' regions, with room between them), one each,
        // and the state packs them end to end.
        let mut last = 0;
        let mut next = 0;
        for k in 0..b.nbr_slot.len() {
            if b.nbr_slot[k] == 0 {
                inactive_checked += 1;
            } else {
                next += 1;
                assert!(b.nbr_slot[k] > last, "record {k}'s slot follows the last");
                last = b.nbr_slot[k];
            }
        }
        assert!(last as usize <= b.slots.len(), "slots within the array");
        assert_eq!(
            b.history.len(),
            b.slots.len() * stride,
            "one history record per slot"
        );
        let st = b.state();
        let packed: Vec<u32> = st.nbr_slot.iter().copied().filter(|&a| a != 0).collect();
        assert_eq!(packed, (1..=next).collect::<Vec<u32>>(), "packed flags");
        assert_eq!(
            st.slots.len(),
            next as usize,
            "one slot per record in contact"
        );
        assert_eq!(
            st.history.len(),
            next as usize * padded,
            "one history record per record in contact"
        );
    }
    assert!(
        wall_contacts > 100,
        "too few wall contacts: {wall_contacts}"
    );
    assert!(inactive_checked > 1000, "too few inactive entries seen");
    // A 6 x 6 x 6 lattice: 216 particles, 6 walls; near-wall particles only.
    assert!(
        most_wall_entries < b.pos.len() * walls.len() / 2,
        "walls should be candidates of the particles near them only: {most_wall_entries}"
    );
}

/// The CPU backend builds its list with each pair once (`pair_fill_owned`, then the heads by
/// transposing the records) and sums and carries through its records (the owner's side in its
/// sweep, `gather_head`, `carried_flag`); the GPU builds it with the twins' passes: the cells,
/// the counts and their scans, each particle's records (`pair_fill`) and each particle's head
/// as its partners' records (`pair_record`), then gathers through that and carries each
/// packed slot by the pair it keeps (`slot_carry`). From the
/// same positions the twins must build the very same list and find the very same bits: the
/// gathered force of every particle after a step (and its torque where the state's slots hold
/// all of it), and every record's carried flag across a rebuild (walls, contacts in the box and
/// pairs that moved apart alike).
#[test]
fn the_gpu_twins_build_the_list_the_cpu_keeps_and_agree_with_it() {
    use grains_core::kernels::passes::cell_count::cell_count;
    use grains_core::kernels::passes::cell_scatter::cell_scatter;
    use grains_core::kernels::passes::gather;
    use grains_core::kernels::passes::pair_count::pair_count;
    use grains_core::kernels::passes::pair_fill::pair_fill;
    use grains_core::kernels::passes::pair_record::pair_record;
    use grains_core::kernels::passes::prefix_sum::prefix_sum;
    use grains_core::kernels::passes::slot_carry::{self, slot_carry};
    use grains_core::kernels::sources::fixed::fixed_index;
    let mut b = cpu(shaken_box(false, 23));
    let n = b.pos.len();
    let step = b.world.step_params();
    let (grid, domain) = (b.grid(), b.world.domain.params());
    let (shape, shapes) = (
        b.world.particles.shape.clone(),
        b.world.particles.shape_table(),
    );
    let (mut carried, mut gathered, mut torques) = (0, 0, 0);
    // The GPU's rebuild, pass by pass, at the backend's positions: the list's starts, each
    // record's owner and partner, and each head element's record.
    let build = |pos: &[[f32; 4]], walls: &[grains_core::kernel_types::Wall]| {
        let cells = grid.n_cells as usize;
        let (mut particle_cell, mut counts) = (vec![0u32; n], vec![0u32; cells]);
        for gid in 0..n {
            cell_count(gid, &grid, pos, &mut particle_cell, &mut counts);
        }
        let mut cell_start = vec![0u32; cells + 1];
        prefix_sum(&counts, &mut cell_start);
        let (mut cursor, mut sorted) = (cell_start[..cells].to_vec(), vec![0u32; n]);
        for gid in 0..n {
            cell_scatter(gid, &particle_cell, &mut cursor, &mut sorted);
        }
        let (mut nbr_count, mut own_count) = (vec![0u32; n], vec![0u32; n]);
        for gid in 0..n {
            let (c, o) = (&mut nbr_count[gid], &mut own_count[gid]);
            pair_count(
                gid,
                &grid,
                &domain,
                pos,
                &cell_start,
                &sorted,
                &shape,
                &shapes,
                walls,
                c,
                o,
            );
        }
        let (mut nbr_start, mut pair_start) = (vec![0u32; n + 1], vec![0u32; n + 1]);
        prefix_sum(&nbr_count, &mut nbr_start);
        prefix_sum(&own_count, &mut pair_start);
        let records = pair_start[n] as usize;
        let mut pair_j = vec![u32::MAX; records];
        for gid in 0..n {
            let r = pair_start[gid] as usize..pair_start[gid + 1] as usize;
            pair_fill(
                gid,
                &grid,
                &domain,
                pos,
                &cell_start,
                &sorted,
                &shape,
                &shapes,
                walls,
                &mut pair_j[r],
            );
        }
        let mut head_pair = vec![u32::MAX - 1; nbr_start[n] as usize - records];
        for gid in 0..n {
            let h = |p: usize| (nbr_start[p] - pair_start[p]) as usize;
            pair_record(
                gid,
                &grid,
                &domain,
                pos,
                &cell_start,
                &sorted,
                &shape,
                &shapes,
                &pair_start,
                &pair_j,
                &mut head_pair[h(gid)..h(gid + 1)],
            );
        }
        // Each record's owner, which the neighbour source's invocation is.
        let pair_i: Vec<u32> = entry_owners(&pair_start).collect();
        (nbr_start, pair_start, pair_i, pair_j, head_pair)
    };
    for round in 0..6 {
        b.run(150);
        let start = b.list.nbr_start.clone();
        let pair_start = b.list.pair_start.clone();
        let (fixed_start, fixed_entry) = fixed_index(n, &b.world.fixed_pairs);
        // The state's slots keep each pair's force, body 2's torque and a wall contact's torque
        // on its particle (the CPU sums each owner's side in its sweep and keeps of a slot
        // what the other side reads, so a state's slots have no owner's torque of a particle
        // pair): the twin's gather of them gives the backend's force bit for bit, and its
        // torque where the particle owns no particle pair in contact. The other torques are
        // the GPU parity tests'.
        let st = b.state();
        // What the list keeps of each slot, and each owner's side of its records in contact
        // summed in record order, as the contact passes leave them for the gather.
        use grains_core::kernels::sources::neighbour::{FarSlot, OwnSums};
        let mut far = vec![FarSlot::default(); st.slots.len()];
        for (r, &a) in st.nbr_slot.iter().enumerate() {
            if let Some(k) = (a as usize).checked_sub(1) {
                far[k] = FarSlot::of(&st.slots[k], b.list.pair_j[r] as usize >= n);
            }
        }
        assert_eq!(step.own_sums, 1);
        for gid in 0..n {
            let mut own = OwnSums::default();
            for r in pair_start[gid]..pair_start[gid + 1] {
                if let Some(k) = (st.nbr_slot[r as usize] as usize).checked_sub(1) {
                    own.add(&st.slots[k]);
                }
            }
            let mut f = own.force.extend(own.damping).to_array();
            let mut t = own.torque.extend(own.friction).to_array();
            let mut d = [0.0; 4];
            gather(
                gid,
                &step,
                &start,
                &b.list.head_pair,
                &pair_start,
                &far,
                &st.nbr_slot,
                &fixed_start,
                &fixed_entry,
                &b.fixed_slots,
                &mut f,
                &mut t,
                &mut d,
            );
            assert_eq!(
                f.map(f32::to_bits),
                b.force[gid].map(f32::to_bits),
                "force {gid}"
            );
            let owns_pair = (pair_start[gid]..pair_start[gid + 1])
                .any(|r| (b.list.pair_j[r as usize] as usize) < n && st.nbr_slot[r as usize] != 0);
            if !owns_pair {
                assert_eq!(
                    t.map(f32::to_bits),
                    b.torque[gid].map(f32::to_bits),
                    "torque {gid}"
                );
                torques += (t != [0.0; 4]) as usize;
            }
            gathered += (f != [0.0; 4]) as usize;
        }
        // The list the last rebuild built, against one built from the positions now: an extra
        // rebuild between steps, as a step's own, and the twins' from the same positions.
        // Each packed slot's pair, as the GPU keeps it: the CPU's slots (in regions of its
        // blocks, not dense) named by the old list's flags.
        let (old_slot, old_start) = (&b.nbr_slot, &b.list.pair_start);
        let taken = old_slot.iter().copied().max().unwrap_or(0) as usize;
        let mut slot_pair = vec![[slot_carry::NO_PAIR; 2]; taken];
        for p in 0..n {
            for r in old_start[p] as usize..old_start[p + 1] as usize {
                if let Some(k) = (old_slot[r] as usize).checked_sub(1) {
                    slot_pair[k] = [p as u32, b.list.pair_j[r]];
                }
            }
        }
        b.rebuild();
        let (new_start, new_pair_start, new_i, new_j, new_head) = build(&b.pos, &b.walls);
        assert_eq!(new_start, b.list.nbr_start, "round {round}");
        assert_eq!(new_pair_start, b.list.pair_start, "round {round}");
        assert_eq!(new_j, b.list.pair_j, "round {round}");
        assert_eq!(new_head, b.list.head_pair, "round {round}");
        // One invocation per slot ever taken, over the new list's flags cleared; no pair in
        // contact leaves the list, so none gives its slot back.
        let mut flags = vec![0u32; b.nbr_slot.len()];
        assert_eq!(flags.len(), new_i.len());
        let mut slot_count = vec![0u32; slot_carry::SLOT_WORDS];
        slot_count[slot_carry::SLOT_TAKEN] = taken as u32;
        slot_count[slot_carry::SLOT_CAPACITY] = taken.max(1) as u32;
        let mut ring = vec![0u32; taken.max(1)];
        for gid in 0..taken {
            slot_carry(
                gid,
                &step,
                &mut slot_pair,
                &new_j,
                &new_pair_start,
                &mut flags,
                &mut slot_count,
                &mut ring,
            );
        }
        assert_eq!(slot_count[slot_carry::SLOT_PUSHES], 0, "slots given back");
        for (r, &flag) in flags.iter().enumerate() {
            assert_eq!(flag, b.nbr_slot[r], "record {r}");
            carried += (flag != 0) as usize;
        }
        // The run goes on from here: an extra rebuild between steps, as a step's own.
    }
    assert!(
        gathered > 100 && carried > 100 && torques > 10,
        "{gathered} forces, {torques} torques, {carried} flags"
    );
}

/// The CPU's held bytes count every array of the state it keeps: at least the state's bytes
/// less what of the full list it does not keep (each entry's owner, and the head's partners
/// and the tail's records: 8 bytes per entry) and the padding of the state's history records
/// to whole vec4s, which the CPU does not hold. It fails if an array is left out of the count
/// (the slots alone are 48 bytes per pair in contact).
#[test]
fn the_cpu_counts_the_arrays_it_holds() {
    let mut b = cpu(shaken_box(false, 29));
    b.run(300);
    let held = b.host_bytes().expect("the CPU backend holds host memory");
    let st = b.state();
    let state: u64 = st.array_bytes().iter().map(|a| a.len() as u64).sum();
    let t = &b.world.table;
    let padding = 4 * (t.nbr_history_stride - t.nbr_history_words) as u64 * st.slots.len() as u64;
    let entries = b.counters().neighbour_entries;
    assert!(entries > 2 * b.pos.len() as u64, "{entries} entries");
    assert!(!st.slots.is_empty(), "pairs in contact");
    assert!(
        held >= state - 8 * entries - padding,
        "{held} held, state {state}"
    );
}

/// A full list whose other side of a pair is missing (particle 2 lists 1, which does not list
/// 2: a list from inconsistent counts, whose entry names record `u32::MAX`) round-trips through
/// the CPU's list, the partner kept aside since no record names it.
#[test]
fn a_head_element_without_a_record_round_trips() {
    let nbr_start = vec![0u32, 2, 3, 5];
    let nbr_j = vec![1u32, 2, 0, 0, 1];
    let nbr_pair = vec![0u32, 1, 0, 1, u32::MAX];
    let list = NeighbourList::from_full(nbr_start.clone(), nbr_j.clone(), nbr_pair.clone());
    assert_eq!(list.pair_j, vec![1, 2]);
    assert_eq!(list.head_pair, vec![0, 1, u32::MAX]);
    assert_eq!(list.to_full(), (nbr_j, nbr_pair));
    let owners: Vec<u32> = entry_owners(&nbr_start).collect();
    assert_eq!(owners, vec![0, 0, 1, 2, 2]);
}

/// Each element's owner from a table of starts (`entry_owners`), as the GPU takes up a state's
/// slots' pairs from their starts: empty ranges (particles 0, 2 and 4 here have no
/// candidate) are passed over to the particle whose range holds the element, and the records'
/// starts counted from a full list give each record its owner.
#[test]
fn the_owners_of_entries_and_records_come_from_the_starts() {
    use grains_core::kernels::passes::pair_record::pair_starts;
    let nbr_start = vec![0u32, 0, 2, 2, 4, 4, 5];
    // Particle 1 lists 3 and wall 0 (the candidate n + 0 = 6), 3 lists 1 and 5, 5 lists 3.
    let nbr_j = vec![3u32, 6, 1, 5, 3];
    let owners: Vec<u32> = entry_owners(&nbr_start).collect();
    assert_eq!(owners, vec![1, 1, 3, 3, 5]);
    let pair_start = pair_starts(&nbr_start, &nbr_j);
    assert_eq!(pair_start, vec![0, 0, 2, 2, 3, 3, 3]);
    // (1, 3) is record 0, (1, wall) record 1, (3, 5) record 2.
    let pair_i: Vec<u32> = entry_owners(&pair_start).collect();
    assert_eq!(pair_i, vec![1, 1, 3]);
}

/// `grains check` counts the list a run starts from without building it
/// (`overlaps::initial_list`): on a jittered lattice of spheres in a walled box, at two skins,
/// its entries and records are those of the CPU backend's first rebuild exactly. It fails if
/// the count used another cut-off than the broad phase's or missed the walls.
#[test]
fn the_initial_list_count_is_the_first_rebuilds_list() {
    let text = std::fs::read_to_string(grains_tests::workspace_root().join("scenes/settle.toml"))
        .expect("scenes/settle.toml")
        .replace("count = [40, 40, 13]", "count = [16, 16, 8]");
    for skin in ["0.001", "0.0003"] {
        let text = text.replace("skin = 0.001", &format!("skin = {skin}"));
        let world = grains_scene::parse_scene(&text, std::path::Path::new("settle.toml"))
            .expect("scene")
            .world;
        let count = grains_core::overlaps::initial_list(&world);
        let b = CpuBackend::new(world).expect("backend");
        assert!(count.records > b.pos.len(), "{count:?}");
        assert_eq!(
            count.entries as u64,
            b.counters().neighbour_entries,
            "entries, skin {skin}"
        );
        assert_eq!(count.records, b.list.pair_j.len(), "records, skin {skin}");
    }
}

/// The start-up grid (`overlaps::pairs_within`, which the overlap report, the initial list
/// count and `touching = true` bonds use) against every pair by brute force, by minimum image:
/// polydisperse spheres in a box, periodic on two axes, one of which has fewer than three
/// cells (so that neighbour cells repeat), a wide sparse box (many empty cells, few buckets),
/// with and without a gap. The parallel fold visits the same pairs with the same depths.
#[test]
fn start_up_pairs_match_brute_force() {
    use grains_core::overlaps::{fold_pairs_within, pairs_within};
    let cases = [
        (0.02, [true, false, true], 0.0, 1500),
        (0.02, [false, false, false], 0.0005, 1500),
        (0.004, [true, true, false], 0.0002, 300),
        (2.0, [false, true, false], 0.0, 800),
    ];
    for (c, &(l, periodic, gap, n)) in cases.iter().enumerate() {
        let mut rng = SplitMix(0xB0A7 + c as u64);
        let pos: Vec<[f32; 4]> = (0..n)
            .map(|_| {
                let x = [0, 1, 2].map(|_| rng.range(0.0, l) as f32);
                // Every tenth sphere placed next to the one before, so that sparse boxes
                // have pairs too.
                [x[0], x[1], x[2], rng.range(0.0003, 0.0012) as f32]
            })
            .collect();
        let pos: Vec<[f32; 4]> = pos
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if i % 10 == 1 {
                    let q = pos[i - 1];
                    [(q[0] + 0.0015) % l as f32, q[1], q[2], p[3]]
                } else {
                    *p
                }
            })
            .collect();
        let domain = Domain {
            min: [0.0; 3],
            max: [l; 3],
            periodic,
        };
        let mut brute = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (pos[i], pos[j]);
                let mut r2 = 0.0f64;
                for k in 0..3 {
                    let mut x = b[k] as f64 - a[k] as f64;
                    if periodic[k] {
                        x -= l * (x / l).round();
                    }
                    r2 += x * x;
                }
                let depth = a[3] as f64 + b[3] as f64 - r2.sqrt();
                if depth > -gap {
                    brute.push((i as u32, j as u32));
                }
            }
        }
        let found = pairs_within(&pos, &domain, gap);
        let mut got: Vec<(u32, u32)> = found.iter().map(|&(i, j, _)| (i, j)).collect();
        assert!(
            got.windows(2).all(|w| w[0].0 <= w[1].0),
            "case {c}: not in i order"
        );
        got.sort_unstable();
        assert!(!brute.is_empty(), "case {c}: no pairs to find");
        let missed: Vec<_> = brute
            .iter()
            .filter(|p| got.binary_search(p).is_err())
            .collect();
        let extra: Vec<_> = got
            .iter()
            .filter(|p| brute.binary_search(p).is_err())
            .collect();
        assert!(
            missed.is_empty() && extra.is_empty() && got.len() == brute.len(),
            "case {c}: {} found, {} by brute force; missed {missed:?}, extra {extra:?}",
            got.len(),
            brute.len()
        );
        let folded = fold_pairs_within(
            &pos,
            &domain,
            gap,
            Vec::new,
            |v, i, j, d| v.push((i, j, d)),
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        let (mut folded, mut found) = (folded, found);
        folded.sort_by_key(|p| (p.0, p.1));
        found.sort_by_key(|p| (p.0, p.1));
        assert!(
            folded == found,
            "case {c}: the parallel fold's pairs differ"
        );
    }
}
