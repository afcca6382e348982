//! `kairos synth --overheads`: the tables of the system whose WCETs pay the slot guard of a
//! measured overhead profile (`kairos_analysis::overheads::tables`, which names its sources and
//! says why the guard is charged per slot), and what was charged.

use super::Request;
use crate::Failure;
use kairos_analysis::overheads::tables::{guard, GuardedTask, Refusal, SlotGuard};
use kairos_analysis::overheads::{Charges, Quantile};
use kairos_model::{McSystem, Overheads};
use serde::Serialize;

/// The overheads to charge.
#[derive(Clone, Copy, Debug)]
pub struct OverheadRequest {
    /// A profile (`kairos bench overheads --out` writes one).
    pub profile: Overheads,
    pub quantile: Quantile,
}

/// What `kairos synth --overheads` charged (`overheads` in its JSON).
#[derive(Clone, Debug, Serialize)]
pub struct TableCharges {
    pub quantile: Quantile,
    /// Each overhead at that quantile, ns.
    pub charges: Charges,
    /// The slot, its guard `g` and the mode change's cost, ns.
    pub slot_guard: SlotGuard,
    /// `slot - g`, ns (0 when the guard fills the slot).
    pub usable_ns: u64,
    /// Every task's WCETs before and after the guard, ns (empty when refused).
    pub tasks: Vec<GuardedTask>,
}

/// The guarded system, or why it cannot have tables, with what was charged.
pub(super) struct Charged {
    pub summary: TableCharges,
    guarded: Result<McSystem, Refusal>,
}

impl Charged {
    /// The system to synthesize, or why none can be.
    pub fn system(&self) -> Result<&McSystem, &Refusal> {
        self.guarded.as_ref()
    }
}

/// `system` with the slot guard of `asked` charged for the cores `request` synthesizes on.
/// A system without a slot grid is bad input, reported as synthesis reports it.
pub(super) fn charge(
    request: &Request,
    system: &McSystem,
    asked: &OverheadRequest,
) -> Result<Charged, Failure> {
    kairos_mc::grid::Grid::of(system)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", request.file)))?;
    let charges = Charges::at(&asked.profile, asked.quantile);
    let cores = request.cores.unwrap_or(system.cores);
    let slot = system.slot().unwrap_or_default();
    let (slot_guard, tasks, guarded) = match guard(system, cores, &charges) {
        Ok(g) => (g.guard, g.tasks, Ok(g.system)),
        Err(refusal) => (
            SlotGuard::new(slot, cores, &charges),
            Vec::new(),
            Err(refusal),
        ),
    };
    let summary = TableCharges {
        quantile: asked.quantile,
        charges,
        slot_guard,
        usable_ns: slot_guard.usable().map_or(0, |d| d.as_nanos()),
        tasks,
    };
    Ok(Charged { summary, guarded })
}

/// The system `kairos synth --overheads` synthesized for (the WCETs with the guard of `asked`
/// on `cores` cores), to check its tables against (`kairos validate-tables --overheads`); why
/// there is none otherwise.
pub fn guarded_system(
    system: &McSystem,
    cores: usize,
    asked: &OverheadRequest,
) -> Result<McSystem, Refusal> {
    let charges = Charges::at(&asked.profile, asked.quantile);
    guard(system, cores, &charges).map(|g| g.system)
}
