//! The guided search: fault plans steered toward recipe states no run has reached.
//!
//! A campaign keeps a corpus of runs (a seed and the genes of its plan) that reached a
//! transition of the coverage map (`coverage`) that no run before had reached. Each generation
//! is 8 runs (the first few 1, 1, 2 and 4, so the first run is built on from the second on):
//! fresh swarm plans, as many as they lately reached more new transitions per run than mutants
//! did (and a quarter at least), the rest mutants of corpus entries drawn in proportion to what
//! each found, their mutations confined (mostly) to what comes after the entry's first new
//! transition, so a mutant replays its parent up to there and tries something new after it.
//! Which mutations and which fault kinds are drawn follows what found new transitions before (a
//! bandit). Nearly half the runs, once the corpus holds one, are fresh plans that also lose the
//! reply to a request of a kind a corpus run sent, drawn by client and kind (`mutate`'s `aim`),
//! ahead of the rest. A run whose first new transition was a reply it lost is followed up: its
//! client's next requests lose their replies too (`mutate`'s `follow-up`, which reads the
//! requests the run's servers answered), on a new seed, half the other runs ahead of fresh
//! plans while one is owed. A clean run whose servers measured a margin a fault could close
//! (`recorder::Margin`: a follower's read that came near missing its session's own write, a
//! read that came near missing a node a session's end deleted, a look that came shortly after
//! another session created the node) is squeezed: its mutant closes the margin (`mutate`'s
//! `squeeze`). The first two of each margin's name go before anything else, fresh plans
//! included; later ones take turns with follow-ups and other mutants.
//!
//! The campaign seed decides every choice; a generation's runs are made in parallel and
//! taken in in their fixed order, and budgets count runs: the same campaign gives the same
//! corpus and the same first finding on any number of jobs. A finding is what it always
//! was, a seed and an explicit plan, shrunk (`explore::failure`), that replays with no
//! search involved.

mod bandit;
mod running;
mod yields;

use super::mutate::{self, Mutation, NewKind, Parent};
use super::{Observer, Outcome, SeedResult};
use crate::check::Property;
use crate::coverage::{self, CoverageMap};
use crate::params::Params;
use crate::recorder::ServerLog;
use crate::scenario::Scenario;
use crate::sim::gene::{self, Gene};
use crate::sim::seed::{self, Seeds};
use crate::sim::swarm::{self, SwarmConfig};
use crate::sim::vocab::FaultKind;
use crate::world::Prepared;
use crate::world::run::{RunReport, RunSpec};
use bandit::Bandit;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
pub(super) use running::run_all;
use running::run_logged;
#[cfg(feature = "cli")]
pub(super) use running::run_once;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use yields::{Source, Yields};

/// What to search: a scenario with its parameters, a campaign seed and a budget of runs.
#[derive(Debug, Clone)]
pub struct GuidedSpec {
    /// The scenario each run runs.
    pub scenario: Scenario,
    /// Its parameters, overrides applied.
    pub params: Params,
    /// The properties each run is judged by.
    pub properties: Vec<Property>,
    /// The campaign's seed: it decides every choice of the search.
    pub campaign: u64,
    /// At most this many runs (shrinking a finding aside).
    pub runs: u64,
    /// Parallel simulations, one thread each (clamped to 1..=`MAX_JOBS`).
    pub jobs: usize,
    /// Run every run twice and compare history digests (a build whose tokio is not seeded).
    pub check_determinism: bool,
}

/// What a campaign found, and how it went. A library build reads its outcome and runs
/// (`Experiment::guided`); the rest is the command line's report.
#[derive(Debug)]
#[non_exhaustive]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub struct GuidedExploration {
    /// Runs made: up to and including the first finding, or the whole budget.
    pub runs: u64,
    /// Clean, or the first finding, its plan shrunk.
    pub outcome: Outcome,
    /// Runs kept in the corpus, for what they reached first.
    pub corpus: usize,
    /// Distinct transitions reached (buckets of the coverage map).
    pub transitions: usize,
    /// After each generation: runs made so far, and distinct transitions reached.
    pub curve: Vec<(u64, usize)>,
    /// A fingerprint of the corpus (each entry's seed and plan, in order): equal for the
    /// same campaign on any number of jobs.
    pub corpus_digest: String,
    /// What the fresh swarm plans made, reached and found.
    pub fresh: Tally,
    /// Each mutation by name, with what the mutants it took part in made, reached and found.
    pub mutations: Vec<(&'static str, Tally)>,
    /// The runs that found something, by their number, when the campaign went on after
    /// findings (`compare --rate`); else empty, its one finding in `outcome`.
    pub failed: Vec<u64>,
}

