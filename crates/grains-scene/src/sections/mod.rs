//! One module per top-level block of a scene file, each reading its block(s) into the parts of
//! the scene it builds. [`crate::parse`] reads them in file-format order and then runs the
//! checks that need several blocks ([`crate::checks`]).

pub(crate) mod domain;
pub(crate) mod insert;
pub(crate) mod material;
pub(crate) mod particles;
pub(crate) mod shell;
pub(crate) mod simulation;
pub(crate) mod wall;
