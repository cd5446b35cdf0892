//! The files of `zk/server` import one way: no file imports one that imports it back,
//! however indirectly (tests/layout.rs keeps each under 800 lines). Read from the sources, so
//! a change that closes a cycle fails here with the cycle named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each non-test file of `zk/server` (`server` for `server.rs`) and the files it names:
/// a child's `super::file::…` names `file`, its `super::Item` the root; the root's
/// `file::…` names `file`. Comments and in-file test modules do not count.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let zk = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/zk");
    let mut files = BTreeMap::from([("server".to_string(), zk.join("server.rs"))]);
    for entry in std::fs::read_dir(zk.join("server")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("test") {
            files.insert(name, path);
        }
    }
    let mut graph = BTreeMap::new();
    for (name, path) in &files {
        let src = source(path);
        let code = src.split("#[cfg(test)]\nmod tests {").next().unwrap();
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let mut names = BTreeSet::new();
        let named = |first: &str| match files.contains_key(first) {
            true => first.to_string(),
            false => "server".to_string(),
        };
        if name == "server" {
            for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
                if let Some((first, _)) = word.split_once("::")
                    && first != "server"
                    && files.contains_key(first)
                    && !word.starts_with("crate::")
                {
                    names.insert(first.to_string());
                }
            }
        } else {
            for (i, _) in code.match_indices("super::") {
                let rest = &code[i + "super::".len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let group = &group[..group.find('}').unwrap()];
                    for item in group.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                        names.insert(named(item.split("::").next().unwrap()));
                    }
                } else {
                    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'));
                    names.insert(named(&rest[..end.unwrap_or(rest.len())]));
                }
            }
            for (i, _) in code.match_indices("crate::zk::server") {
                let rest = code[i + "crate::zk::server".len()..].trim_start_matches("::");
                let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'));
                names.insert(named(&rest[..end.unwrap_or(rest.len())]));
            }
        }
        names.remove(name);
        names.retain(|n| !n.starts_with("test"));
        graph.insert(name.clone(), names);
    }
    graph
}

/// A file's source; a folder's (`ops/`) is its `mod.rs`, then its other files with their
/// own `super::` (the folder itself) left out.
fn source(path: &Path) -> String {
    if !path.is_dir() {
        return std::fs::read_to_string(path).unwrap();
    }
    let mut src = std::fs::read_to_string(path.join("mod.rs")).unwrap();
    let mut children: Vec<_> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_stem().is_some_and(|s| s != "mod" && s != "tests"))
        .collect();
    children.sort();
    for child in children {
        let code = std::fs::read_to_string(child).unwrap();
        let code = code.split("#[cfg(test)]\nmod tests {").next().unwrap();
        src.push_str(&code.replace("super::", "folder::"));
    }
    src
}

/// A cycle of `graph`, when it has one: the files on it, in order, the first again last.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(graph, node, &mut Vec::new(), &mut done))
}

#[test]
fn the_files_of_zk_server_import_one_way() {
    let graph = imports();
    assert!(graph["ensemble"].contains("leading"), "read: {graph:?}");
    assert!(graph["leading"].contains("member"), "read: {graph:?}");
    assert!(graph["server"].contains("ensemble"), "read: {graph:?}");
    assert!(graph["ops"].contains("replica"), "read: {graph:?}");
    assert_eq!(cycle(&graph), None, "an import cycle in zk/server");
}

#[test]
fn a_cycle_is_found_and_named() {
    let edges = |list: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in list {
            graph
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
        }
        graph
    };
    let one_way = edges(&[
        ("server", "ensemble"),
        ("ensemble", "leading"),
        ("server", "leading"),
    ]);
    assert_eq!(cycle(&one_way), None);
    let back = edges(&[
        ("server", "ensemble"),
        ("ensemble", "leading"),
        ("leading", "server"),
    ]);
    let found = cycle(&back).expect("a cycle");
    assert_eq!(found, ["ensemble", "leading", "server", "ensemble"]);
}
