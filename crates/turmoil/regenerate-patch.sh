#!/usr/bin/env bash
# Writes locksim.patch: this crate's difference from pristine turmoil 0.7.2 (crates.io's
# package, its Cargo.toml.orig standing for Cargo.toml as in upstream's repository), over the
# files this crate carries. It applies with `patch -p1` in a checkout of upstream's v0.7.2.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version=0.7.2
sha256=0061c28f1469e94771bb8aa626ce6b29265c2fb5034115046a170b0cba2e33d2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -sSfL -o "$work/turmoil.crate" "https://static.crates.io/crates/turmoil/turmoil-$version.crate"
echo "$sha256  $work/turmoil.crate" | sha256sum --check --quiet
tar -xzf "$work/turmoil.crate" -C "$work"
mkdir "$work/a" "$work/b"
(cd "$work/turmoil-$version" && cp -r src tests LICENSE README.md "$work/a/" &&
  cp Cargo.toml.orig "$work/a/Cargo.toml")
(cd "$here" && cp -r src tests LICENSE README.md Cargo.toml "$work/b/")
# git diff exits 1 when the trees differ, which they do.
(cd "$work" && git diff --no-index --no-prefix a b || true) >"$here/locksim.patch"
(cd "$work/turmoil-$version" && rm Cargo.toml && mv Cargo.toml.orig Cargo.toml &&
  patch -p1 --quiet --dry-run <"$here/locksim.patch")
wc -l "$here/locksim.patch"
