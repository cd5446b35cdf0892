use super::yields::{FRESH, WINDOW};
use super::*;
use crate::scenario;
use crate::sim::fault::FaultPlan;
use crate::world::run;

fn spec(name: &str, set: &[&str], campaign: u64, runs: u64, jobs: usize) -> GuidedSpec {
    let scenario = scenario::find(name).unwrap();
    // `profile=NAME` picks a profile.
    let profile = set.iter().find_map(|s| s.strip_prefix("profile="));
    let set: Vec<&str> = set
        .iter()
        .copied()
        .filter(|s| !s.starts_with("profile="))
        .collect();
    GuidedSpec {
        scenario: scenario.clone(),
        params: scenario.params(profile, &set).unwrap(),
        properties: scenario.properties.to_vec(),
        campaign,
        runs,
        jobs,
        check_determinism: false,
    }
}

fn finding(e: &GuidedExploration) -> (u64, FaultPlan, String) {
    let Outcome::Violation(f) = &e.outcome else {
        panic!("no finding: {:?}", e.outcome)
    };
    (f.spec.seed, f.spec.plan.clone(), f.report.digest.clone())
}

fn replays(name: &str, (seed, plan, digest): (u64, FaultPlan, String)) {
    let s = spec(name, &[], 0, 1, 1);
    let replayed = run::run(&RunSpec {
        scenario: s.scenario,
        params: s.params,
        seed,
        plan,
        properties: s.properties,
    })
    .unwrap();
    assert_eq!(
        replayed.digest, digest,
        "a finding is a seed and a plan, nothing else"
    );
}

/// Generations of mutants and fresh plans, taken in in a fixed order: the same corpus,
/// coverage and outcome on one job and on two.
#[test]
fn a_campaign_is_the_same_on_one_job_and_two() {
    let one = guided(&spec("zk-lock-stale-session", &[], 1, 300, 1), &());
    let two = guided(&spec("zk-lock-stale-session", &[], 1, 300, 2), &());
    assert_eq!(one.runs, two.runs);
    assert_eq!(one.corpus_digest, two.corpus_digest);
    assert_eq!(one.curve, two.curve);
    assert!(one.curve.len() > 2 && one.corpus > 0, "{one:?}");
    let outcome = |e: &GuidedExploration| match &e.outcome {
        Outcome::Violation(_) => Some(finding(e)),
        _ => None,
    };
    assert_eq!(outcome(&one), outcome(&two));
    if let Some(found) = outcome(&one) {
        replays("zk-lock-stale-session", found);
    }
}

/// Fresh plans get the runs while they reach more than mutants do, never less than
/// `FRESH` of them, and only the last `WINDOW` generations count.
#[test]
fn the_fresh_share_follows_what_each_side_reached_lately() {
    let mut yields = Yields::default();
    yields.next_generation();
    for _ in 0..8 {
        yields.record(Source::Fresh, 30);
        yields.record(Source::Mutant, 2);
    }
    let early = yields.fresh_share();
    assert!(early > 0.9, "{early}");
    for _ in 0..WINDOW {
        yields.next_generation();
        for _ in 0..8 {
            yields.record(Source::Fresh, 0);
            yields.record(Source::Squeeze, 5);
        }
    }
    assert_eq!(
        yields.fresh_share(),
        FRESH,
        "the first generation is out of the window"
    );
}

/// A run that is not fresh is a squeeze, a follow-up or a mutant as often as each reached
/// new transitions lately: on a correct recipe whose every run came near something,
/// squeezing them reaches little, and the follow-ups get those runs. A source that cannot
/// be drawn (no run to squeeze, no lost reply to follow) gets none.
#[test]
fn the_other_sources_take_turns_as_they_reached_lately() {
    let mut rng = Seeds::new(0).stream("test");
    let mut yields = Yields::default();
    let count = |yields: &Yields, open: [bool; 3], rng: &mut ChaCha8Rng| {
        let mut counts = BTreeMap::new();
        for _ in 0..1000 {
            *counts
                .entry(format!("{:?}", yields.turn(open, rng)))
                .or_insert(0) += 1;
        }
        counts
    };
    yields.next_generation();
    for _ in 0..8 {
        yields.record(Source::Squeeze, 0);
        yields.record(Source::FollowUp, 6);
        yields.record(Source::Mutant, 1);
    }
    let drawn = count(&yields, [true; 3], &mut rng);
    assert!(drawn["Some(Squeeze)"] < 100, "{drawn:?}");
    assert!(drawn["Some(FollowUp)"] > 700, "{drawn:?}");
    let closed = count(&yields, [true, false, false], &mut rng);
    assert_eq!(closed["Some(Squeeze)"], 1000, "the only open source");
    assert_eq!(count(&yields, [false; 3], &mut rng)["None"], 1000);
    for _ in 0..WINDOW {
        yields.next_generation();
    }
    let even = count(&yields, [true; 3], &mut rng);
    assert!(
        even.values().all(|&n| n > 250),
        "the window moved past: {even:?}"
    );
}

