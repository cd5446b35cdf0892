//! `replay --html OUT`: the picture of a run, written where asked, the same bytes every
//! time; an OUT that cannot be written is bad input.

use super::support::*;
use std::path::Path;

fn r1() -> String {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/r1-pause-redlock.json");
    trace.to_str().unwrap().to_string()
}

#[test]
fn replay_writes_the_picture_where_asked_and_the_same_bytes_every_time() {
    let s = Scratch::new("html_replay");
    let ran = s.run(&["replay", &r1(), "--html", "r1.html"]);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.contains("picture: r1.html"), "{}", ran.stdout);
    let page = std::fs::read_to_string(s.0.join("r1.html")).expect("the page is written");
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
    assert!(page.contains("redlock, seed 2: "), "titled by its run");

    let v = s.json(&["replay", &r1(), "--html", "again.html"], 0);
    assert_eq!(v["html"], "again.html", "{v}");
    assert_eq!(
        std::fs::read_to_string(s.0.join("again.html")).unwrap(),
        page
    );
}

#[test]
fn an_html_file_that_cannot_be_written_is_bad_input() {
    let s = Scratch::new("html_unwritable");
    assert_bad_input(
        &s,
        &["replay", &r1(), "--html", "no/such/dir/r1.html"],
        "cannot write no/such/dir/r1.html",
    );
    std::fs::create_dir(s.0.join("taken.html")).unwrap();
    assert_bad_input(
        &s,
        &["replay", &r1(), "--html", "taken.html"],
        "cannot write taken.html",
    );
}
