//! One module per top-level block of a scene file, each reading its block(s) into the parts of
//! the scene it builds. [`crate::parse`] reads them in a fixed order and runs each check that
//! needs several blocks ([`crate::checks`]) once those blocks are read.

pub(crate) mod bond;
pub(crate) mod cells;
pub(crate) mod domain;
pub(crate) mod initial;
pub(crate) mod insert;
pub(crate) mod interaction;
pub(crate) mod material;
pub(crate) mod output;
pub(crate) mod particles;
pub(crate) mod ring;
pub(crate) mod shell;
pub(crate) mod simulation;
pub(crate) mod wall;
