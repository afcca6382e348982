//! Benchmarks of kairos itself: the simulator beside SimSo, the analysis tests on SchedCAT's
//! oracle sets, both at scale on generated sets, table synthesis on the user's systems.

pub mod analysis;
pub mod dispatch;
pub mod overheads;
pub mod rmwp;
mod rmwp_plot;
pub mod scale;
pub mod simulator;
pub mod synth;
pub mod table;
mod table_report;
pub mod timer;
pub mod vmm;

pub use table_report::Report as TableReport;
