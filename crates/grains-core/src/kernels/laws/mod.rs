//! Force laws, one module each: its parameter and history structs, its scene keys, mixing,
//! range, time-step estimate (the [`crate::law::Law`] trait), its parity inputs and tolerance
//! (the [`crate::law::LawTwin`] trait) and its CPU twin
//! `law_<name>(geom, params, [history,] force)`, which only adds into the
//! [`crate::kernel_types::ContactForce`]; a chain is the ordered list of calls. Laws are called
//! only while the pair is within the chain's interaction range.
//!
//! The table below is the registry of laws: one line per law (variant, module, type). It
//! declares the module and generates `LawKind`, `LawSpec` and every dispatch over them
//! (`crate::registry`).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{
    CollisionContext, FieldOffsets, Law, LawKeys, LawTwin, PairContext, SpringShape, Word,
};
use crate::parity::SplitMix;
use crate::registry::{words, ParityWords, Slot};

crate::registry::laws! {
    Linear => linear::Linear,
    Hertz => hertz::Hertz,
    HertzDamped => hertz_damped::HertzDamped,
    Viscous => viscous::Viscous,
    CundallStrack => cundall_strack::CundallStrack,
    Jkr => jkr::Jkr,
    Dmt => dmt::Dmt,
    MaugisDugdale => maugis_dugdale::MaugisDugdale,
    HuntCrossley => hunt_crossley::HuntCrossley,
    Gonthier => gonthier::Gonthier,
    Eepa => eepa::Eepa,
    HaffWerner => haff_werner::HaffWerner,
    RegularizedCoulomb => regularized_coulomb::RegularizedCoulomb,
    LinearDamper => linear_damper::LinearDamper,
    LinearDamperOverlap => linear_damper_overlap::LinearDamperOverlap,
    TorsionalCoulomb => torsional_coulomb::TorsionalCoulomb,
    RollingConstantTorque => rolling_constant_torque::RollingConstantTorque,
    RollingSpring => rolling_spring::RollingSpring,
    LinearAdhesion => linear_adhesion::LinearAdhesion,
    PresetForce => preset_force::PresetForce,
    ConstantForce => constant_force::ConstantForce,
    Lubrication => lubrication::Lubrication,
    LinearPressure => linear_pressure::LinearPressure,
    LinEl6 => lin_el6::LinEl6,
    Spring => spring::Spring,
    SpringDamper => spring_damper::SpringDamper,
    SerialDashpot => serial_dashpot::SerialDashpot,
    ConstantResistance => constant_resistance::ConstantResistance,
    AreaWeightedResistance => area_weighted_resistance::AreaWeightedResistance,
    MaterialSpecificConstantResistance => material_specific_constant_resistance::MaterialSpecificConstantResistance,
    MaterialSpecificAreaWeightedResistance => material_specific_area_weighted_resistance::MaterialSpecificAreaWeightedResistance,
    MaskedConstantResistance => masked_constant_resistance::MaskedConstantResistance,
    MeshWeightedResistance => mesh_weighted_resistance::MeshWeightedResistance,
    LubricationResistance => lubrication_resistance::LubricationResistance,
    ConstantStiffness => constant_stiffness::ConstantStiffness,
    DividingResistance => dividing_resistance::DividingResistance,
    Delile => delile::Delile,
    Dividing => dividing::Dividing,
    Budding => budding::Budding,
    DmtCapsule => dmt_capsule::DmtCapsule,
    ContactMatrix => contact_matrix::ContactMatrix,
}