/// What one source of a campaign's runs did: the fresh swarm plans, or the mutants one
/// mutation took part in (a mutant of stacked mutations counts for each of them). Set side
/// by side, the sources say where a search's findings come from, which its medians cannot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tally {
    /// Runs made.
    pub made: u64,
    /// Of those, the clean runs that reached a transition no run had reached before.
    pub new: u64,
    /// Of those, the runs that found something: every finding when the campaign goes on
    /// after findings (`compare --rate`), else at most the one that ended it.
    pub found: u64,
}

#[cfg_attr(not(feature = "cli"), allow(dead_code))]
impl Tally {
    /// Adds `other`'s counts (another campaign's, say).
    pub fn add(&mut self, other: Tally) {
        self.made += other.made;
        self.new += other.new;
        self.found += other.found;
    }

    /// Runs that found something per 1,000 made.
    pub fn found_per_1000(&self) -> f64 {
        self.found as f64 * 1000.0 / self.made.max(1) as f64
    }
}

/// Runs of a generation past the first few, whatever the number of jobs. A run is taken in
/// (kept, squeezed) only once its generation is done, so a smaller one squeezes sooner: 8
/// finds the flaws a squeeze makes in about half the runs 16 does, while 4 spends more of the
/// first runs on squeezes than it saves.
pub(crate) const GENERATION: u64 = 8;

/// Runs of a campaign's generation after `made` runs: 1, 1, 2 and 4, then `GENERATION`. What
/// a campaign does with a run (aim at its requests, squeeze it, follow it up) waits for its
/// generation to end, so the first runs are taken in a few at a time: the first one is aimed
/// at from the second run on, not the ninth (`zk-lock-stale-session`: 13.5 runs over 60
/// campaigns, 24.5 with generations of 8 from the start; `zk-barrier-unarmed` 2, 9). The
/// generations add up to `GENERATION` at its first end, so the curve is drawn at its
/// multiples as before.
fn generation_size(made: u64) -> u64 {
    GENERATION.min(made.max(1))
}

/// Of mutants, the share whose mutations are confined to what comes after their parent's
/// first new transition.
const BRANCH: f64 = 0.8;

/// Follow-up mutants owed to a run whose first new transition was a reply it lost.
const OWED: u32 = 4;

/// While a follow-up is owed, the share of runs that is one (of those not aimed losses),
/// drawn ahead of fresh plans.
/// Follow-ups find lost-reply flaws several times as often as fresh plans do
/// (`zk-lock-stale-session`: a median of 42 runs over 60 campaigns, 67.5 with follow-ups in
/// the mutants' turns only); every owed one first (34.5) cost `zk-lock` early coverage (450
/// transitions within 100 runs, random 464), half of them did not (468).
const OWED_FIRST: f64 = 0.5;

/// Once the corpus holds a run, the share of runs that is a fresh swarm plan with one more
/// lost reply, aimed at a request a corpus run sent (`Mutation::Aim`: drawn by client and
/// kind, so a rare request is aimed at as often as a frequent one), ahead of follow-ups and
/// fresh plans. The swarm loses requests in proportion to how often they are sent, mostly
/// pings; aimed, a create or a delete is lost several times as often
/// (`zk-lock-stale-session`: 24.5 runs over 60 campaigns, 42 without). On the corpus run's
/// own plan and seed instead, aims reached fewer transitions than fresh plans do (`zk-queue`:
/// 194 within 100 runs, random 212.5; with a fresh plan, 238.5).
const AIM_FIRST: f64 = 0.45;

