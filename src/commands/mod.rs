pub mod analyze;
pub mod bench;
pub mod bench_analysis;
pub mod check;
pub mod demo;
pub mod experiment;
pub mod gen;
pub mod simulate;
