//! Uniprocessor schedulability tests, one module per algorithm: exact fixed-priority
//! response-time analysis with Lehoczky's busy-period extension for deadlines beyond periods
//! ([`fp_rta`], CLI `uni-fp-rta`), the exact EDF processor-demand test searched with QPA
//! ([`edf_qpa`], CLI `uni-edf-qpa`, with its brute-force twin
//! [`edf_qpa::dbf_check_all_deadlines`]), and the Liu & Layland and hyperbolic utilization
//! bounds for rate-monotonic priorities ([`bounds`]). Verdicts are decided in exact integer
//! arithmetic (`u128`, and arbitrary precision for utilization sums in [`utilization`]); only
//! the irrational Liu & Layland bound uses floats, with a margin toward "no". The partitioning
//! heuristics ([`crate::partition`]) use these tests as per-core admission.

pub mod bounds;
pub mod edf_qpa;
pub mod fp_rta;
pub mod utilization;

pub use bounds::{hyperbolic, liu_layland};
pub use fp_rta::{
    deadline_monotonic, deadline_monotonic_order, explicit_order, rate_monotonic,
    rate_monotonic_order, response_times,
};
pub use utilization::{density_at_most_one, utilization_at_most_one};
