//! Compositional schedulability analysis of virtual machines (RT-Xen 2.0's CSA: Xi et al.,
//! "Real-Time Multi-Core Virtual Machine Scheduling in Xen", EMSOFT 2014, section II-B):
//! each domain's interface from its tasks and guest scheduler, its VCPUs, and the VMM's
//! verdict on all VCPUs.
//!
//! | module | what | paper |
//! |---|---|---|
//! | [`supply`] | the [`Supply`] trait; PRM and MPR supply bound functions | Shin & Lee RTSS 2003; Easwaran, Shin & Lee RTS 2009 |
//! | [`edf`] | EDF and DM components on one VCPU | Shin & Lee RTSS 2003 |
//! | [`gedf`] | a gEDF component on an MPR | Easwaran, Shin & Lee RTS 2009, Theorem 1 |
//! | [`interface`] | least budgets, MPR to VCPUs | both |
//! | [`packing`] | tasks to VCPUs, VCPUs to cores | Xi et al. EMSOFT 2014, section V-B |
//! | [`system`] | a whole VM file: interfaces and the VMM verdict | |
//! | [`resolve`] | the file with its computed VCPUs written in | |
//! | [`overheads`] | the same with the measured overheads charged level by level | Phan et al. RTAS 2013 (principle) |
//!
//! gDM guests (Xu et al., RTAS 2014) are not analysed: the report says so.

pub mod edf;
pub mod gedf;
pub mod interface;
pub mod overheads;
pub mod packing;
pub mod resolve;
pub mod supply;
pub mod system;

pub use overheads::analyze_with_overheads;
pub use resolve::{with_vcpus, NoInterface};
pub use supply::{Mpr, Prm, Supply};
pub use system::{
    analyze, interfaces, with_interfaces, CsaReport, DomainInterface, VcpuInterface, VmmVerdict,
};
