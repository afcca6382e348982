//! What a policy returns: where each job runs from now on, and what the engine must do.

use crate::job::JobId;
use crate::server::ServerId;
use kairos_model::Instant;

/// A timer a policy arms, named by the policy (ids are the policy's own; arming an id that is
/// armed moves it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(pub u32);

/// Something the engine carries out for the policy, in the order given, before it places jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Call [`crate::Policy::timer_fired`] at `at` (which must not be in the past), then decide.
    ArmTimer { timer: TimerId, at: Instant },
    /// Forget the timer if it is armed.
    CancelTimer(TimerId),
    /// Remove the job unfinished (counted as discarded, never as a miss: the policy dropped it on
    /// purpose, like the mixed-criticality discard model).
    Discard(JobId),
    /// Enforce the job's budget: it runs no more, but stays an unfinished job of the system, so
    /// it misses its deadline. No later decision may place it.
    Stop(JobId),
    /// End the job's optional part now, unfinished (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP, `terminate_optional`, or the
    /// skip of `end_mandatory` past the optional deadline): its wind-up part becomes the
    /// current part. Only for a job in its optional part. Cut at the instant the part began,
    /// with nothing executed, the part counts as skipped.
    CutOptional(JobId),
    /// Change the system's criticality mode to level `to` (an index into the system's levels;
    /// single-criticality workloads have level 0 only). `triggers` are the jobs whose overrun
    /// caused it (none for a return to a lower level). The engine reports
    /// [`crate::Policy::mode_changed`] and asks for a new decision at the same instant: the
    /// placement of a decision that changed the mode is not applied.
    ChangeMode { to: usize, triggers: Vec<JobId> },
}

/// What a policy promises to place at a later instant if nothing happens before it but that
/// instant's releases and timers: no completion, no budget overrun, no other event. A
/// time-triggered policy knows its next placement (a table's next boundary); a dispatcher on
/// real cores prepares it so that the switch happens at `at` itself, not a timer interrupt and
/// a wake-up later, and the decision at `at` confirms or corrects it.
///
/// The promise binds: the simulator refuses a decision at `at` that differs from it when
/// nothing but releases and timers happened and the decision changes no mode. Jobs named here
/// are released by `at` (open now, or released exactly then).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ahead {
    pub at: Instant,
    pub cores: Vec<Option<JobId>>,
}

/// A policy's decision at one instant.
///
/// `cores[c]` is the job core `c` runs from now on (`None`: idle). The engine checks it (one
/// entry per core, only released unfinished jobs, no job on two cores) and refuses an impossible
/// decision with a typed error instead of guessing. A policy with servers also says which
/// server each core runs (`servers[c]`, one entry per core); a job may run only on a core whose
/// server may run it ([`crate::server`]). `ahead`, if any, is the placement the
/// policy promises for a later instant ([`Ahead`]).
#[must_use = "a decision does nothing until the engine applies it"]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub cores: Vec<Option<JobId>>,
    /// Per core, the server placed there; empty for a policy without servers.
    pub servers: Vec<Option<ServerId>>,
    pub actions: Vec<Action>,
    pub ahead: Option<Ahead>,
}

impl Decision {
    /// Every core idle, no action.
    pub fn idle(cores: usize) -> Decision {
        Decision {
            cores: vec![None; cores],
            servers: Vec::new(),
            actions: Vec::new(),
            ahead: None,
        }
    }

    /// Every core idle with no server placed, no action (for a policy with servers).
    pub fn idle_with_servers(cores: usize) -> Decision {
        Decision {
            servers: vec![None; cores],
            ..Decision::idle(cores)
        }
    }
}
