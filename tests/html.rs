//! The picture of a run, drawn by a real browser: headless Chromium (Debian's package
//! `chromium`) loads the page of committed traces, runs its script, and the drawing it
//! leaves must hold what the history says: a hold bar per acquire and a term bar per
//! election won on each client's lane, each violation's span over its clients' lanes, each
//! fault's span over the hosts it struck, and a first view that shows the violations.

use locksim::check::Violation;
use locksim::history::{ElectionOp, HarnessOp, History, Kind, LockOp, Op};
use locksim::html;
use locksim::sim::fault::{Fault, FaultPlan};
use locksim::trace::{self, Trace};
use locksim::world::run::RunReport;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// The longest a browser may take to draw a page before the test kills it and fails.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

/// A drawn element's data attributes (`kind`, `what`, `lane`, `start`, `end`, ...).
type Drawn = BTreeMap<String, String>;

/// The first headless-capable Chromium on the PATH.
fn browser() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "no browser to draw the page in: these tests need headless Chromium, Debian's \
                 package `chromium` (apt-get install chromium; ./test.sh installs it)"
            )
        })
}

/// Loads `page` in headless Chromium and returns the DOM its script left, killing the
/// browser if it takes longer than `BROWSER_TIMEOUT`.
fn dump_dom(name: &str, page: &str) -> String {
    // Tests run in parallel and may draw the same trace: each drawing has its own directory.
    static DRAWINGS: AtomicUsize = AtomicUsize::new(0);
    let n = DRAWINGS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("locksim-html-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("page.html");
    std::fs::write(&file, page).unwrap();
    let mut child = Command::new(browser())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the browser starts");
    let mut stdout = child.stdout.take().unwrap();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut dom = String::new();
        let read = stdout.read_to_string(&mut dom);
        let _ = done.send(read.map(|_| dom));
    });
    let dom = finished.recv_timeout(BROWSER_TIMEOUT);
    if dom.is_err() {
        let _ = child.kill();
    }
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    match dom {
        Ok(Ok(dom)) => dom,
        Ok(Err(e)) => panic!("{name}: reading the browser's output: {e}"),
        Err(_) => panic!("{name}: the browser took longer than {BROWSER_TIMEOUT:?}; killed"),
    }
}

/// Every element of `dom` with a `data-kind`, as its `data-*` attributes without the prefix.
fn drawn(dom: &str) -> Vec<Drawn> {
    dom.split('<')
        .filter(|tag| tag.contains("data-kind=\""))
        .map(|tag| {
            let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
            tag.split("\" ")
                .filter_map(|attr| {
                    let (name, value) = attr.split_once("=\"")?;
                    let name = name.rsplit(' ').next()?.strip_prefix("data-")?;
                    Some((name.to_string(), value.trim_end_matches('"').to_string()))
                })
                .collect()
        })
        .collect()
}

/// The committed trace `name` replayed, and what the browser drew of its page.
fn replayed_and_drawn(name: &str) -> (RunReport, String, Vec<Drawn>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(format!("{name}.json"));
    let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let report = trace::replay(&trace, &path)
        .unwrap_or_else(|e| panic!("{e}"))
        .report;
    let dom = dump_dom(name, &html::render(&report, &html::title(&trace, &path)));
    let elements = drawn(&dom);
    assert!(
        !elements.is_empty(),
        "{name}: the script drew nothing:\n{dom}"
    );
    (report, dom, elements)
}

fn count<'a>(elements: &'a [Drawn], kind: &str, what: &str) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for e in elements {
        if e["kind"] == kind && e["what"] == what {
            *counts.entry(e["lane"].as_str()).or_insert(0) += 1;
        }
    }
    counts
}

fn ms(e: &Drawn, key: &str) -> u64 {
    e[key].parse().unwrap_or_else(|_| panic!("{key} of {e:?}"))
}

/// Per client, how many times the history says it acquired a lock, and won an election.
fn wins(history: &History) -> (BTreeMap<&str, usize>, BTreeMap<&str, usize>) {
    let (mut acquired, mut led) = (BTreeMap::new(), BTreeMap::new());
    for e in history.events.iter().filter(|e| e.kind == Kind::Ok) {
        match &e.op {
            Op::Lock(LockOp::Acquire { .. }) => *acquired.entry(e.node.as_str()).or_insert(0) += 1,
            Op::Election(ElectionOp::Lead { .. }) => *led.entry(e.node.as_str()).or_insert(0) += 1,
            _ => {}
        }
    }
    (acquired, led)
}

/// Each fault of `plan` as the history says it acted: its tag, the hosts it struck, and
/// from when to when (the same instant for one that acts at once). A pause before a step
/// acts when the client reaches that step (its `paused` event).
fn expected_faults(
    history: &History,
    plan: &FaultPlan,
) -> Vec<(&'static str, Vec<String>, u64, u64)> {
    let end = history.end_ms();
    let heal = history.heal_ms().unwrap_or(end);
    let later = |from: usize, ends: &dyn Fn(&Fault) -> bool| {
        plan.faults()[from + 1..]
            .iter()
            .find(|t| ends(&t.fault))
            .map_or(heal, |t| t.at_ms.min(heal))
    };
    let link = |a: &str, b: &str, f: &Fault| match f {
        Fault::RepairAll => true,
        Fault::Repair { a: x, b: y } => (x == a && y == b) || (x == b && y == a),
        _ => false,
    };
    let mut expected = Vec::new();
    for (i, t) in plan.faults().iter().enumerate() {
        let hosts: Vec<String> = t.fault.nodes().into_iter().map(String::from).collect();
        let at = t.at_ms;
        let until = match &t.fault {
            Fault::Pause { for_ms, .. }
            | Fault::Loss { for_ms, .. }
            | Fault::Delay { for_ms, .. } => (at + for_ms).min(heal),
            Fault::Partition { a, b } => later(i, &|f| link(a, b, f)),
            Fault::PartitionOneway { from, to } => later(i, &|f| link(from, to, f)),
            Fault::Crash { node } => {
                later(i, &|f| matches!(f, Fault::Restart { node: n } if n == node))
            }
            Fault::ClockDrift { .. } => end,
            Fault::RepairAll | Fault::PauseRole { .. } => continue,
            _ => at,
        };
        expected.push((t.fault.name(), hosts, at, until));
    }
    for e in &history.events {
        if let Op::Harness(HarnessOp::Paused { node, for_ms, .. }) = &e.op {
            let until = (e.time_ms + for_ms).min(heal);
            expected.push(("pause_before", vec![node.clone()], e.time_ms, until));
        }
    }
    expected
}

