//! Where the matrix finds its interpreters and its pinned client packages, which `./test.sh`
//! installs inside the clone (git-ignored). Anything missing fails the test at once with a
//! one-line hint naming the command to run, never a hang.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `tests/client_matrix` in the source tree: the programs and their pinned dependency files.
fn matrix_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/client_matrix")
}

/// Where `./test.sh` installs the Python packages (`pip install --target`).
const PYTHON_SITE: &str = "tests/client_matrix/python/site";

/// The command that installs the pinned Python packages, from the clone's root.
fn pip_hint() -> String {
    format!(
        "python3 -m pip install --upgrade --target {PYTHON_SITE} -r tests/client_matrix/python/requirements.txt (as ./test.sh does)"
    )
}

/// The command that installs the pinned Node packages, from the clone's root.
const NPM_HINT: &str = "npm ci --prefix tests/client_matrix/node (as ./test.sh does)";

/// Fails unless `program --version` runs.
fn interpreter(program: &str, install: &str) -> Result<(), String> {
    let runs = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if runs {
        Ok(())
    } else {
        Err(format!("{program} not found on PATH: {install}"))
    }
}

/// `python3 <script> TARGET` (a port, or a connect string where the script takes one) with
/// the pinned packages on its path; fails with a hint when python3 or one of the packages
/// pinned in requirements.txt (at its exact version) is missing.
pub fn python(script: &str, target: &str) -> Result<Command, String> {
    interpreter("python3", "apt-get install python3 python3-pip")?;
    let dir = matrix_dir().join("python");
    let requirements = std::fs::read_to_string(dir.join("requirements.txt"))
        .map_err(|e| format!("requirements.txt: {e}"))?;
    let site = dir.join("site");
    // Pins with an environment marker (`; python_full_version < ...`) apply to some
    // interpreters only.
    let pins = requirements
        .lines()
        .filter(|line| !line.starts_with('#') && !line.contains(';'))
        .filter_map(|line| line.split_once("=="));
    for (name, version) in pins {
        // pip names the record after the package, `-` written `_`.
        let record = format!("{}-{}.dist-info", name.replace('-', "_"), version.trim());
        if !site.join(record).is_dir() {
            return Err(format!(
                "{name} {} is not installed in {PYTHON_SITE}: run {}",
                version.trim(),
                pip_hint()
            ));
        }
    }
    let mut command = Command::new("python3");
    command
        .arg(dir.join(script))
        .arg(target)
        .env("PYTHONPATH", site)
        .env("PYTHONNOUSERSITE", "1");
    Ok(command)
}

/// `node <script> PORT`; fails with a hint when node or one of the packages pinned in
/// package.json (at its exact version) is missing.
pub fn node(script: &str, port: u16) -> Result<Command, String> {
    interpreter("node", "apt-get install nodejs npm")?;
    let dir = matrix_dir().join("node");
    let manifest = read_json(&dir.join("package.json"))?;
    let pins = manifest["dependencies"]
        .as_object()
        .ok_or("package.json has no dependencies")?;
    for (name, version) in pins {
        let installed = read_json(&dir.join("node_modules").join(name).join("package.json"))
            .ok()
            .and_then(|package| package["version"].as_str().map(str::to_string));
        if installed.as_deref() != version.as_str() {
            return Err(format!(
                "npm package {name} {} is not installed in tests/client_matrix/node/node_modules: run {NPM_HINT}",
                version.as_str().unwrap_or("?")
            ));
        }
    }
    let mut command = Command::new("node");
    command.arg(dir.join(script)).arg(port.to_string());
    Ok(command)
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[test]
fn a_missing_interpreter_fails_with_its_install_command() {
    assert_eq!(
        interpreter("locksim-no-such-interpreter", "apt-get install it"),
        Err("locksim-no-such-interpreter not found on PATH: apt-get install it".to_string())
    );
    assert_eq!(interpreter("true", "-"), Ok(()));
}
