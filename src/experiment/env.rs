//! What the environment asks of a test run, as madsim's `MADSIM_TEST_SEED` does: replay a
//! trace (`LOCKSIM_REPLAY`), pin a seed or a range (`LOCKSIM_SEED`, `LOCKSIM_SEEDS`), write
//! traces elsewhere (`LOCKSIM_TRACES`); and the defaults when it asks nothing.

use std::ops::Range;
use std::path::PathBuf;

/// The test running on this thread, as libtest names its thread (`module::test`); None
/// outside a test thread.
pub(super) fn test_name() -> Option<String> {
    std::thread::current()
        .name()
        .filter(|name| *name != "main")
        .map(str::to_string)
}

/// The test binary this process runs, as cargo names its target (`tests/zk_lock.rs` is
/// `zk_lock`); None when the executable's name is not cargo's `NAME-HASH`.
pub(super) fn test_binary() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    target_of(exe.file_stem()?.to_str()?).map(str::to_string)
}

/// `NAME` of cargo's `NAME-HASH`, the hash 16 hex digits.
fn target_of(stem: &str) -> Option<&str> {
    let (name, hash) = stem.rsplit_once('-')?;
    let hashed = hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    (hashed && !name.is_empty()).then_some(name)
}

/// The test this thread runs, told apart from a test of the same name in another binary of
/// the crate (`zk_lock::watching_the_lowest` and `tk_lock::watching_the_lowest`).
pub(super) fn qualified_test_name() -> Option<String> {
    let test = test_name()?;
    Some(match test_binary() {
        Some(binary) => format!("{binary}::{test}"),
        None => test,
    })
}

/// `name` as a file name and scenario name: letters, digits, `-` and `_`; `::` becomes `-`.
pub(super) fn file_safe(name: &str) -> String {
    name.replace("::", "-")
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' => c,
            _ => '-',
        })
        .collect()
}

/// The trace `LOCKSIM_REPLAY` names, if set.
pub(super) fn replay_path() -> Option<PathBuf> {
    std::env::var_os("LOCKSIM_REPLAY")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The seeds `LOCKSIM_SEED=N` (just N) or `LOCKSIM_SEEDS=A..B` pin, if either is set.
pub(super) fn seeds() -> Result<Option<Range<u64>>, String> {
    parse_seeds(
        std::env::var("LOCKSIM_SEED").ok(),
        std::env::var("LOCKSIM_SEEDS").ok(),
    )
}

/// `seeds` of the two variables' values.
fn parse_seeds(seed: Option<String>, range: Option<String>) -> Result<Option<Range<u64>>, String> {
    if let Some(seed) = seed {
        let seed: u64 = seed
            .parse()
            .map_err(|_| format!("LOCKSIM_SEED={seed}: expected a number"))?;
        return Ok(Some(seed..seed.saturating_add(1)));
    }
    let Some(range) = range else {
        return Ok(None);
    };
    let bad = || format!("LOCKSIM_SEEDS={range}: expected A..B with A < B");
    let (a, b) = range.split_once("..").ok_or_else(bad)?;
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(a), Ok(b)) if a < b => Ok(Some(a..b)),
        _ => Err(bad()),
    }
}

/// As many simulations at once as the machine runs threads.
pub(super) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `LOCKSIM_TRACES`, else `locksim-traces` in the target directory of the running test
/// binary (`target/release/deps/x` → `target/locksim-traces`), else in the working
/// directory. Never the committed `traces/`.
pub(super) fn trace_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LOCKSIM_TRACES").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    let target = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?;
        let profile = if dir.ends_with("deps") {
            dir.parent()?
        } else {
            dir
        };
        profile.parent().map(PathBuf::from)
    });
    target.unwrap_or_default().join("locksim-traces")
}

