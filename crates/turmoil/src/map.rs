//! The simulation's maps, hashed with a fixed, fast hasher (FxHash): their order is their
//! insertion order whatever the hasher, and their keys (addresses, ports, socket pairs,
//! host names) come from the simulation itself, so SipHash's random keys buy nothing here.

use rustc_hash::FxBuildHasher;

pub(crate) type IndexMap<K, V> = indexmap::IndexMap<K, V, FxBuildHasher>;