/// From a violation's first time to its last.
fn span_of(v: &Violation) -> (u64, u64) {
    let times = v.times_ms.iter().copied();
    (times.clone().min().unwrap(), times.max().unwrap())
}

/// The drawing of the committed trace `name` holds what its history says.
fn assert_drawn_as_recorded(name: &str) {
    let (report, dom, elements) = replayed_and_drawn(name);
    let (acquired, led) = wins(report.history());
    assert_eq!(
        count(&elements, "bar", "hold"),
        acquired,
        "{name}: hold bars per client"
    );
    assert_eq!(
        count(&elements, "bar", "lead"),
        led,
        "{name}: term bars per client"
    );

    assert!(
        !report.violations().is_empty(),
        "{name}: a trace of a finding"
    );
    for (i, v) in report.violations().iter().enumerate() {
        let spans: Vec<&Drawn> = elements
            .iter()
            .filter(|e| e["kind"] == "violation" && e.get("violation") == Some(&i.to_string()))
            .collect();
        let lanes: Vec<&str> = spans.iter().map(|e| e["lane"].as_str()).collect();
        assert_eq!(
            lanes, v.clients,
            "{name}: violation {i} ({v}) is over its clients' lanes"
        );
        let (from, until) = span_of(v);
        for span in spans {
            assert_eq!(span["what"], v.property.name(), "{name}: {v}");
            assert_eq!(
                (ms(span, "start"), ms(span, "end")),
                (from, until),
                "{name}: {v}"
            );
        }
    }

    for (what, hosts, start, end) in expected_faults(report.history(), report.plan()) {
        for host in &hosts {
            let found = elements.iter().any(|e| {
                e["kind"] == "fault"
                    && e["what"] == what
                    && e["lane"] == *host
                    && (ms(e, "start"), ms(e, "end")) == (start, end)
            });
            assert!(
                found,
                "{name}: no {what} over {host} from {start} to {end} ms"
            );
        }
    }

    let shown = dom
        .split("showing ")
        .nth(1)
        .and_then(|s| s.split(" ms").next())
        .and_then(|s| s.split_once(".."))
        .map(|(a, b)| (a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()))
        .unwrap_or_else(|| panic!("{name}: the page says what it shows"));
    for v in report.violations() {
        let (from, until) = span_of(v);
        assert!(
            shown.0 <= from && until <= shown.1,
            "{name}: it opens on {shown:?}, which leaves out {v}"
        );
    }
}

#[test]
fn redlock_r1_pause_is_drawn_as_its_history_says() {
    assert_drawn_as_recorded("r1-pause-redlock");
}

#[test]
fn a_zookeeper_lock_with_a_pause_is_drawn_as_its_history_says() {
    assert_drawn_as_recorded("r1-pause-zk-lock");
}

#[test]
fn an_election_is_drawn_with_its_terms() {
    assert_drawn_as_recorded("zk-election-8");
}

#[test]
fn a_double_barrier_and_a_lost_reply_are_drawn() {
    assert_drawn_as_recorded("zk-double-barrier-reenter-1");
}

#[test]
fn a_queues_herd_is_drawn() {
    assert_drawn_as_recorded("zk-queue-herd-0");
}

#[test]
fn partitions_a_repair_and_a_clock_jump_are_drawn_on_the_hosts_they_struck() {
    assert_drawn_as_recorded("r4-clock-jump-wall");
}

#[test]
fn a_crash_is_drawn_until_its_restart() {
    assert_drawn_as_recorded("r5-crash-none");
}

#[test]
fn a_model_checkers_trace_with_a_pause_at_a_step_is_drawn() {
    assert_drawn_as_recorded("model-zk-lock-pause");
}

#[test]
fn the_picture_on_r1_shows_the_pause_over_c1_and_three_overlaps_with_c2() {
    let (_, _, elements) = replayed_and_drawn("r1-pause-redlock");
    let pause: Vec<(u64, u64)> = elements
        .iter()
        .filter(|e| e["kind"] == "fault" && e["lane"] == "c1")
        .map(|e| (ms(e, "start"), ms(e, "end")))
        .collect();
    assert_eq!(pause, [(19, 319)]);
    let overlaps: Vec<(u64, u64)> = elements
        .iter()
        .filter(|e| e["kind"] == "violation" && e["what"] == "mutex" && e["lane"] == "c2")
        .map(|e| (ms(e, "start"), ms(e, "end")))
        .collect();
    assert_eq!(overlaps, [(215, 233), (238, 255), (261, 278)]);
}

#[test]
fn a_traces_page_is_the_same_bytes_every_time() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/r4-clock-jump-wall.json");
    let trace = Trace::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let page = || {
        let report = trace::replay(&trace, &path)
            .unwrap_or_else(|e| panic!("{e}"))
            .report;
        html::render(&report, &html::title(&trace, &path))
    };
    assert_eq!(page(), page());
}
