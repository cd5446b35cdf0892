//! docs/layout.md names every module: each file or folder of `src/` and each one inside a
//! folder of `src/` (deeper ones are parts of a module the layout already describes). A
//! module is named within the entries of its top folder (`zk/`'s lines for `src/zk/acl.rs`)
//! as `acl.rs` or `acl/`; test-only modules (`test*`) need no line. And no source file of
//! `src/` outside its tests grows past 800 lines, so that every one stays readable whole.

use std::collections::BTreeMap;
use std::path::Path;

/// The layout's tree of `src/`, its lines grouped by the top-level entry they belong to: a
/// line indented by two spaces starts an entry (`  zk/`, `  main.rs, cli/`,
/// `  explore/shard.rs`), deeper lines continue it.
fn entries(layout: &str) -> BTreeMap<String, String> {
    let tree = layout
        .split_once("```\nsrc/\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(tree, _)| tree)
        .expect("docs/layout.md has a ```-block that starts with src/");
    let mut entries: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Vec<String> = Vec::new();
    for line in tree.lines() {
        if let Some(entry) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            let names = entry.split("  ").next().unwrap_or_default();
            current = names
                .split(", ")
                .map(|name| top_name(name.trim()).to_string())
                .collect();
        }
        for name in &current {
            let text = entries.entry(name.clone()).or_default();
            text.push_str(line);
            text.push('\n');
        }
    }
    entries
}

/// `zk` of `zk/`, `explore` of `explore/shard.rs`, `main` of `main.rs`.
fn top_name(entry: &str) -> &str {
    entry.split(['/', '.']).next().unwrap_or(entry)
}

/// The modules of folder `dir`: its `.rs` files and its folders that hold some, by name,
/// without `mod.rs` and the test-only ones.
fn modules(dir: &Path) -> Vec<String> {
    let mut modules: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            if name.starts_with("test") || name == "mod.rs" {
                return None;
            }
            if let Some(stem) = name.strip_suffix(".rs") {
                return Some(stem.to_string());
            }
            holds_rust(&path).then_some(name)
        })
        .collect();
    modules.sort();
    modules.dedup();
    modules
}

fn holds_rust(path: &Path) -> bool {
    path.is_dir()
        && std::fs::read_dir(path).unwrap().any(|e| {
            let path = e.unwrap().path();
            path.extension().is_some_and(|x| x == "rs") || holds_rust(&path)
        })
}

/// Whether `text` names module `name` as a file (`name.rs`) or a folder (`name/`), on its
/// own or at the end of a path (`zk/lock/`).
fn names(text: &str, name: &str) -> bool {
    [format!("{name}.rs"), format!("{name}/")]
        .iter()
        .any(|spelled| {
            text.match_indices(spelled.as_str()).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + spelled.len()..].chars().next();
                let inside_a_name = before.is_some_and(|c| c.is_alphanumeric() || c == '_');
                let longer = spelled.ends_with(".rs") && after.is_some_and(char::is_alphanumeric);
                !inside_a_name && !longer
            })
        })
}

/// The modules of `src` (two levels deep) that `layout` does not name where it should.
fn unlisted(src: &Path, layout: &str) -> Vec<String> {
    let entries = entries(layout);
    let mut unlisted = Vec::new();
    for top in modules(src) {
        let Some(text) = entries.get(&top) else {
            unlisted.push(top);
            continue;
        };
        let dir = src.join(&top);
        if dir.is_dir() {
            for module in modules(&dir) {
                if !names(text, &module) {
                    unlisted.push(format!("{top}/{module}"));
                }
            }
        }
    }
    unlisted
}

#[test]
fn the_layout_names_every_module_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layout = std::fs::read_to_string(root.join("docs/layout.md")).unwrap();
    let unlisted = unlisted(&root.join("src"), &layout);
    assert!(
        unlisted.is_empty(),
        "docs/layout.md does not name these modules of src/ (a line or a mention each, under \
         their folder's entry): {unlisted:?}"
    );
}

#[test]
fn a_module_left_out_of_the_layout_is_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layout = std::fs::read_to_string(root.join("docs/layout.md")).unwrap();
    let without_pause = layout.replace("    pause.rs           per-host pause gate\n", "");
    assert_ne!(
        without_pause, layout,
        "the layout's line for sim/pause.rs moved"
    );
    assert_eq!(unlisted(&root.join("src"), &without_pause), ["sim/pause"]);
    let without_world = layout.replace("  world/ ", "  planet/ ");
    assert_eq!(unlisted(&root.join("src"), &without_world), ["world"]);
}

/// The `.rs` files under `dir`, leaving out test-only ones (a file or folder named `test*`).
fn sources(dir: &Path, into: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if name.starts_with("test") {
            continue;
        }
        if path.is_dir() {
            sources(&path, into);
        } else if name.ends_with(".rs") {
            into.push(path);
        }
    }
}

#[test]
fn no_source_file_outside_tests_passes_800_lines() {
    let mut paths = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut paths,
    );
    assert!(paths.len() > 100, "only {} sources found", paths.len());
    let long: Vec<String> = paths
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > 800).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "past 800 lines: {long:?}");
}