/// Runs of each margin's name squeezed before anything else, fresh plans included: a
/// squeeze asks whether the recipe fails when the read misses, and asks it of a run that
/// came near, so the first few are worth more than a fresh plan; once a recipe has passed
/// that many, further ones wait for the mutants' turn. Where the flaw is the miss itself,
/// the first squeeze finds it; two leave the rest of the second generation to fresh plans
/// and follow-ups (8 cost `zk-lock-stale-session` a third more runs).
const SQUEEZE_FIRST: u32 = 2;

/// Candidates drawn in a row that repeat a run before a fresh plan is taken instead.
const DRAWS: u32 = 8;

/// Whether a reply was lost at about `at_ms` (the loss and the first new transition it made
/// may be a ms or two apart).
fn lost_at(log: &ServerLog, at_ms: u64) -> bool {
    log.sent()
        .iter()
        .any(|s| s.lost && s.at_ms.abs_diff(at_ms) <= 2)
}

/// A run of the corpus.
#[derive(Debug, Clone)]
struct Entry {
    seed: u64,
    genes: Vec<Gene>,
    /// When it first reached a transition no run had before.
    branch_ms: u64,
    /// How many such transitions it reached, and its mutants after it.
    found: u64,
    /// How many times it was drawn as a parent by its energy (owed follow-ups aside).
    picked: u64,
    /// What its run's servers told: the requests they answered (what `aim` aims lost replies
    /// at), the margins they measured (what `squeeze` closes).
    log: ServerLog,
    /// Follow-up mutants still to be made of it: before any other mutant, and for
    /// `OWED_FIRST` of the runs before fresh plans too.
    owed: u32,
    /// Whether it lost a reply at or after its branch point: it can be followed up.
    lossy: bool,
}

impl Entry {
    /// How often it is drawn as a parent: more for what it found, by orders of magnitude (the
    /// first run of a campaign finds hundreds of transitions, a later one a few, and both
    /// are worth mutating), less as its mutants pile up.
    fn energy(&self) -> u64 {
        u64::from(1 + (1 + self.found).ilog2()) * 1024 / (8 + self.picked)
    }
}

/// A run the campaign chose: its seed and genes, and how it was made.
struct Candidate {
    seed: u64,
    genes: Vec<Gene>,
    /// The corpus entry it is a mutant of, if it is one.
    parent: Option<usize>,
    /// Its mutations: none for a fresh swarm plan.
    mutations: Vec<Mutation>,
    new_kinds: Vec<NewKind>,
    /// What made it, as `Yields` counts what each source reaches.
    source: Source,
}

impl Candidate {
    fn fresh(&self) -> bool {
        self.mutations.is_empty()
    }
}

/// A clean run whose servers measured a margin a fault could close (`mutate::squeezable`):
/// it is squeezed once, before anything else while its margin's name has been squeezed
/// fewer than `SQUEEZE_FIRST` times, else before other mutants (owed follow-ups in turns).
struct ToSqueeze {
    seed: u64,
    genes: Vec<Gene>,
    log: ServerLog,
}

/// The campaign's state between generations.
struct Campaign<'a> {
    spec: &'a GuidedSpec,
    cfg: SwarmConfig,
    rng: ChaCha8Rng,
    map: CoverageMap,
    corpus: Vec<Entry>,
    /// Runs to be squeezed before anything else, in the order they ran: the first
    /// `SQUEEZE_FIRST` of each margin's name.
    squeeze_first: VecDeque<ToSqueeze>,
    /// Runs to be squeezed in the mutants' turn, in the order they ran.
    squeeze_later: VecDeque<ToSqueeze>,
    /// How many runs of each margin's name went to `squeeze_first`.
    squeezed_first: BTreeMap<&'static str, u32>,
    mutations: Bandit<Mutation>,
    kinds: Bandit<NewKind>,
    yields: Yields,
    /// Fresh plans' tally, and the findings of each mutation's mutants (in the order of
    /// `Mutation::ALL`; what they made and reached is the bandit's).
    fresh: Tally,
    found: [u64; Mutation::ALL.len()],
    /// Whether plans can be mutated at all (the profile has faults, hosts to aim them at).
    mutable: bool,
    /// Whether lost replies can be aimed: plans can be mutated and the profile loses replies.
    aims: bool,
    /// The keys of the runs made or drawn so far (`Campaign::key`).
    tried: BTreeSet<u64>,
}

