//! CPU twins of the shell elements (`shaders/shell/`): the two resolvers of a mesh edge and the
//! laws of a shell's slots. The passes that run them are `kernels/passes/shell_edges.rs`,
//! `shell_volume.rs` and `shell_gather.rs`; the host side (meshes, per-edge coefficients) is
//! [`crate::shells`].
//!
//! A shell's slots, each one law (scene keys in `scenes/README.md`):
//!
//! | slot | laws |
//! |---|---|
//! | `stretch` | `elastic_shell_spring` |
//! | `bending` | `linear_bending`, `elastic_bending`, `elastic_shell_bending` |
//! | `damping` | `shell_viscosity`, `maxwell_shell` |
//! | `volume` | `volume_conservation` |
//!
//! Adding a law of one of these slots: its module here (twin function, keys, coefficient),
//! its WGSL file in `shaders/shell/` (included by the pass that runs the slot), and its arm in
//! the slot's enum below.

pub mod area_conservation;
pub mod elastic_bending;
pub mod elastic_shell_spring;
pub mod linear_bending;
pub mod maxwell_shell;
pub mod node_node_shell;
pub mod node_to_segment;
pub mod node_to_triangle;
pub mod penalty;
pub mod segment_segment_common_node;
pub mod shell_viscosity;
pub mod triangle_triangle_common_edge;
pub mod volume_conservation;

use crate::law::{required, LawKeys};
use crate::material::Material;

/// The in-plane law of a shell's edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StretchLaw {
    /// Van Gelder springs ([`elastic_shell_spring`]).
    ElasticShellSpring,
}

/// The bending law of a shell's hinges. `theta0`: the reference angle (rad) given in the
/// scene, or `None` for each hinge's initial angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BendingLaw {
    /// `E = k_b (theta - theta0)^2 / 2` ([`linear_bending`]).
    Linear { stiffness: f64, theta0: Option<f64> },
    /// `E = k_b (1 - cos(theta - theta0))` ([`elastic_bending`]).
    Elastic { stiffness: f64, theta0: Option<f64> },
    /// [`elastic_bending`] with `k_b` from the shell's E, nu and thickness.
    ElasticShell { theta0: Option<f64> },
}

/// The damping law of a shell's edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DampingLaw {
    /// Viscosity `mu` (Pa s) ([`shell_viscosity`]).
    ShellViscosity { viscosity: f64 },
    /// Maxwell relaxation time (s) ([`maxwell_shell`]).
    MaxwellShell { relaxation_time: f64 },
}

/// The enclosed-volume law of a closed shell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VolumeLaw {
    /// `k_v` (Pa) of [`volume_conservation`].
    pub stiffness: f64,
}

/// The laws of one shell, slot by slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShellLaws {
    pub stretch: Option<StretchLaw>,
    pub bending: Option<BendingLaw>,
    pub damping: Option<DampingLaw>,
    pub volume: Option<VolumeLaw>,
}

/// A shell slot: its scene key and the laws it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellSlot {
    Stretch,
    Bending,
    Damping,
    Volume,
}

impl ShellSlot {
    pub const ALL: [ShellSlot; 4] = [
        ShellSlot::Stretch,
        ShellSlot::Bending,
        ShellSlot::Damping,
        ShellSlot::Volume,
    ];

    /// The scene key of the slot.
    pub fn key(self) -> &'static str {
        match self {
            ShellSlot::Stretch => "stretch",
            ShellSlot::Bending => "bending",
            ShellSlot::Damping => "damping",
            ShellSlot::Volume => "volume",
        }
    }

    /// `(keyword, keys besides law)` of the laws the slot accepts.
    pub fn laws(self) -> &'static [(&'static str, &'static [&'static str])] {
        match self {
            ShellSlot::Stretch => &[(elastic_shell_spring::KEYWORD, &[])],
            ShellSlot::Bending => &[
                (linear_bending::KEYWORD, linear_bending::KEYS),
                (elastic_bending::KEYWORD, elastic_bending::KEYS),
                (elastic_bending::SHELL_KEYWORD, elastic_bending::SHELL_KEYS),
            ],
            ShellSlot::Damping => &[
                (shell_viscosity::KEYWORD, shell_viscosity::KEYS),
                (maxwell_shell::KEYWORD, maxwell_shell::KEYS),
            ],
            ShellSlot::Volume => &[(volume_conservation::KEYWORD, volume_conservation::KEYS)],
        }
    }

    /// "`a`, `b`" for messages.
    pub fn accepted(self) -> String {
        let words: Vec<String> = self
            .laws()
            .iter()
            .map(|(w, _)| format!("\"{w}\""))
            .collect();
        words.join(", ")
    }
}

