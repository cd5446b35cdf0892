#!/usr/bin/env bash
# The whole test suite on a Debian or Ubuntu machine with Rust: installs what the suite needs,
# then runs it (what CI runs): the workspace's tests, then the example crate copied out as a
# user's crate. Usage: ./test.sh [ARGS for the workspace's cargo test]; ./test.sh --help.
#
# What it installs, only where missing:
#   - Debian packages (root, or sudo without a password): zookeeper and redis-server (the
#     conformance suites and `serve` tests start the real servers and drive their CLIs),
#     chromium (the HTML picture's tests), parallel (the deployment recipes' test), python3,
#     python3-pip, nodejs and npm (the client matrix).
#   - The client matrix's pinned Python and Node packages, inside the clone (git-ignored):
#     tests/client_matrix/python/site and tests/client_matrix/node/node_modules.
# Where it cannot install (no root, no network), it stops before building, exit status 2, with
# the commands to run.
set -euo pipefail
cd "$(dirname "$0")"

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

stop() {
  printf 'test.sh: %s\n' "$@" >&2
  exit 2
}

command -v cargo >/dev/null || stop "cargo not found on PATH: install Rust (rustup.rs), then run ./test.sh again"

missing=()
[ -x /usr/share/zookeeper/bin/zkCli.sh ] || missing+=(zookeeper)
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
command -v chromium >/dev/null || missing+=(chromium)
command -v parallel >/dev/null || missing+=(parallel)
command -v python3 >/dev/null || missing+=(python3)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  apt_install="apt-get update && apt-get install -y ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    stop "the suite needs these Debian packages (or your system's equivalents): ${missing[*]}" \
      "install them, then run ./test.sh again"
  fi
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    stop "the suite needs these Debian packages: ${missing[*]}" \
      "run as root: sudo sh -c '$apt_install'" "then run ./test.sh again"
  fi
  echo "test.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    stop "could not install ${missing[*]} (is the network reachable?)" "run: sudo sh -c '$apt_install'" \
      "then run ./test.sh again"
fi

# The client matrix's packages, installed again only when their pins change (a copy of the pin
# file beside what it installed says which pins are there).
matrix=tests/client_matrix
site="$matrix/python/site"
if ! cmp -s "$matrix/python/requirements.txt" "$site/.locksim-pins" 2>/dev/null; then
  pip_install="python3 -m pip install --upgrade --target $site -r $matrix/python/requirements.txt"
  echo "test.sh: installing the client matrix's Python packages into $site" >&2
  rm -rf "$site"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --timeout 30 \
    --retries 2 --upgrade --target "$site" -r "$matrix/python/requirements.txt" ||
    stop "could not install the client matrix's Python packages (is PyPI reachable?)" "run: $pip_install" \
      "then run ./test.sh again"
  cp "$matrix/python/requirements.txt" "$site/.locksim-pins"
fi
modules="$matrix/node/node_modules"
if ! cmp -s "$matrix/node/package-lock.json" "$modules/.locksim-pins" 2>/dev/null; then
  echo "test.sh: installing the client matrix's Node packages into $modules" >&2
  npm ci --prefix "$matrix/node" --no-audit --no-fund --loglevel=error --fetch-retries=2 \
    --fetch-timeout=30000 ||
    stop "could not install the client matrix's Node packages (is the npm registry reachable?)" \
      "run: npm ci --prefix $matrix/node" "then run ./test.sh again"
  cp "$matrix/node/package-lock.json" "$modules/.locksim-pins"
fi

# With arguments, they go to the workspace's `cargo test` (the example crate included, as a
# member). Without, the whole suite: the workspace's tests, and the example crate as a user's
# crate, copied out and built without --cfg tokio_unstable (tests/user_crate/run.sh), which
# runs its tests there instead of a second time in the workspace. That build and those tests
# (its step 1) share nothing with the workspace's (the flag differs), so they go on beside
# them at a lower priority, taking the core the workspace leaves idle; its step 2, the
# findings replayed across the two builds, comes after.
if [ $# -gt 0 ]; then
  exec cargo test --profile suite --workspace --exclude locksim-turmoil "$@"
fi
start=$SECONDS
# Cargo makes a missing target directory as a sibling `target<random>` that it renames into
# place. Step 1's first build lists this repository's untracked files (its fingerprint of
# locksim's build script) and fails if such a sibling vanishes under it, as it did in CI: so
# the workspace's target directory exists before the two builds start.
mkdir -p "$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
crate="$(mktemp -d)"
export USER_CRATE_TARGET_DIR="$crate/target"
setsid nice -n 10 tests/user_crate/run.sh --step 1 "$crate/user-recipes" >"$crate/step1.log" 2>&1 &
step1=$!
trap 'kill -- -"$step1" 2>/dev/null || true; rm -rf "$crate"' EXIT
cargo test --profile suite --workspace --exclude locksim-turmoil --exclude user-recipes
echo "test.sh: the workspace passed in $((SECONDS - start)) s" >&2
if ! wait "$step1"; then
  cat "$crate/step1.log" >&2
  echo "test.sh: the example crate failed as a user's crate (its log is above)" >&2
  exit 1
fi
grep -E "^(== |test result: )" "$crate/step1.log" >&2
tests/user_crate/run.sh --step 2 "$crate/user-recipes"
echo "test.sh: the whole suite passed in $((SECONDS - start)) s" >&2
