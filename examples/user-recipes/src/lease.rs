//! A lease of the user's own on Redis, checked just before it is used: a client takes the
//! key `lease` with `SET NX PX`, works, and commits only if its clock says the lease has
//! time left. No request lies between that check and the commit, so a pause that strikes
//! at a time never falls there; a pause aimed at the step `commit`, which the client marks
//! with `node.step` and the test declares with `Experiment::steps`, does, and the commit
//! lands after the lease ended. Its promise is the user's property `within-lease`.

use locksim::check::{CheckConfig, Checker, Reads, Violation};
use locksim::history::{History, Op};
use locksim::redis_rs::{AsyncCommands, ExistenceCheck, SetExpiry, SetOptions};
use locksim::{Node, Property};
use std::collections::BTreeMap;

/// How long a lease lasts; nobody gives it back early.
pub const LEASE_MS: u64 = 100;
/// The part of it a holder counts on, from when it asked.
const VALID_MS: u64 = 80;
/// How long a holder works before it commits.
const WORK_MS: u64 = 40;

/// The user's property: every commit lands within the lease it was made under.
pub const WITHIN_LEASE: Property = Property::new("within-lease");

/// What a client records of its leases.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Lease {
    /// It took the lease.
    Took,
    /// It committed under the lease it took last.
    Committed,
}

/// One client: takes the lease, works and commits, twice. `marked`: it reaches the step
/// `commit` between its last look at the lease and the commit.
pub async fn client(node: Node, marked: bool) {
    let Ok(mut conn) = locksim::redis::rs::connect(&node, "redis1").await else {
        return;
    };
    let options = SetOptions::default()
        .conditional_set(ExistenceCheck::NX)
        .with_expiration(SetExpiry::PX(LEASE_MS));
    let timer = node.timer();
    let mut leases = 0;
    while leases < 2 {
        let asked = timer.now_ms();
        let took: Result<Option<String>, _> =
            conn.set_options("lease", &node.name, options.clone()).await;
        if !matches!(took, Ok(Some(_))) {
            timer.sleep(10).await;
            continue;
        }
        node.record_event(&Lease::Took);
        leases += 1;
        timer.sleep(WORK_MS).await;
        if timer.now_ms() - asked < VALID_MS {
            if marked {
                node.step("commit").await;
            }
            node.record_event(&Lease::Committed);
        }
    }
}

/// The checker of `within-lease`: a commit more than `LEASE_MS` after its client took the
/// lease (by true time) was made after Redis let the lease go.
pub struct WithinLease;

impl Checker for WithinLease {
    fn property(&self) -> Property {
        WITHIN_LEASE
    }

    fn reads(&self) -> &'static [Reads] {
        &[Reads::User]
    }

    fn check(&self, history: &History, _: &CheckConfig) -> Vec<Violation> {
        let mut took = BTreeMap::new();
        let mut violations = Vec::new();
        for e in &history.events {
            let Op::User(event) = &e.op else { continue };
            match event.read::<Lease>() {
                Some(Lease::Took) => {
                    took.insert(e.node.as_str(), e.time_ms);
                }
                Some(Lease::Committed) => {
                    let since = e.time_ms - took.get(e.node.as_str()).copied().unwrap_or(0);
                    if since > LEASE_MS {
                        violations.push(Violation {
                            property: WITHIN_LEASE,
                            clients: vec![e.node.clone()],
                            times_ms: vec![e.time_ms],
                            detail: format!(
                                "{} committed {since} ms after it took a {LEASE_MS} ms lease",
                                e.node
                            ),
                        });
                    }
                }
                None => {}
            }
        }
        violations
    }
}
