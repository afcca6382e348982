//! The rules `kairos check` applies to a decoded managed system (docs/manage.md lists them).

use super::decode::GivenAllocation;
use crate::decode::SourceMap;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::managed::{
    Allocation, BestEffortWork, Execution, ManagedSystem, JOB_WORKS, MAX_CFS_PERIOD, MIN_CFS,
    STRESSORS,
};
use crate::time::Duration;
use std::collections::HashSet;

/// Located error reporting for one system.
struct Rules<'a> {
    map: &'a SourceMap,
    out: &'a mut Diagnostics,
}

impl Rules<'_> {
    /// Where `path` is, or its table's first field when the path names a whole table.
    fn position(&self, path: &str) -> Option<crate::diagnostics::Position> {
        self.map
            .get(path)
            .or_else(|| self.map.get(&format!("{path}.core")))
            .or_else(|| self.map.get(&format!("{path}.name")))
    }

    fn error(&mut self, path: &str, message: String, hint: &str) {
        let position = self.position(path);
        self.out.push(
            Diagnostic::error(message)
                .at_path(path)
                .at_position(position)
                .with_hint(hint),
        );
    }
    fn warning(&mut self, path: &str, message: String, hint: &str) {
        let position = self.position(path);
        self.out.push(
            Diagnostic::warning(message)
                .at_path(path)
                .at_position(position)
                .with_hint(hint),
        );
    }
}

/// Checks the system and fills its allocations (one per core, defaults for cores the file
/// leaves out).
pub(super) fn apply(
    system: &mut ManagedSystem,
    given: &[GivenAllocation],
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let mut rules = Rules { map, out };
    if system.cores == 0 {
        rules.error(
            "cores",
            "a system needs at least one core".into(),
            "cores = 2",
        );
        return;
    }
    if system.rt.core.0 >= system.cores {
        let m = format!(
            "core {} does not exist (cores = {})",
            system.rt.core.0, system.cores
        );
        rules.error("rt.core", m, "cores count from 0");
    }
    periods(system, &mut rules);
    task(system, &mut rules);
    system.allocations = allocations(system, given, &mut rules);
    best_effort(system, &mut rules);
}

fn periods(system: &ManagedSystem, rules: &mut Rules) {
    let (p, rt) = (system.manager.period, &system.rt);
    if p < MIN_CFS || p > MAX_CFS_PERIOD {
        let m = format!("the enforcing period {p} is outside the kernel's CFS bandwidth range");
        rules.error("manager.period", m, "choose P between 1ms and 1s");
    }
    match system.manager.execution {
        Execution::Free if p != rt.period => rules.error(
            "manager.period",
            format!(
                "free execution enforces over the RT period: P = {p}, A = {}",
                rt.period
            ),
            "set the period to the RT task's period (figure 1a), or execution = \"constrained\"",
        ),
        Execution::Constrained if rt.period.as_nanos() % p.as_nanos().max(1) != 0 => rules.error(
            "manager.period",
            format!("P = {p} does not divide the RT period A = {}", rt.period),
            "constrained execution splits each job over whole periods: A = k P",
        ),
        Execution::Constrained if rt.deadline < p => rules.error(
            "manager.period",
            format!("P = {p} is longer than the deadline {}", rt.deadline),
            "a constrained job needs at least one whole period before its deadline",
        ),
        _ => {}
    }
}

fn task(system: &ManagedSystem, rules: &mut Rules) {
    let rt = &system.rt;
    if rt.deadline > rt.period {
        let m = format!("deadline {} exceeds the period {}", rt.deadline, rt.period);
        rules.error("rt.deadline", m, "kairos manages one job at a time: D <= A");
    }
    if system.manager.margin >= rt.deadline {
        let m = format!(
            "the margin {} leaves no time before the deadline {}",
            system.manager.margin, rt.deadline
        );
        rules.error("manager.margin", m, "the target is deadline - margin");
    }
    if let Some(w) = rt.wcet.filter(|w| *w > rt.deadline) {
        let m = format!(
            "W = {w} exceeds the deadline {}: no allocation meets it",
            rt.deadline
        );
        rules.error("rt.wcet", m, "W is measured in isolation (section III-A)");
    }
    if !JOB_WORKS.contains(&rt.work.as_str()) {
        let m = format!("unknown job work {:?}", rt.work);
        rules.error("rt.work", m, &format!("one of {}", JOB_WORKS.join(", ")));
    }
}

