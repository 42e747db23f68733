//! The one test binary of grains. Each module covers one area:
//!
//! - `physics`: contact laws and integrator against closed forms, energy and momentum (CPU).
//! - `eepa`: the elasto-plastic adhesive model's branches, restitution and ledger (CPU).
//! - `dampers`: the linear dashpots, on contacts and on fixed pairs at a distance (CPU).
//! - `extra`: the extra slot's laws against the motion they produce (CPU).
//! - `friction`: the viscous Coulomb laws against the slip-to-roll transition (CPU).
//! - `restitution`: the impact models against their exact restitution relation (CPU).
//! - `rolling`: rolling resistance and torsional friction on a sphere on a plane (CPU).
//! - `lin_el6`: the six-spring elastic model's modes and energy on a fixed pair (CPU).
//! - `planar`: the 2-D mode: spheres kept in a plane, against 3-D runs and a closed form.
//! - `schedule`: the step's passes as the world needs them.
//! - `sources`: the pair sources; the fixed-topology source against the neighbour list.
//! - `capsules`: the capsule shape: free rigid-body motion, impacts, a pour, parity, errors.
//! - `clumps`: rigid clumps of spheres: free motion, rest on a floor, a pour, parity, errors.
//! - `meshes`: triangle-mesh walls: the contact fraction on a floor, parity, the STL hopper.
//! - `springs`: springs on bonds against closed forms, `[[bond]]`, rupture, the chain scene.
//! - `broad_phase`: candidate list against brute force, no missed contacts, history carry-over.
//! - `determinism`: bitwise identical output run to run.
//! - `scene_errors`: every kind of broken scene gives its precise message.
//! - `scene_reference`: `docs/scenes.md` lists exactly the keys the parser accepts, table by
//!   table; every contact and shell law has its row in `scenes/README.md`.
//! - `io`: VTK, PVD and CSV output.
//! - `shaders`: composition, naga validation, WGSL/Rust twin pairing, struct layouts.
//! - `gpu`: CPU/GPU parity of every element, pass and scene; GPU determinism.
//! - `resume`: every checkpoint of a violent run resumes, on both backends, to the same end.
//! - `cli`: the `grains` binary end to end.
//! - `plot`: `grains plot` on a run's output: figures, the tables behind them, messages.
//! - `applied`: forces applied and particles fixed or released between steps: closed forms,
//!   ledger, checkpoints, refusals, the `applied_power` pass against its twin (both backends).
//! - `guard_rails`: scenes refused before they run, blow-ups and lost particles caught at their
//!   step, Ctrl-C, messages, and a fuzz of the scene parser.

// Literals copied from data files keep their written digits, and formulas over xyz read best
// as index loops.
#![allow(clippy::excessive_precision, clippy::needless_range_loop)]

mod adhesion;
mod applied;
mod broad_phase;
mod capsules;
mod cells;
mod cli;
mod clumps;
mod dampers;
mod determinism;
mod eepa;
mod extra;
mod friction;
mod gpu;
mod guard_rails;
mod insert;
mod io;
mod lin_el6;
mod mesh_motion;
mod meshes;
mod overdamped;
mod overrides;
mod physics;
mod planar;
mod plot;
mod post;
mod python;
mod resistance;
mod restitution;
mod resume;
mod rings;
mod rolling;
mod scene_errors;
mod scene_reference;
mod schedule;
mod servo;
mod shaders;
mod shells;
mod sources;
mod springs;
mod stages;
mod stress;
mod walls;