impl<'a> Campaign<'a> {
    /// A campaign at its start: nothing run, every source and bandit as new, drawing plans
    /// for `cfg` (the prepared scenario's swarm).
    fn new(spec: &'a GuidedSpec, cfg: SwarmConfig) -> Campaign<'a> {
        let mutable = !cfg.kinds.is_empty()
            && !cfg.clients.is_empty()
            && !cfg.servers.is_empty()
            && cfg.fault_phase_ms > 0;
        let mut kinds: Vec<NewKind> = cfg.kinds.iter().copied().map(Some).collect();
        if cfg.targeted_max > 0 {
            kinds.push(None);
        }
        Campaign {
            spec,
            rng: Seeds::new(spec.campaign).stream("campaign"),
            map: CoverageMap::default(),
            corpus: Vec::new(),
            squeeze_first: VecDeque::new(),
            squeeze_later: VecDeque::new(),
            squeezed_first: BTreeMap::new(),
            mutations: Bandit::new(Mutation::ALL),
            kinds: Bandit::new(kinds),
            yields: Yields::default(),
            fresh: Tally::default(),
            found: [0; Mutation::ALL.len()],
            mutable,
            aims: mutable && cfg.kinds.contains(&FaultKind::LoseReply),
            cfg,
            tried: BTreeSet::new(),
        }
    }

    fn run_spec(&self, candidate: &Candidate) -> RunSpec {
        RunSpec {
            scenario: self.spec.scenario.clone(),
            params: self.spec.params.clone(),
            seed: candidate.seed,
            plan: gene::plan_of(&self.cfg, &candidate.genes),
            properties: self.spec.properties.clone(),
        }
    }

    fn fresh(&mut self) -> Candidate {
        let seed: u64 = self.rng.random();
        let genes = swarm::swarm_genes(&self.cfg, &mut Seeds::new(seed).stream("faults"));
        Candidate {
            seed,
            genes,
            parent: None,
            mutations: Vec::new(),
            new_kinds: Vec::new(),
            source: Source::Fresh,
        }
    }

    /// A corpus entry of those `lossy` admits, drawn in proportion to its energy.
    fn parent(&mut self, lossy: bool) -> usize {
        let energy = |entry: &Entry| {
            if entry.lossy || !lossy {
                entry.energy()
            } else {
                0
            }
        };
        let total: u64 = self.corpus.iter().map(energy).sum();
        let mut at = self.rng.random_range(0..total.max(1));
        let chosen = self
            .corpus
            .iter()
            .position(|entry| {
                let energy = energy(entry);
                let here = at < energy;
                at = at.saturating_sub(energy);
                here
            })
            .unwrap_or(self.corpus.len() - 1);
        self.corpus[chosen].picked += 1;
        chosen
    }

    /// The next run: a candidate no run of the campaign had (its seed and plan). A mutation
    /// can give back its parent's plan, and follow-ups of one parent each other's: such a run
    /// would repeat one already made, to the transition. After `DRAWS` repeats, a fresh plan.
    fn next(&mut self) -> Candidate {
        for _ in 0..DRAWS {
            let candidate = self.draw();
            if self.tried.insert(self.key(&candidate)) {
                return candidate;
            }
        }
        loop {
            let candidate = self.fresh();
            if self.tried.insert(self.key(&candidate)) {
                return candidate;
            }
        }
    }

    /// What tells a run from every other: its seed and its plan.
    fn key(&self, candidate: &Candidate) -> u64 {
        seed::fnv1a(self.told(candidate.seed, &candidate.genes).as_bytes())
    }

    /// A run as text: its seed and its plan in JSON.
    fn told(&self, seed: u64, genes: &[Gene]) -> String {
        let plan = gene::plan_of(&self.cfg, genes);
        let plan = serde_json::to_string(&plan).expect("a plan serialises");
        format!("{seed} {plan}")
    }

    /// A candidate drawn from the campaign's sources, in their order.
    fn draw(&mut self) -> Candidate {
        let fresh = self.yields.fresh_share();
        if let Some(run) = self.squeeze_first.pop_front() {
            return self.squeezed(run);
        }
        // An aimed loss comes first for `AIM_FIRST` of the runs, then an owed follow-up (to a
        // run whose lost reply was the new thing it reached: its client's next requests lost
        // too, `OWED` times) for `OWED_FIRST` of the rest. Otherwise, past the fresh share,
        // the other sources take turns as their yields say: runs to squeeze, follow-ups (owed
        // ones first, then of any parent that lost a reply at or after its branch point),
        // and, while none is owed, mutants of any parent.
        if self.aims && !self.corpus.is_empty() && self.rng.random_bool(AIM_FIRST) {
            return self.aimed();
        }
        let owed = self.corpus.iter().position(|e| e.owed > 0);
        let owed_first = self.mutable && owed.is_some() && self.rng.random_bool(OWED_FIRST);
        if !owed_first && (!self.mutable || self.rng.random_bool(fresh)) {
            return self.fresh();
        }
        let lossy = self.corpus.iter().any(|e| e.lossy);
        let open = [
            !self.squeeze_later.is_empty(),
            owed.is_some() || lossy,
            owed.is_none() && !self.corpus.is_empty(),
        ];
        let turn = match owed_first {
            true => Some(Source::FollowUp),
            false => self.yields.turn(open, &mut self.rng),
        };
        let Some(source) = turn else {
            return self.fresh();
        };
        if source == Source::Squeeze {
            let run = self.squeeze_later.pop_front().expect("a run to squeeze");
            return self.squeezed(run);
        }
        let follow = source == Source::FollowUp;
        let parent = match owed {
            Some(i) if follow => {
                self.corpus[i].owed -= 1;
                i
            }
            _ => self.parent(follow),
        };
        let from_ms = if follow || self.rng.random_bool(BRANCH) {
            self.corpus[parent].branch_ms
        } else {
            0
        };
        let stacked = match self.rng.random_range(0..10) {
            _ if follow => 1,
            0..5 => 1,
            5..8 => 2,
            _ => 3,
        };
        let mut genes = self.corpus[parent].genes.clone();
        // A follow-up's losses find as much on any seed as on its parent's (its flaw is the
        // client's run of lost replies, not the parent's timings), and a new seed reaches
        // new timings as a fresh plan does.
        let mut seed = match follow {
            true => self.rng.random(),
            false => self.corpus[parent].seed,
        };
        let (mut mutations, mut new_kinds) = (Vec::new(), Vec::new());
        for _ in 0..stacked {
            let mutation = match follow {
                true => Mutation::FollowUp,
                false => self.mutations.draw(&mut self.rng),
            };
            let new_kind = self.kinds.draw(&mut self.rng);
            if mutation == Mutation::Reseed {
                seed = self.rng.random();
            }
            let other = self.rng.random_range(0..self.corpus.len());
            let from = Parent {
                genes: &genes,
                log: &self.corpus[parent].log,
                from_ms,
                other: &self.corpus[other].genes,
            };
            genes = mutate::apply(&self.cfg, mutation, &from, new_kind, &mut self.rng);
            mutations.push(mutation);
            new_kinds.push(new_kind);
        }
        // On another seed, the lost replies carried from the parent follow their clients.
        let from_seed = self.corpus[parent].seed;
        let genes = genes
            .into_iter()
            .map(|g| mutate::carried(&self.cfg, g, from_seed, seed))
            .collect();
        Candidate {
            seed,
            genes,
            parent: Some(parent),
            mutations,
            new_kinds,
            source,
        }
    }

    /// A fresh swarm plan on a new seed, and a lost reply aimed at a request a corpus entry
    /// (drawn by its energy) sent, after its branch point for `BRANCH` of them: armed when
    /// the entry's client sent its previous request of that kind, it loses the client's next
    /// one, about the entry's request on other timings, at whichever ensemble member its
    /// session reaches on the new seed (`mutate::everywhere`).
    fn aimed(&mut self) -> Candidate {
        let parent = self.parent(false);
        let entry = &self.corpus[parent];
        let from_ms = if self.rng.random_bool(BRANCH) {
            entry.branch_ms
        } else {
            0
        };
        let new_kind = self.kinds.draw(&mut self.rng);
        let seed: u64 = self.rng.random();
        let fresh = swarm::swarm_genes(&self.cfg, &mut Seeds::new(seed).stream("faults"));
        let from = Parent {
            genes: &fresh,
            log: &entry.log,
            from_ms,
            other: &[],
        };
        let aimed = mutate::apply(&self.cfg, Mutation::Aim, &from, new_kind, &mut self.rng);
        // The aimed loss is the parent's request's; the fresh plan's own genes are this seed's.
        let genes = aimed
            .into_iter()
            .flat_map(|g| match fresh.contains(&g) {
                true => vec![g],
                false => mutate::everywhere(&self.cfg, g, entry.seed, seed),
            })
            .collect();
        let genes = gene::conform(&self.cfg, genes);
        Candidate {
            seed,
            genes,
            parent: Some(parent),
            mutations: vec![Mutation::Aim],
            new_kinds: vec![new_kind],
            source: Source::Aim,
        }
    }

    /// The mutant that closes the least margin `run`'s servers measured.
    fn squeezed(&mut self, run: ToSqueeze) -> Candidate {
        let from = Parent {
            genes: &run.genes,
            log: &run.log,
            from_ms: 0,
            other: &[],
        };
        let new_kind = self.kinds.draw(&mut self.rng);
        let genes = mutate::apply(&self.cfg, Mutation::Squeeze, &from, new_kind, &mut self.rng);
        Candidate {
            seed: run.seed,
            genes,
            parent: None,
            mutations: vec![Mutation::Squeeze],
            new_kinds: vec![new_kind],
            source: Source::Squeeze,
        }
    }

    /// Counts a run that found something (or broke) against the source that made it.
    fn take_finding(&mut self, candidate: &Candidate) {
        if candidate.fresh() {
            self.fresh.made += 1;
            self.fresh.found += 1;
        }
        for &m in &candidate.mutations {
            let arm = Mutation::ALL.iter().position(|&a| a == m);
            if let Some(found) = arm.and_then(|i| self.found.get_mut(i)) {
                *found += 1;
            }
        }
    }

    /// Takes in a clean run: keeps it when it reached something new, has it squeezed when
    /// its servers measured a margin a stall could close, and tells the bandits.
    fn take_in(&mut self, candidate: Candidate, report: &RunReport, log: ServerLog) {
        let new = self.map.merge(&coverage::of(&report.history));
        let won = !new.is_empty();
        for &m in &candidate.mutations {
            self.mutations.reward(m, won);
        }
        for &k in &candidate.new_kinds {
            self.kinds.reward(k, won);
        }
        self.yields.record(candidate.source, new.len());
        if candidate.fresh() {
            self.fresh.made += 1;
            self.fresh.new += u64::from(won);
        }
        if let Some(name) = mutate::squeezable(&self.cfg, &log, 0).filter(|_| self.mutable) {
            let run = ToSqueeze {
                seed: candidate.seed,
                genes: candidate.genes.clone(),
                log: log.clone(),
            };
            let first = self.squeezed_first.entry(name).or_default();
            if *first < SQUEEZE_FIRST {
                *first += 1;
                self.squeeze_first.push_back(run);
            } else {
                self.squeeze_later.push_back(run);
            }
        }
        let Some(&(_, branch_ms)) = new.first() else {
            return;
        };
        let found = new.len() as u64;
        if let Some(parent) = candidate.parent {
            self.corpus[parent].found += found;
        }
        self.corpus.push(Entry {
            seed: candidate.seed,
            genes: candidate.genes,
            branch_ms,
            found,
            picked: 0,
            owed: if lost_at(&log, branch_ms) { OWED } else { 0 },
            lossy: log.sent().iter().any(|s| s.lost && s.at_ms >= branch_ms),
            log,
        });
    }

    fn ended(
        &self,
        runs: u64,
        outcome: Outcome,
        curve: Vec<(u64, usize)>,
        failed: Vec<u64>,
    ) -> GuidedExploration {
        GuidedExploration {
            runs,
            outcome,
            failed,
            corpus: self.corpus.len(),
            transitions: self.map.len(),
            curve,
            corpus_digest: self.digest(),
            fresh: self.fresh,
            mutations: self
                .mutations
                .arms
                .iter()
                .zip(self.found)
                .map(|(&(m, wins, tries), found)| {
                    // The bandit counts clean runs only.
                    let tally = Tally {
                        made: tries + found,
                        new: wins,
                        found,
                    };
                    (m.name(), tally)
                })
                .collect(),
        }
    }

    fn digest(&self) -> String {
        let mut text = String::new();
        for entry in &self.corpus {
            text.push_str(&self.told(entry.seed, &entry.genes));
            text.push('\n');
        }
        format!("{:016x}", seed::fnv1a(text.as_bytes()))
    }
}

/// Where a campaign stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Until {
    /// At its first finding, whose plan is shrunk.
    Shrunk,
    /// At its first finding, as it was found: for counting runs (`compare`).
    Found,
    /// At the end of its budget, going on after each finding (kept out of the corpus) and
    /// counting them in `GuidedExploration::failed`: for how often it finds (`compare`).
    Budget,
}