fn allocations(
    system: &ManagedSystem,
    given: &[GivenAllocation],
    rules: &mut Rules,
) -> Vec<Allocation> {
    let mut out: Vec<Option<Allocation>> = vec![None; system.cores];
    for (i, &(core, rt, be)) in given.iter().enumerate() {
        let path = format!("allocations[{i}]");
        let Some(slot) = out.get_mut(core) else {
            let m = format!("core {core} does not exist (cores = {})", system.cores);
            rules.error(&format!("{path}.core"), m, "cores count from 0");
            continue;
        };
        if slot.is_some() {
            rules.error(
                &format!("{path}.core"),
                format!("core {core} is allocated twice"),
                "one [[allocations]] table per core",
            );
            continue;
        }
        *slot = Some(one_allocation(system, core, rt, be, &path, rules));
    }
    (0..system.cores)
        .map(|c| out[c].unwrap_or_else(|| default_allocation(system, c, rules)))
        .collect()
}

fn default_allocation(system: &ManagedSystem, core: usize, rules: &mut Rules) -> Allocation {
    let p = system.manager.period;
    if core != system.rt.core.0 {
        return Allocation {
            rt: Duration::ZERO,
            be: p,
        };
    }
    if system.manager.execution == Execution::Constrained {
        rules.error(
            "rt",
            format!("constrained execution needs the RT reservation of core {core}"),
            &format!("add [[allocations]] with core = {core} and rt = S_RT (equation 6)"),
        );
    }
    Allocation {
        rt: p,
        be: Duration::ZERO,
    }
}

fn one_allocation(
    system: &ManagedSystem,
    core: usize,
    rt: Option<Duration>,
    be: Option<Duration>,
    path: &str,
    rules: &mut Rules,
) -> Allocation {
    let p = system.manager.period;
    let is_rt = core == system.rt.core.0;
    if rt.is_some_and(|r| !r.is_zero()) && !is_rt {
        rules.error(
            &format!("{path}.rt"),
            format!("core {core} runs no RT task"),
            "S_RT belongs on the RT core only",
        );
    }
    if is_rt && rt.is_none() && system.manager.execution == Execution::Constrained {
        rules.error(
            &format!("{path}.core"),
            "constrained execution needs S_RT on the RT core".into(),
            "rt = \"6ms\"",
        );
    }
    let be = be.unwrap_or(if is_rt { Duration::ZERO } else { p });
    let rt = match (is_rt, rt) {
        (true, Some(r)) => r,
        (true, None) => p.saturating_sub(be),
        (false, _) => Duration::ZERO,
    };
    if !be.is_zero() && be < MIN_CFS {
        rules.error(
            &format!("{path}.be"),
            format!("S_BE = {be} is below the kernel's smallest CFS quota"),
            "give 0 or at least 1ms",
        );
    }
    if is_rt && system.manager.execution == Execution::Constrained && rt.is_zero() {
        rules.error(
            &format!("{path}.rt"),
            "a constrained RT task needs a reservation".into(),
            "rt = \"6ms\"",
        );
    }
    let allocation = Allocation { rt, be };
    if allocation.idle(p).is_none() {
        rules.error(
            path,
            format!("S_RT + S_BE = {} exceeds the period P = {p}", rt + be),
            "equation 2: S_RT + S_BE + S_I = P on every core",
        );
    }
    allocation
}

fn best_effort(system: &ManagedSystem, rules: &mut Rules) {
    if system.best_effort.is_empty() {
        rules.warning(
            "",
            "no best-effort programs: nothing competes with the RT task".into(),
            "add [[best_effort]] tables",
        );
    }
    let mut names = HashSet::new();
    for (i, be) in system.best_effort.iter().enumerate() {
        let path = format!("best_effort[{i}]");
        if !names.insert(be.name.as_str()) {
            rules.error(
                &format!("{path}.name"),
                format!("duplicate program name `{}`", be.name),
                "names are unique",
            );
        }
        match system.allocations.get(be.core.0) {
            None => rules.error(
                &format!("{path}.core"),
                format!("core {} does not exist", be.core.0),
                "cores count from 0",
            ),
            Some(a) if a.be.is_zero() => rules.error(
                &format!("{path}.core"),
                format!(
                    "core {} gives best-effort work no time (S_BE = 0)",
                    be.core.0
                ),
                "give the core a best-effort share: [[allocations]] be = \"5ms\"",
            ),
            Some(_) => {}
        }
        if let BestEffortWork::Stress(list) = &be.work {
            for s in list.iter().filter(|s| !STRESSORS.contains(&s.as_str())) {
                rules.error(
                    &format!("{path}.stress"),
                    format!("unknown stressor {s:?}"),
                    &format!("one or more of {}", STRESSORS.join(", ")),
                );
            }
        }
    }
}