/// Once the corpus holds a run, nearly half the runs are aimed losses, and while a follow-up
/// is owed half the rest are one, both ahead of fresh plans and each on a seed of its own,
/// not its parent's; a profile that loses no replies aims none.
#[test]
fn aimed_losses_and_owed_follow_ups_come_ahead_of_fresh_plans_on_new_seeds() {
    let drawn = |set: &[&str], owed: u32| {
        let s = spec("zk-lock", set, 0, 0, 1);
        let prepared = Prepared::new(&s.scenario, &s.params, &s.properties);
        let mut campaign = Campaign::new(&s, prepared.swarm().clone());
        let mut log = ServerLog::default();
        log.push(20, "zk1", "c1", "create", true);
        log.push(30, "zk1", "c1", "sync", false);
        campaign.corpus.push(Entry {
            seed: 7,
            genes: Vec::new(),
            branch_ms: 20,
            found: 1,
            picked: 0,
            log,
            owed,
            lossy: true,
        });
        let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
        for _ in 0..1000 {
            campaign.corpus[0].owed = owed;
            let candidate = campaign.draw();
            let source = match candidate.source {
                Source::FollowUp | Source::Aim => {
                    assert_ne!(
                        candidate.seed, 7,
                        "{:?} on its parent's seed",
                        candidate.source
                    );
                    match candidate.source {
                        Source::Aim => "aim",
                        _ => "follow-up",
                    }
                }
                Source::Fresh => "fresh",
                _ => "other",
            };
            *counts.entry(source).or_default() += 1;
        }
        counts
    };
    // Owed: 0.45 aimed, half the rest first, and half of what is left past the fresh share
    // (even yields so far).
    let owed = drawn(&[], 1);
    assert!((400..500).contains(&owed["aim"]), "{owed:?}");
    assert!(owed["follow-up"] > 360 && owed["fresh"] > 100, "{owed:?}");
    // None owed: follow-ups only in the mutants' turns, beside other mutants.
    let none = drawn(&[], 0);
    assert!((400..500).contains(&none["aim"]), "{none:?}");
    assert!(none["follow-up"] < 200 && none["fresh"] > 220, "{none:?}");
    // No lost replies in the profile: no aims.
    let lossless = drawn(&["faults=partition,crash"], 0);
    assert!(!lossless.contains_key("aim"), "{lossless:?}");
    assert!(lossless["fresh"] > 450, "{lossless:?}");
}

/// On an ensemble an aimed loss of a run on seed 7 is armed at every member on the new seed,
/// so it strikes wherever the client's session is; first at the member at the same place in
/// the client's order there (`carried`), which a plan at the profile's count of lost replies
/// keeps; within that count.
#[test]
fn an_aimed_loss_on_an_ensemble_strikes_wherever_the_client_goes() {
    let s = spec("zk-lock", &["zk_servers=3"], 0, 0, 1);
    let prepared = Prepared::new(&s.scenario, &s.params, &s.properties);
    let mut campaign = Campaign::new(&s, prepared.swarm().clone());
    let members = || vec!["zk1".to_string(), "zk2".into(), "zk3".into()];
    let answered = Seeds::new(7).try_order("c1", members())[1].clone();
    let mut log = ServerLog::default();
    log.push(20, &answered, "c1", "create", false);
    campaign.corpus.push(Entry {
        seed: 7,
        genes: Vec::new(),
        branch_ms: 0,
        found: 1,
        picked: 0,
        log,
        owed: 0,
        lossy: false,
    });
    let (mut aims, mut moved) = (0, 0);
    while aims < 40 {
        let candidate = campaign.draw();
        if candidate.source != Source::Aim {
            continue;
        }
        aims += 1;
        let losses = candidate.genes.iter().filter_map(|g| match &g.fault {
            crate::sim::fault::Fault::LoseReply { node, client, op } => Some((g, node, client, op)),
            _ => None,
        });
        let losses: Vec<_> = losses.collect();
        assert!(
            losses.len() <= campaign.cfg.per_kind_max as usize,
            "{losses:?}"
        );
        // The aimed ones: armed at 0 ms (the entry's create was its client's first).
        let aimed: Vec<&str> = losses
            .iter()
            .filter(|(g, _, client, op)| g.at_ms == 0 && *client == "c1" && *op == "create")
            .map(|(_, node, _, _)| node.as_str())
            .collect();
        let second = Seeds::new(candidate.seed).try_order("c1", members())[1].clone();
        assert_eq!(aimed.first(), Some(&second.as_str()), "{aimed:?}");
        let mut every = aimed.clone();
        every.sort();
        assert_eq!(every, ["zk1", "zk2", "zk3"], "{losses:?}");
        moved += usize::from(second != answered);
    }
    assert!(moved > 10, "{moved} of 40 aims moved off {answered}");
}