/// The command that replays `trace` through this test binary alone (another binary's test
/// of the same name would take the trace for its own): the test this thread runs, of the
/// package cargo says it is testing.
pub(super) fn replay_command(trace: &std::path::Path) -> String {
    let path = std::fs::canonicalize(trace).unwrap_or_else(|_| trace.to_path_buf());
    let package = std::env::var("CARGO_PKG_NAME").ok();
    let binary = test_binary().map(|b| target_arg(&b, package.as_deref()));
    let package = package.map(|p| format!(" -p {p}")).unwrap_or_default();
    let filter = test_name()
        .map(|t| format!(" -- {t} --exact --nocapture"))
        .unwrap_or_default();
    let profile = std::env::current_exe()
        .ok()
        .and_then(|exe| profile_arg(&exe))
        .unwrap_or(" --release");
    format!(
        "LOCKSIM_REPLAY={} cargo test{profile}{package}{}{filter}",
        path.display(),
        binary.unwrap_or_default()
    )
}

/// cargo's argument that builds with the profile `exe` (`target/PROFILE/deps/NAME-HASH`) was
/// built with, so that replaying reuses that build; None where the path says no profile.
fn profile_arg(exe: &std::path::Path) -> Option<&'static str> {
    let deps = exe.parent()?;
    let profile = deps.ends_with("deps").then(|| deps.parent())??;
    Some(match profile.file_name()?.to_str()? {
        "debug" => "",
        "release" => " --release",
        // The workspace's test profile; a user's own profile is not known here.
        "suite" => " --profile suite",
        _ => return None,
    })
}

/// cargo's argument that picks `binary` out of `package`: the library's unit tests are named
/// after the crate.
fn target_arg(binary: &str, package: Option<&str>) -> String {
    match package {
        Some(p) if p.replace('-', "_") == binary => " --lib".to_string(),
        _ => format!(" --test {binary}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_binary_is_cargos_target_name_and_picked_by_its_argument() {
        assert_eq!(target_of("zk_lock-2c11918114d61928"), Some("zk_lock"));
        assert_eq!(target_of("my-tests-00ff00ff00ff00ff"), Some("my-tests"));
        for not_cargos in [
            "zk_lock",
            "zk_lock-2c1191811",
            "-2c11918114d61928",
            "a-zz11918114d61928",
        ] {
            assert_eq!(target_of(not_cargos), None, "{not_cargos}");
        }
        assert_eq!(
            target_arg("zk_lock", Some("user-recipes")),
            " --test zk_lock"
        );
        assert_eq!(target_arg("user_recipes", Some("user-recipes")), " --lib");
        assert_eq!(target_arg("zk_lock", None), " --test zk_lock");
    }

    #[test]
    fn a_replay_builds_with_the_profile_the_test_binary_was_built_with() {
        let arg = |path: &str| profile_arg(std::path::Path::new(path));
        assert_eq!(
            arg("/c/target/debug/deps/zk_lock-2c11918114d61928"),
            Some("")
        );
        assert_eq!(
            arg("/c/target/release/deps/x-2c11918114d61928"),
            Some(" --release")
        );
        assert_eq!(
            arg("/c/target/suite/deps/x-2c11918114d61928"),
            Some(" --profile suite")
        );
        assert_eq!(arg("/c/target/custom/deps/x-2c11918114d61928"), None);
        assert_eq!(arg("/usr/bin/x"), None);
    }

    #[test]
    fn seeds_are_pinned_by_one_seed_or_a_range_and_bad_values_are_named() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(parse_seeds(None, None), Ok(None));
        assert_eq!(parse_seeds(s("7"), s("0..9")), Ok(Some(7..8)));
        assert_eq!(parse_seeds(None, s("3..9")), Ok(Some(3..9)));
        for bad in ["9..3", "3", "a..b", "5..5"] {
            let err = parse_seeds(None, s(bad)).unwrap_err();
            assert_eq!(
                err,
                format!("LOCKSIM_SEEDS={bad}: expected A..B with A < B")
            );
        }
        assert_eq!(
            parse_seeds(s("x"), None).unwrap_err(),
            "LOCKSIM_SEED=x: expected a number"
        );
    }

    #[test]
    fn test_names_become_file_names() {
        assert_eq!(file_safe("redis::get_then_del"), "redis-get_then_del");
        assert_eq!(file_safe("a b/c"), "a-b-c");
    }
}
