pub mod bench;
pub mod check;
pub mod demo;
pub mod simulate;