/// The first runs come in generations of 1, 1, 2 and 4, then 8, so what a campaign does
/// with its first run (aim at its requests, squeeze it) starts at the second.
#[test]
fn the_first_runs_are_taken_in_a_few_at_a_time() {
    let ends = |runs| -> Vec<u64> {
        let e = guided(&spec("zk-lock", &[], 2, runs, 2), &());
        e.curve.iter().map(|&(made, _)| made).collect()
    };
    assert_eq!(ends(40), [1, 2, 4, 8, 16, 24, 32, 40]);
    assert_eq!(ends(11), [1, 2, 4, 8, 11]);
    let fresh: u64 = (0..4)
        .map(|k| guided(&spec("zk-lock", &[], k, 8, 2), &()).fresh.made)
        .sum();
    assert!(fresh < 28, "{fresh} of the first 32 runs were fresh plans");
}

/// Going on after findings, every run is counted against its source: a fresh plan, or
/// each mutation of a mutant (so the mutations' counts may exceed the mutants').
#[test]
fn every_run_and_finding_is_counted_against_its_source() {
    let s = spec("redlock-novalidity", &[], 0, 160, 2);
    let e = campaign(&s, &(), Until::Budget);
    let mutated =
        |count: fn(&Tally) -> u64| -> u64 { e.mutations.iter().map(|(_, t)| count(t)).sum() };
    let failed = e.failed.len() as u64;
    assert!(failed > 1 && e.fresh.made > 0, "{e:?}");
    assert!(e.fresh.made < e.runs && e.runs <= e.fresh.made + mutated(|t| t.made));
    assert!(e.fresh.found <= failed && failed <= e.fresh.found + mutated(|t| t.found));
    let new: u64 = e.fresh.new + mutated(|t| t.new);
    assert!(
        new >= e.corpus as u64,
        "each corpus entry reached something new"
    );
    for (name, t) in
        std::iter::once(("fresh", &e.fresh)).chain(e.mutations.iter().map(|(n, t)| (*n, t)))
    {
        assert!(t.new + t.found <= t.made, "{name}: {t:?}");
    }
    // Stopping at the first finding counts that one run as found.
    let first = campaign(&s, &(), Until::Found);
    let found = first.fresh.found + first.mutations.iter().map(|(_, t)| t.found).sum::<u64>();
    assert_eq!(first.runs, e.failed[0]);
    assert!(found >= 1 && first.fresh.found <= 1, "{first:?}");
}

#[test]
fn a_guided_finding_is_a_seed_and_a_plan_that_replay_alone() {
    let e = guided(&spec("redlock-novalidity", &[], 0, 200, 2), &());
    replays("redlock-novalidity", finding(&e));
}

/// A mutant whose changes all come after an instant replays its parent's run up to there.
#[test]
fn a_mutant_changed_after_its_branch_point_replays_its_parent_before_it() {
    let s = spec("zk-lock", &[], 0, 1, 1);
    let prepared = Prepared::new(&s.scenario, &s.params, &s.properties);
    let cfg = prepared.swarm().clone();
    let mut rng = Seeds::new(9).stream("campaign");
    let mut compared = 0;
    for seed in 0..12 {
        let genes = swarm::swarm_genes(&cfg, &mut Seeds::new(seed).stream("faults"));
        let ran = prepared.spec(seed, gene::plan_of(&cfg, &genes));
        let (_, requests) = prepared.run_keeping_server_log(&ran).unwrap();
        let branch_ms = 250;
        let mutation = Mutation::ALL[seed as usize % Mutation::ALL.len()];
        let from = Parent {
            genes: &genes,
            log: &requests,
            from_ms: branch_ms,
            other: &genes,
        };
        let mutant = mutate::apply(&cfg, mutation, &from, None, &mut rng);
        let (parent, child) = (gene::plan_of(&cfg, &genes), gene::plan_of(&cfg, &mutant));
        if parent == child {
            continue;
        }
        let before = |plan: &FaultPlan| {
            plan.0
                .iter()
                .filter(|f| f.at_ms < branch_ms)
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            before(&parent),
            before(&child),
            "{mutation:?} changed the prefix"
        );
        let history = |plan: FaultPlan| {
            let report = run::run(&RunSpec {
                plan,
                ..RunSpec::generated(&s.scenario, s.params.clone(), seed)
            })
            .unwrap();
            report
                .history
                .events
                .into_iter()
                .filter(|e| e.time_ms < branch_ms)
                .collect::<Vec<_>>()
        };
        assert_eq!(history(parent), history(child), "seed {seed}, {mutation:?}");
        compared += 1;
    }
    assert!(compared >= 6, "{compared}");
}