/// Runs the campaign to its first finding, its plan shrunk, or the end of its budget.
pub fn guided(spec: &GuidedSpec, observer: &dyn Observer) -> GuidedExploration {
    campaign(spec, observer, Until::Shrunk)
}

/// Runs the campaign until `until` says.
pub(super) fn campaign(
    spec: &GuidedSpec,
    observer: &dyn Observer,
    until: Until,
) -> GuidedExploration {
    let prepared = Prepared::new(&spec.scenario, &spec.params, &spec.properties);
    let mut campaign = Campaign::new(spec, prepared.swarm().clone());
    let mut runs = 0;
    let (mut curve, mut failed) = (Vec::new(), Vec::new());
    while runs < spec.runs {
        let size = generation_size(runs).min(spec.runs - runs);
        campaign.yields.next_generation();
        let candidates: Vec<Candidate> = (0..size).map(|_| campaign.next()).collect();
        let specs: Vec<RunSpec> = candidates.iter().map(|c| campaign.run_spec(c)).collect();
        let results = run_all(&specs, spec.jobs, observer, |s| {
            run_logged(&prepared, s, spec.check_determinism)
        });
        for ((candidate, run_spec), (result, log)) in candidates.into_iter().zip(specs).zip(results)
        {
            runs += 1;
            let result = match result {
                Ok(Ok(report)) if report.violations.is_empty() => {
                    campaign.take_in(candidate, &report, log);
                    continue;
                }
                result => result,
            };
            campaign.take_finding(&candidate);
            let result = match result {
                _ if until == Until::Budget => {
                    failed.push(runs);
                    continue;
                }
                Ok(failed) => SeedResult::Failed(failed),
                Err(detail) => SeedResult::Diverged(detail),
            };
            curve.push((runs, campaign.map.len()));
            let outcome = match result {
                SeedResult::Failed(Ok(report)) if until == Until::Found => {
                    Outcome::Violation(Box::new(super::Finding {
                        original_faults: run_spec.plan.0.len(),
                        spec: run_spec,
                        report,
                    }))
                }
                result => super::failure(run_spec, result, observer),
            };
            return campaign.ended(runs, outcome, curve, failed);
        }
        curve.push((runs, campaign.map.len()));
        observer.generation(runs, campaign.corpus.len(), campaign.map.len());
    }
    campaign.ended(runs, Outcome::Clean, curve, failed)
}

#[cfg(test)]
mod tests;
