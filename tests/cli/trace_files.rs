//! Trace files as files: what `replay` refuses to read (malformed JSON, out-of-range faults,
//! devices, FIFOs, oversized files) and what saving a trace does when the name is taken by
//! something else (a directory, a foreign file, a dangling symlink, an edited trace).

use crate::support::*;
use serde_json::{Value, json};

fn replay_is_bad_input(s: &Scratch, name: &str, text: &str, needle: &str) {
    let path = s.write(&format!("{name}.json"), text);
    assert_bad_input(s, &["replay", path.to_str().unwrap()], needle);
}

#[test]
fn out_of_range_clock_faults_at_i64_min_are_refused() {
    let s = Scratch::new("trace_i64_min");
    let fault = |f: Value| noguid_with("faults", json!([f]));
    for (name, f, needle) in [
        (
            "drift",
            json!({"at_ms": 10, "fault": "clock_drift", "node": "zk1", "ppm": i64::MIN}),
            "ppm must be within",
        ),
        (
            "jump",
            json!({"at_ms": 10, "fault": "clock_jump", "node": "zk1", "by_ms": i64::MIN}),
            "by_ms must be within",
        ),
    ] {
        replay_is_bad_input(&s, name, &fault(f), needle);
    }
}