/// Every mutant is a plan the scenario accepts, and a correct recipe stays clean under
/// them: on one server, on an ensemble, and the Redis lock under the profile whose
/// promise it keeps.
#[test]
fn correct_recipes_stay_clean_under_a_campaign() {
    for (name, set) in [
        ("zk-lock", &[][..]),
        ("zk-election", &["zk_servers=3"][..]),
        ("redis-lock", &["profile=own-assumptions"][..]),
    ] {
        let e = guided(&spec(name, set, 1, 96, 2), &());
        assert!(
            matches!(e.outcome, Outcome::Clean),
            "{name}: {:?}",
            e.outcome
        );
        assert_eq!(e.runs, 96);
        assert!(e.corpus > 0, "{name}");
        assert!(
            e.curve.windows(2).all(|w| w[0].1 <= w[1].1),
            "coverage only grows: {:?}",
            e.curve
        );
    }
}

/// Over a 320-run campaign on `name`, squeezes are made at least 15 times and find at
/// least 50 per 1,000, more than twice as often as its fresh plans do.
fn squeezes_find_more_than_fresh_plans(name: &str) {
    let e = campaign(&spec(name, &[], 0, 320, 2), &(), Until::Budget);
    let squeeze = e
        .mutations
        .iter()
        .find(|(name, _)| *name == "squeeze")
        .map(|&(_, t)| t)
        .unwrap();
    assert!(squeeze.made >= 15, "{squeeze:?}");
    let rate = squeeze.found_per_1000();
    assert!(
        rate >= 50.0 && rate > 2.0 * e.fresh.found_per_1000(),
        "squeeze {squeeze:?}, fresh {:?}",
        e.fresh
    );
}

/// A clean run whose follower read came near missing its session's own write is squeezed
/// at once, and on the lock that looks for its node without `sync` the squeeze finds the
/// flaw many times more often than fresh plans do.
#[test]
fn a_run_that_came_near_a_stale_read_of_its_own_write_is_squeezed_into_one() {
    squeezes_find_more_than_fresh_plans("zk-lock-no-sync");
}

/// A clean run whose waiter found its predecessor's node shortly before the predecessor's
/// session ended is squeezed at once, and on the lock that takes a predecessor gone at
/// `exists` for the lock being its own, the squeeze finds the flaw many times more often
/// than fresh plans do.
#[test]
fn a_run_whose_read_came_near_missing_a_node_of_an_ending_session_is_squeezed_into_one() {
    squeezes_find_more_than_fresh_plans("zk-lock-vanished");
}

/// A clean run in which a process first looked at a barrier node shortly after the
/// coordinator created it is squeezed at once, and on the barrier whose processes do not
/// wait for it to be armed the squeeze finds the flaw many times more often than fresh
/// plans do.
#[test]
fn a_run_whose_look_came_shortly_after_a_create_is_squeezed_into_one_before_it() {
    squeezes_find_more_than_fresh_plans("zk-barrier-unarmed");
}

/// How many of the runs a campaign of `generations` on `name` makes repeat an earlier one
/// (its seed and plan) when `draw` chooses each.
fn repeats(
    name: &str,
    set: &[&str],
    generations: usize,
    draw: fn(&mut Campaign) -> Candidate,
) -> usize {
    let s = spec(name, set, 0, 0, 1);
    let prepared = Prepared::new(&s.scenario, &s.params, &s.properties);
    let mut campaign = Campaign::new(&s, prepared.swarm().clone());
    let mut keys = BTreeSet::new();
    let mut repeated = 0;
    for _ in 0..generations {
        campaign.yields.next_generation();
        let candidates: Vec<Candidate> = (0..GENERATION).map(|_| draw(&mut campaign)).collect();
        for candidate in candidates {
            repeated += usize::from(!keys.insert(campaign.key(&candidate)));
            let (ran, log) = run_logged(&prepared, &campaign.run_spec(&candidate), false);
            let report = ran.unwrap().unwrap();
            assert!(report.violations.is_empty(), "{name} is correct");
            campaign.take_in(candidate, &report, log);
        }
    }
    repeated
}

/// A mutation can give back its parent's plan or another mutant's (follow-ups and aimed
/// losses, on seeds of their own, seldom do): drawn as they come, a few runs would repeat one
/// made before, which reaches nothing new. The campaign draws again instead. (Without lost
/// replies, where neither is drawn, more runs are mutants on their parents' seeds.)
#[test]
fn a_campaign_never_makes_the_same_run_twice() {
    let set = ["faults=partition,loss,delay,crash,pause"];
    let drawn = repeats("zk-rwlock", &set, 30, |c| c.draw());
    assert!(drawn > 0, "drawn as they come, some runs repeat");
    assert_eq!(repeats("zk-rwlock", &set, 30, |c| c.next()), 0);
}
