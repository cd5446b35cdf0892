#!/usr/bin/env bash
# examples/user-recipes as a user's crate: copied outside the repository, its locksim path
# pointed back here, without locksim's .cargo/config.toml, so built without --cfg
# tokio_unstable (and a target directory of its own: a full build of locksim). Then:
#   1. `cargo test --release` there: its tests pass, and its committed traces (recorded by the
#      workspace, with the flag) replay bit for bit;
#   2. findings it writes (without the flag) replay in the workspace (with it), and findings
#      the workspace writes replay there: LOCKSIM_REPLAY=<file> cargo test --release.
#
# Usage: tests/user_crate/run.sh [--step 1|2] [DIR]
#   DIR: where to copy the crate (default: a new temporary directory, removed at the end);
#   its target directory is DIR/target unless USER_CRATE_TARGET_DIR names another, which
#   a later run can reuse. Step 2 builds the workspace's tests if they are not built yet.
#   --step N: that step alone. Step 2 reads the findings step 1 wrote, so it runs on the DIR
#   (and target) of an earlier step 1, and builds nothing of the crate again: ./test.sh
#   (CI) runs step 1 beside the workspace's build and tests, step 2 after them.
# On 2 cores from a fresh target directory: under 2 minutes to build, under one to test, and
# under one for step 2.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
steps="1 2"
if [ "${1:-}" = "--step" ]; then
  case "${2:-}" in
    1 | 2) steps="$2" ;;
    *) echo "--step takes 1 or 2, not '${2:-}'" >&2; exit 2 ;;
  esac
  shift 2
fi
if [ $# -gt 0 ]; then
  mkdir -p "$1"
  dir="$(cd "$1" && pwd)"
else
  dir="$scratch/user-recipes"
  mkdir "$dir"
fi
case "$dir/" in
  "$repo"/*) echo "$dir is inside the repository; a user's crate lives elsewhere" >&2; exit 2 ;;
esac
target="${USER_CRATE_TARGET_DIR:-$dir/target}"

# Everything but a target directory, the sources' times kept: copied again over an earlier
# copy, nothing is rebuilt.
find "$repo/examples/user-recipes" -mindepth 1 -maxdepth 1 ! -name target -exec cp -rp {} "$dir/" \;
manifest="$scratch/Cargo.toml"
sed "s|^locksim = { path = \"../..\"|locksim = { path = \"$repo\"|" \
  "$repo/examples/user-recipes/Cargo.toml" >"$manifest"
grep -q "^locksim = { path = \"$repo\"" "$manifest"
# On its own, not a member of any workspace above it.
printf '\n[workspace]\n' >>"$manifest"
cp "$manifest" "$dir/Cargo.toml"
# The workspace's versions of everything (cargo drops what the crate does not use).
cp "$repo/Cargo.lock" "$dir/Cargo.lock"
# No LTO, as the suite builds: it changes no behaviour (the committed traces replay on
# either), and the build takes 109 s without it, 132 s with cargo's default thin LTO (on 2
# cores). Rustflags stay unset, as a user's are.
mkdir -p "$dir/.cargo"
printf '[profile.release]\nlto = "off"\n' >"$dir/.cargo/config.toml"

# What a user's crate gets: no rustflags (locksim's .cargo/config.toml does not reach it).
user() {
  (cd "$dir" && env -u RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
    CARGO_TARGET_DIR="$target" "$@")
}
workspace() {
  (cd "$repo" && "$@")
}

start=$SECONDS
if [[ " $steps " == *" 1 "* ]]; then
  echo "== cargo test --release in $dir (without --cfg tokio_unstable)"
  user cargo test --release
  echo "== its tests passed in $((SECONDS - start)) s"
fi
[[ " $steps " == *" 2 "* ]] || exit 0

# Findings that cross builds: the test that writes each, its binary, and its trace's name.
findings=(
  "semaphore check_then_set_admits_more_than_k semaphore-check_then_set_admits_more_than_k"
  "zk_lock watching_the_lowest_node_wakes_a_herd zk_lock-watching_the_lowest_node_wakes_a_herd"
  "fenced_lock a_fence_that_a_restart_forgets_hands_a_token_out_twice fenced-lock-stalls-none"
)
ws_traces="$scratch/workspace-traces"
# test.sh's packages and profile, so its build is reused: with the fork's dev-dependencies
# (locksim-turmoil not excluded) the features differ and locksim is built again.
ws_test=(cargo test --profile suite --workspace --exclude locksim-turmoil)
for f in "${findings[@]}"; do
  read -r bin test name <<<"$f"
  echo "== $name: written without the flag, replayed with it"
  for trace in "$target"/locksim-traces/"$name"-[0-9]*.json; do
    workspace env LOCKSIM_REPLAY="$trace" \
      "${ws_test[@]}" --test "$bin" -- "$test" --exact --nocapture |
      grep -E "^(digest|$name): " || { echo "$trace did not replay" >&2; exit 1; }
  done
  echo "== $name: written with the flag, replayed without it"
  workspace env LOCKSIM_TRACES="$ws_traces" \
    "${ws_test[@]}" --test "$bin" -- "$test" --exact >/dev/null
  for trace in "$ws_traces/$name"-[0-9]*.json; do
    user env LOCKSIM_REPLAY="$trace" \
      cargo test --release --test "$bin" -- "$test" --exact --nocapture |
      grep -E "^(digest|$name): " || { echo "$trace did not replay" >&2; exit 1; }
  done
done
echo "== done in $((SECONDS - start)) s"
