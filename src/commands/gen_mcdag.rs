//! `kairos gen --mcdag`: one random mixed-criticality DAG system (docs/mcdag-gen.md), written as
//! kairos TOML or JSON, or as the MC-DAG framework's XML.

use super::gen::GenArgs;
use crate::args::{write_output, CommandResult, Failure};
use kairos_lab::generation::mcdag;

/// `--mcdag`: one system, written as kairos TOML or JSON, or as the MC-DAG framework's XML.
pub fn run(args: &GenArgs) -> CommandResult {
    use kairos_gen::mcdag::{generate_mcdag, McDagParams};
    if args.count > 1 {
        return Err(Failure::bad_input(
            "--count is for task sets: --mcdag writes one system (vary --seed for more)",
        ));
    }
    let m = &args.mcdag;
    let params = McDagParams {
        dags: m.dags,
        tasks: args.tasks.unwrap_or(McDagParams::default().tasks),
        levels: m.levels,
        utilization: args.utilization,
        edge_probability: m.edge_probability,
        max_per_rank: m.max_per_rank,
        reduction: m.reduction,
        level_fractions: m.level_fractions.clone(),
        cores: args.cores,
        slot: m.slot,
        hyperperiod_base: (m.hyperperiod_base > 0).then_some(m.hyperperiod_base),
        seed: args.seed,
        ..McDagParams::default()
    };
    let system = generate_mcdag(&params).map_err(|e| Failure::bad_input(e.to_string()))?;
    let header = format!("# {}", mcdag_command_line(args, params.tasks));
    let text = mcdag::render(&system, args.out.as_deref(), m.slot, &header)?;
    match &args.out {
        Some(path) => {
            write_output(path, text)?;
            let h = system.hyperperiod().unwrap_or_default();
            if args.json {
                crate::args::print_json(&serde_json::json!({
                    "out": path.display().to_string(),
                    "dags": system.dags.len(),
                    "tasks": system.task_refs().count(),
                    "levels": system.level_count(),
                    "cores": system.cores,
                    "hyperperiod_ns": h.as_nanos(),
                }));
                return Ok(0);
            }
            eprintln!(
                "wrote {} ({} DAG(s), {} task(s), hyper-period {h})",
                path.display(),
                system.dags.len(),
                system.task_refs().count()
            );
        }
        None => print!("{text}"),
    }
    Ok(0)
}

/// The `--mcdag` command that regenerates this system: every generator flag.
fn mcdag_command_line(args: &GenArgs, tasks: usize) -> String {
    let m = &args.mcdag;
    let mut line = format!(
        "kairos gen --mcdag --dags {} --tasks {tasks} --levels {} --utilization {} --cores {} \
         --edge-probability {} --max-per-rank {} --reduction {} --slot {} --hyperperiod-base {} \
         --seed {}",
        m.dags,
        m.levels,
        args.utilization,
        args.cores,
        m.edge_probability,
        m.max_per_rank,
        m.reduction,
        m.slot,
        m.hyperperiod_base,
        args.seed
    );
    if !m.level_fractions.is_empty() {
        let fractions: Vec<String> = m.level_fractions.iter().map(f64::to_string).collect();
        line.push_str(&format!(" --level-fractions {}", fractions.join(",")));
    }
    line
}
