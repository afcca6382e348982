//! The shared checks of the fuzz targets.

pub mod invariants;
