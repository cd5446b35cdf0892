//! Steps of a user's own code (`node.step`), declared with `Experiment::steps`: a plan may
//! aim at them and the swarm draws them; a plan naming a step nothing declares is refused
//! before the run with the declared ones, and code reaching an undeclared step fails its run.

use locksim::sim::fault::{Fault, FaultPlan, TimedFault};
use locksim::world::run::{self, RunError, RunSpec};
use locksim::{Experiment, Grant, Lock, LockError, Node, Scenario};

/// A client program that marks `fetch` and `commit` after 20 ms.
fn marking() -> Experiment {
    Scenario::redis(1).client_program(|node| async move {
        node.timer().sleep(20).await;
        node.step("fetch").await;
        node.step("commit").await;
    })
}

/// A lock that marks `confirm` in its acquire, run by the lock workload.
struct Confirming(Node);

impl Lock for Confirming {
    async fn acquire(&mut self) -> Result<Grant, LockError> {
        self.0.step("confirm").await;
        Ok(Grant::default())
    }
    async fn release(&mut self) -> Result<(), LockError> {
        Ok(())
    }
}

fn confirming() -> Experiment {
    Scenario::redis(1).lock_workload(|node| async move { Ok(Confirming(node)) })
}

/// One run of seed 1 of `exp` without faults but `plan`.
fn run_with(exp: &Experiment, plan: Vec<Fault>) -> Result<run::RunReport, RunError> {
    let exp = exp.clone().set("faults=none");
    let plan = plan
        .into_iter()
        .map(|fault| TimedFault { at_ms: 10, fault });
    let spec = RunSpec::generated(exp.scenario(), exp.params().unwrap(), 1)
        .with_plan(FaultPlan::new(plan.collect()));
    run::run(&spec)
}

fn pause_before(step: &str) -> Fault {
    Fault::PauseBefore {
        node: "c1".into(),
        step: step.into(),
        for_ms: 20,
    }
}

#[test]
fn a_plan_naming_an_undeclared_step_is_refused_with_the_declared_ones() {
    let refused = |exp: &Experiment| run_with(exp, vec![pause_before("lunch")]).unwrap_err();
    let message = |declared: &str| {
        format!(
            "bad fault plan: fault #0: no client program declares a step 'lunch' (declared: {declared})"
        )
    };
    assert!(matches!(
        refused(&marking().steps(["fetch", "commit"])),
        RunError::Plan(_)
    ));
    assert_eq!(
        refused(&marking().steps(["fetch", "commit"])).to_string(),
        message("fetch, commit")
    );
    assert_eq!(
        refused(&Scenario::redis(1).client_program(|_| async {})).to_string(),
        message("none"),
        "a client program has no steps of its own"
    );
    assert_eq!(
        refused(&confirming().steps(["confirm", "write"])).to_string(),
        message("write, release, confirm"),
        "the workload's steps first, each once"
    );
    assert!(
        run_with(
            &marking().steps(["fetch", "commit"]),
            vec![pause_before("commit")]
        )
        .is_ok()
    );
}

#[test]
fn a_pause_before_a_declared_step_strikes_there() {
    use locksim::history::{HarnessOp, Op};
    for exp in [
        marking().steps(["fetch", "commit"]),
        confirming().steps(["confirm"]),
    ] {
        let step = if exp.scenario().own_steps[0] == "fetch" {
            "commit"
        } else {
            "confirm"
        };
        let report = run_with(&exp, vec![pause_before(step)]).unwrap();
        let struck = report.history().events.iter().any(|e| {
            matches!(&e.op, Op::Harness(HarnessOp::Paused { node, step: at, .. })
                if node == "c1" && at == step)
        });
        assert!(struck, "{}: c1 paused before {step}", exp.scenario().name);
    }
}

#[test]
fn code_reaching_an_undeclared_step_fails_its_run_naming_it() {
    let err = run_with(&marking().steps(["fetch"]), vec![]).unwrap_err();
    assert!(matches!(err, RunError::Software(_)), "{err}");
    assert!(
        err.to_string().contains(
            "reached step 'commit', which no program declares (declared: fetch); \
             declare it with `Experiment::steps`"
        ),
        "{err}"
    );
    let err = run_with(&confirming(), vec![]).unwrap_err();
    assert!(
        err.to_string()
            .contains("step 'confirm', which no program declares (declared: write, release)"),
        "{err}"
    );
}

#[test]
fn the_swarm_draws_declared_steps_beside_the_workloads() {
    /// The steps the swarm aims pauses at over seeds 0..40 of `exp` under `faults=pause`.
    fn drawn(exp: Experiment) -> Vec<String> {
        let exp = exp.set("faults=pause");
        let params = exp.params().unwrap();
        let mut steps: Vec<String> = (0..40)
            .flat_map(|seed| run::generate_plan(exp.scenario(), &params, seed).into_faults())
            .filter_map(|t| match t.fault {
                Fault::PauseBefore { step, .. } => Some(step),
                _ => None,
            })
            .collect();
        steps.sort();
        steps.dedup();
        steps
    }
    assert_eq!(
        drawn(marking().steps(["fetch", "commit"])),
        ["commit", "fetch"]
    );
    assert!(
        drawn(marking()).is_empty(),
        "nothing declared, nothing aimed at"
    );
    assert_eq!(
        drawn(confirming().steps(["confirm"])),
        ["confirm", "release", "write"]
    );
}
