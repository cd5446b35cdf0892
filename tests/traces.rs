//! Every committed trace file replays to its recorded verdict and digest, and its timeline
//! tells every pause that struck a client of its first violation; what the Redis hosts
//! record of their clients' commands, on a committed finding.

use locksim::history::{HarnessOp, Op};
use locksim::redis::events::{KeyChange, RedisEvent};
use locksim::sim::fault::Fault;
use locksim::timeline;
use locksim::trace::{Trace, replay};
use locksim::world::run::RunReport;
use std::path::Path;

#[test]
fn every_committed_trace_replays_as_recorded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("traces/ exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "traces/ holds the committed findings");
    for path in files {
        let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            trace.digest.is_some(),
            "{}: committed traces record their digest",
            path.display()
        );
        let r = replay(&trace, &path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.verdict_matches,
            "{}: expected {:?}, got {:?}",
            path.display(),
            trace.expect.violations,
            r.violated
        );
        assert_eq!(
            r.digest_matches,
            Some(true),
            "{}: non-determinism",
            path.display()
        );
        let Some(first) = r.report.violations().first() else {
            continue;
        };
        let lines = timeline::timeline(r.report.history(), r.report.violations(), r.report.plan());
        for pause in pauses_of(&r.report, &first.clients) {
            assert!(
                lines.iter().any(|line| line.contains(&pause)),
                "{}: the timeline does not tell the pause '{pause}' of a client in the first \
                 violation:\n{}",
                path.display(),
                lines.join("\n")
            );
        }
    }
}

/// Issue 21: what the history says of each pause that struck one of `clients`, however
/// early: a planned pause's fault line, a `pause_before`'s freeze, a targeted pause's line
/// with whom it struck.
fn pauses_of(report: &RunReport, clients: &[String]) -> Vec<String> {
    let planned = report
        .plan()
        .faults()
        .iter()
        .filter_map(|t| match &t.fault {
            Fault::Pause { node, .. } if clients.contains(node) => {
                Some(format!("fault: {}", t.fault))
            }
            _ => None,
        });
    let struck = report.history().events.iter().filter_map(|e| match &e.op {
        Op::Harness(HarnessOp::Paused { node, for_ms, .. }) if clients.contains(node) => {
            Some(format!("{node} freezes for {for_ms} ms"))
        }
        Op::Harness(HarnessOp::Fault { fault })
            if report.plan().faults().iter().any(|t| {
                t.fault.is_targeted()
                    && clients
                        .iter()
                        .any(|c| *fault == format!("{}: {c}", t.fault))
            }) =>
        {
            Some(format!("fault: {fault}"))
        }
        _ => None,
    });
    planned.chain(struck).collect()
}

/// The key changes of the Redis host in a replayed trace, with the timeline of its run.
fn key_changes(file: &str) -> (Vec<KeyChange>, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(file);
    let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let r = replay(&trace, &path).unwrap_or_else(|e| panic!("{e}"));
    let changes = r
        .report
        .history()
        .events
        .iter()
        .filter_map(|e| match &e.op {
            Op::Server(event) => match event.read::<RedisEvent>() {
                Some(RedisEvent::KeyChanged(change)) => Some(change),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let lines = timeline::timeline(r.report.history(), r.report.violations(), r.report.plan());
    (changes, lines)
}

/// Issue 20: R8's finding shows whose DEL removed whose key, in the history and the
/// timeline; the compare-and-delete release of the same run removes no one else's.
#[test]
fn r8s_history_shows_whose_del_removed_whose_key() {
    let (changes, lines) = key_changes("r8-release-redis-lock-del.json");
    let set_by_c1 = changes
        .iter()
        .find(|c| c.client == "c1" && c.command == "SET")
        .expect("c1 sets the lock");
    let token = set_by_c1.after.clone().expect("SET leaves a value");
    let del = changes
        .iter()
        .find(|c| c.command == "DEL" && c.owner.as_deref() == Some("c1"))
        .expect("a DEL of c1's key");
    assert_eq!(del.client, "c2", "{del:?}");
    assert_eq!(del.key, "locksim:lock");
    assert_eq!(del.before.as_deref(), Some(token.as_str()));
    assert_eq!(del.after, None);
    assert_eq!(del.result, "1");
    let told = format!(r#"redis1   c2 DEL locksim:lock removed c1's "{token}""#);
    assert!(
        lines.iter().any(|l| l.ends_with(&told)),
        "{told:?} not in the timeline:\n{}",
        lines.join("\n")
    );

    let (changes, lines) = key_changes("r8-release-redis-lock.json");
    assert!(
        changes
            .iter()
            .any(|c| c.command.starts_with("EVAL") && c.after.is_none()),
        "the script releases: {changes:#?}"
    );
    let others = |c: &&KeyChange| c.owner.as_ref().is_some_and(|o| *o != c.client);
    assert_eq!(changes.iter().filter(others).count(), 0, "{changes:#?}");
    assert!(
        !lines.iter().any(|l| l.contains(" removed ")),
        "{}",
        lines.join("\n")
    );
}
