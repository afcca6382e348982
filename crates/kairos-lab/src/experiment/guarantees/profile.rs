//! The overheads the study's overhead-aware analysis charges: the config's profile, or measured
//! on this machine once at the study's start by the code of `kairos bench overheads` (its
//! defaults: the bundled 2-core workload under G-EDF for 3 s), written to `overheads.toml` in
//! the output folder and read back from there, so the file is what was charged. A resumed study
//! charges the profile its first start measured, so all its points are judged alike.
//!
//! The bundled workload has no imprecise tasks, so when the study has an RMWP family an
//! imprecise set of the study runs under G-RMWP for as long again: it gives `part_callback`
//! (the policy's callback at a part boundary), which the RMWP tests charge, and the costs of
//! cores its optional parts keep busy, larger than an idle core's. The profile is then each
//! cost at each quantile the larger of the two runs ([`Measured::worse_of`]), charged to every
//! family alike.
//!
//! The families the kernel schedules are charged kernel dispatch's own profile, measured as
//! `kairos bench overheads --dispatch kernel --policy gfp` measures it. A study of those
//! families alone measures only that one.

use super::config::{Profile, Study};
use crate::bench::dispatch::{parse, BUNDLED};
use crate::bench::overheads::{self, Measured};
use crate::error::write_output;
use crate::experiment::{Event, Observer};
use crate::imprecise::prepare_with_margin;
use crate::Failure;
use kairos_model::{Duration, Format, Overheads};
use kairos_policy::PolicyKind;
use kairos_rt::dispatcher::DEFAULT_LEAD_NS;
use std::path::{Path, PathBuf};

/// `kairos bench overheads`'s default length of run.
const BENCH_RUN: Duration = Duration::from_secs(3);
/// The file a measured profile is written to, in the output folder.
const FILE: &str = "overheads.toml";
/// The file kernel dispatch's measured profile is written to, in the output folder.
const KERNEL_FILE: &str = "overheads-kernel.toml";

/// The profile charged and where it came from.
pub struct Charged {
    pub overheads: Overheads,
    /// "given" or "measured".
    pub source: &'static str,
    pub file: PathBuf,
}

/// The profile of `study`: given, reused from `out` when `resumed` (the same config's earlier
/// run, whose points are kept), or measured now.
pub(super) fn obtain(
    study: &Study,
    out: &Path,
    resumed: bool,
    observe: Observer,
) -> Result<Charged, Failure> {
    if let Profile::Given { path, overheads } = &study.profile {
        return Ok(Charged {
            overheads: **overheads,
            source: "given",
            file: path.clone(),
        });
    }
    if !study.has_user_family() {
        // Only kernel dispatch runs the study's sets: its profile is the one charged.
        return measured_once(
            study,
            out.join(KERNEL_FILE),
            resumed,
            observe,
            measure_kernel,
        );
    }
    measured_once(study, out.join(FILE), resumed, observe, measure)
}

/// Kernel dispatch's profile beside the dispatcher's, when the study has families of both and
/// measures its profiles: measured once, as [`obtain`]'s, into `overheads-kernel.toml`. A study
/// of kernel families alone has it from [`obtain`].
pub(super) fn obtain_kernel(
    study: &Study,
    out: &Path,
    resumed: bool,
    observe: Observer,
) -> Result<Option<Charged>, Failure> {
    let both = study.has_kernel_family() && study.has_user_family();
    if !both || matches!(study.profile, Profile::Given { .. }) {
        return Ok(None);
    }
    let file = out.join(KERNEL_FILE);
    measured_once(study, file, resumed, observe, measure_kernel).map(Some)
}