/// The reference angle key shared by the bending laws: a number (rad) or `"initial"`.
fn reference_angle<K: LawKeys>(keys: &K) -> Result<Option<f64>, K::Error> {
    if !keys.has("reference_angle") {
        return Ok(None);
    }
    if let Ok(Some(s)) = keys.string("reference_angle", "") {
        return if s == "initial" {
            Ok(None)
        } else {
            Err(keys.error(
                "reference_angle",
                format!(
                    "expected an angle (rad) or \"initial\", found {}",
                    keys.found("reference_angle")
                ),
            ))
        };
    }
    keys.number("reference_angle", "an angle (rad) or \"initial\"")
}

impl ShellLaws {
    /// Set slot `slot` to law `word` with its keys (the caller refused unknown keys).
    pub fn parse<K: LawKeys>(
        &mut self,
        slot: ShellSlot,
        word: &str,
        keys: &K,
    ) -> Result<(), K::Error> {
        let positive = |k: &str, unit: &str| -> Result<f64, K::Error> {
            let v = keys.positive(k, unit)?;
            required(keys, k, &format!("a positive number ({unit})"), v)
        };
        match (slot, word) {
            (ShellSlot::Stretch, elastic_shell_spring::KEYWORD) => {
                self.stretch = Some(StretchLaw::ElasticShellSpring)
            }
            (ShellSlot::Bending, linear_bending::KEYWORD) => {
                self.bending = Some(BendingLaw::Linear {
                    stiffness: positive("stiffness", "J")?,
                    theta0: reference_angle(keys)?,
                })
            }
            (ShellSlot::Bending, elastic_bending::KEYWORD) => {
                self.bending = Some(BendingLaw::Elastic {
                    stiffness: positive("stiffness", "J")?,
                    theta0: reference_angle(keys)?,
                })
            }
            (ShellSlot::Bending, elastic_bending::SHELL_KEYWORD) => {
                self.bending = Some(BendingLaw::ElasticShell {
                    theta0: reference_angle(keys)?,
                })
            }
            (ShellSlot::Damping, shell_viscosity::KEYWORD) => {
                self.damping = Some(DampingLaw::ShellViscosity {
                    viscosity: positive("viscosity", "Pa s")?,
                })
            }
            (ShellSlot::Damping, maxwell_shell::KEYWORD) => {
                self.damping = Some(DampingLaw::MaxwellShell {
                    relaxation_time: positive("relaxation_time", "s")?,
                })
            }
            (ShellSlot::Volume, volume_conservation::KEYWORD) => {
                self.volume = Some(VolumeLaw {
                    stiffness: positive("stiffness", "Pa")?,
                })
            }
            _ => {
                return Err(keys.error(
                    "law",
                    format!(
                        "unknown {} law \"{word}\"; accepted: {}",
                        slot.key(),
                        slot.accepted()
                    ),
                ))
            }
        }
        Ok(())
    }
}

impl BendingLaw {
    /// The law's code in [`crate::shells::ShellEdgeParams::bend_law`] (0: none).
    pub fn code(&self) -> u32 {
        match self {
            BendingLaw::Linear { .. } => linear_bending::CODE,
            BendingLaw::Elastic { .. } | BendingLaw::ElasticShell { .. } => elastic_bending::CODE,
        }
    }

    /// `k_b` (J) for a shell of `material` and `thickness` (m).
    pub fn stiffness(&self, material: &Material, thickness: f64) -> f64 {
        match *self {
            BendingLaw::Linear { stiffness, .. } | BendingLaw::Elastic { stiffness, .. } => {
                stiffness
            }
            BendingLaw::ElasticShell { .. } => {
                elastic_bending::shell_stiffness(material.young, material.poisson, thickness)
            }
        }
    }
}
