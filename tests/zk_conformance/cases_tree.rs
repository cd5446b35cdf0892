//! Cases on the data tree: create modes, sequence numbers, error codes and their order,
//! versions, and the Stat fields each operation leaves.

use locksim::zk::proto::CreateMode::{
    Ephemeral, EphemeralSequential, Persistent, PersistentSequential,
};

use super::script::{Cx, LONG_SESSION_MS};
use super::transcript::Transcript;

/// Every create mode, with create and create2; the ephemerals go with their session.
pub async fn create_modes(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    let s2 = cx.session(LONG_SESSION_MS).await;
    cx.create2(s1, "", "base", Persistent).await;
    cx.create(s1, "p", "pd", Persistent).await;
    cx.create2(s1, "p2", "", Persistent).await;
    cx.create(s1, "e", "ed", Ephemeral).await;
    cx.create2(s1, "e2", "e2d", Ephemeral).await;
    cx.create(s1, "ps-", "psd", PersistentSequential).await;
    cx.create2(s1, "ps-", "", PersistentSequential).await;
    cx.create(s1, "es-", "esd", EphemeralSequential).await;
    cx.create2(s1, "es-", "", EphemeralSequential).await;
    for rel in ["p", "e", "ps-0000000005", "es-0000000007"] {
        cx.get_data(s2, rel).await;
    }
    cx.exists(s2, "e2").await;
    cx.get_children2(s2, "").await;
    cx.close(s1).await;
    cx.get_children2(s2, "").await;
    cx.exists(s2, "e").await;
    cx.finish().await
}

/// One counter per parent, shared by every prefix, advanced by every successful create
/// (sequential or not), never by a failed one, and not given back by deletes; what the
/// parent's cversion counts.
pub async fn sequence_numbers(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "read-", "", EphemeralSequential).await;
    cx.create(s1, "write-", "", EphemeralSequential).await;
    cx.create(s1, "plain", "", Persistent).await;
    cx.create(s1, "read-", "", PersistentSequential).await;
    cx.get_children2(s1, "").await;
    cx.delete(s1, "read-0000000000", -1).await;
    cx.delete(s1, "plain", -1).await;
    cx.get_children2(s1, "").await;
    cx.create(s1, "write-", "", EphemeralSequential).await;
    cx.create(s1, "write-0000000001", "", Persistent).await;
    cx.create(s1, "missing/x-", "", PersistentSequential).await;
    cx.create(s1, "read-", "", EphemeralSequential).await;
    // A hand-made node that the next sequential name collides with, again and again.
    cx.create(s1, "c-0000000007", "", Persistent).await;
    cx.create(s1, "c-", "", PersistentSequential).await;
    cx.create(s1, "c-", "", PersistentSequential).await;
    cx.create(s1, "d-", "", PersistentSequential).await;
    cx.get_children2(s1, "").await;
    // A trailing slash is allowed when the name is the sequence number alone.
    cx.create(s1, "sub", "", Persistent).await;
    cx.create(s1, "sub/", "", PersistentSequential).await;
    cx.create(s1, "sub/", "", EphemeralSequential).await;
    cx.get_children2(s1, "sub").await;
    cx.finish().await
}

/// Which error a create gets, and which check wins when several fail.
pub async fn create_errors(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "missing/x", "", Persistent).await;
    cx.create(s1, "missing/x-", "", EphemeralSequential).await;
    cx.create(s1, "eph", "", Ephemeral).await;
    cx.create(s1, "eph/c", "", Persistent).await;
    cx.create(s1, "eph/c-", "", EphemeralSequential).await;
    cx.create(s1, "eph/c", "", Ephemeral).await;
    cx.create(s1, "eph", "", Persistent).await;
    cx.create(s1, "eph", "", PersistentSequential).await;
    let base = cx.p("");
    for bad in [
        "relative".to_string(),
        String::new(),
        format!("{base}//x"),
        format!("{base}/x/"),
        format!("{base}/./x"),
        format!("{base}/../x"),
        format!("{base}/missing//x"),
        format!("{base}/"),
        format!("{base}/."),
        format!("{base}/.."),
        format!("{base}/eph/."),
        format!("{base}/x\0y"),
    ] {
        cx.create_abs(s1, &bad, Persistent).await;
    }
    // Reads and deletes of malformed paths.
    cx.exists_abs(s1, &format!("{base}/")).await;
    cx.exists_abs(s1, &format!("{base}/x\0y")).await;
    cx.get_data_abs(s1, "relative").await;
    cx.get_data_abs(s1, &format!("{base}/")).await;
    cx.get_children_abs(s1, &format!("{base}//")).await;
    cx.delete_abs(s1, &format!("{base}/"), -1).await;
    cx.delete_abs(s1, &format!("{base}/missing/"), -1).await;
    cx.get_children2(s1, "").await;
    cx.finish().await
}

/// delete: NoNode, then BadVersion, then NotEmpty; setData: NoNode, then BadVersion; the
/// versions and zxids each success leaves.
pub async fn versions(mut cx: Cx) -> Transcript {
    let s1 = cx.session(LONG_SESSION_MS).await;
    cx.create(s1, "", "", Persistent).await;
    cx.create(s1, "n", "v0", Persistent).await;
    cx.create(s1, "n/c", "", Persistent).await;
    cx.set_data(s1, "n", "v1", 0).await;
    cx.delete(s1, "n", 5).await;
    cx.delete(s1, "n", 1).await;
    cx.delete(s1, "n", -1).await;
    cx.delete(s1, "n/c", 3).await;
    cx.delete(s1, "n/c", 0).await;
    cx.delete(s1, "n/c", 0).await;
    cx.delete(s1, "n/c", -1).await;
    cx.get_children2(s1, "n").await;
    cx.set_data(s1, "n", "v2", 0).await;
    cx.set_data(s1, "n", "v2", 1).await;
    cx.set_data(s1, "n", "", -1).await;
    cx.set_data(s1, "missing", "x", 7).await;
    cx.set_data(s1, "missing", "x", -1).await;
    cx.get_data(s1, "n").await;
    cx.delete(s1, "n", 2).await;
    cx.delete(s1, "n", 3).await;
    cx.get_children2(s1, "").await;
    cx.exists(s1, "n").await;
    cx.finish().await
}
