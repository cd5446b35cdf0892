//! Every committed trace file replays to its recorded verdict and digest.

use locksim::trace::{Trace, replay};
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
    }
}