/// The profile in `file`: an earlier start's when `resumed` and it is there, else measured by
/// `measure` now and written there; then read back and checked for the study's quantile.
fn measured_once(
    study: &Study,
    file: PathBuf,
    resumed: bool,
    observe: Observer,
    measure: fn(&Study, Observer) -> Result<String, Failure>,
) -> Result<Charged, Failure> {
    let earlier = (resumed.then(|| std::fs::read_to_string(&file).ok())).flatten();
    let table = match earlier {
        Some(table) => {
            let notice = format!(
                "resuming: charging the profile measured at the study's first start, {}",
                file.display()
            );
            observe(Event::Notice(&notice));
            table
        }
        None => {
            let table = measure(study, observe)?;
            write_output(&file, &table)?;
            table
        }
    };
    let overheads = kairos_model::overheads_from_source(&table, Format::Toml).map_err(|_| {
        Failure::bad_input(format!(
            "{}: no usable [overheads] table (`kairos check` says why; --fresh measures again)",
            file.display()
        ))
    })?;
    if let Some(point) = study.quantile.profile_key() {
        let lacking = kairos_model::distributions_lacking(&table, Format::Toml, point);
        if lacking.has_errors() {
            let name = file.display().to_string();
            let at: Vec<String> = lacking.iter().map(|d| d.render(&name)).collect();
            return Err(Failure::bad_input(format!(
                "{}\n(an earlier start measured it before {point} was; --fresh measures again)",
                at.join("\n")
            )));
        }
    }
    Ok(Charged {
        overheads,
        source: "measured",
        file,
    })
}

/// Measures the profile: `kairos bench overheads` with its defaults, and with an RMWP family
/// the worse of that and an imprecise set under G-RMWP.
fn measure(study: &Study, observe: Observer) -> Result<String, Failure> {
    let mut notify = |line: &str| observe(Event::Notice(line));
    let lead = Duration::from_nanos(DEFAULT_LEAD_NS);
    let bundled = parse(BUNDLED)?;
    let request = overheads::Request {
        workload: &bundled,
        policy: "gedf",
        duration: BENCH_RUN,
        lead,
    };
    let mut measured: Measured = overheads::run(&request, &mut notify)?;
    let mut header = format!(
        "# Measured at the start of the guarantees study `{}` (kairos experiment).\n",
        study.name
    );
    if study.families.iter().any(|f| f.imprecise()) {
        let utilization = study.sets.cores as f64 / 2.0;
        let mut set = (study.sets)
            .draw(true, study.seed, utilization)
            .map_err(Failure::bad_input)?;
        set.name = Some(format!("an imprecise set at U = {utilization}"));
        // G-RMWP's optional deadlines, as a run of the study sets them.
        let mut quiet = |_: &str| {};
        let ready = prepare_with_margin(PolicyKind::GlobalRmwp, &set, Duration::ZERO, &mut quiet)?;
        let parts = overheads::Request {
            workload: &ready,
            policy: "grmwp",
            duration: BENCH_RUN,
            lead,
        };
        measured = measured.worse_of(&overheads::run(&parts, &mut notify)?);
        header.push_str(&format!(
            "# With {} under grmwp for {BENCH_RUN} by the same code: each cost at each quantile\n\
             # the larger of the two runs (optional parts keep cores busy, which costs more).\n",
            ready.name.as_deref().unwrap_or("an imprecise set")
        ));
    }
    let how = format!("kairos bench overheads --policy gedf --duration {BENCH_RUN} --lead {lead}");
    Ok(header + &measured.table(&how))
}

/// Measures kernel dispatch's profile: `kairos bench overheads --dispatch kernel --policy gfp`
/// on its bundled workload, whose global runs also give migrations.
fn measure_kernel(study: &Study, observe: Observer) -> Result<String, Failure> {
    let mut notify = |line: &str| observe(Event::Notice(line));
    let bundled = parse(overheads::KERNEL_WORKLOAD)?;
    let request = overheads::Request {
        workload: &bundled,
        policy: "gfp",
        duration: BENCH_RUN,
        lead: Duration::ZERO,
    };
    let measured = overheads::run_kernel(&request, &mut notify)?;
    let header = format!(
        "# Measured at the start of the guarantees study `{}` (kairos experiment), for its\n\
         # families the kernel schedules.\n",
        study.name
    );
    let how =
        format!("kairos bench overheads --dispatch kernel --policy gfp --duration {BENCH_RUN}");
    Ok(header + &measured.table(&how))
}
