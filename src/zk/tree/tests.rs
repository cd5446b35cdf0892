use super::*;
use CreateMode::*;

const S1: i64 = 0x0100_0000_0000_0001;

fn txn(session: i64, zxid: i64, time: i64) -> Txn<'static> {
    Txn {
        session,
        zxid,
        time,
        who: &[],
    }
}

fn open() -> Vec<Acl> {
    Acl::open_unsafe()
}

fn tree_with(paths: &[&str]) -> Tree {
    let mut t = Tree::default();
    for (i, p) in paths.iter().enumerate() {
        t.create(p, vec![], &open(), Persistent, txn(S1, 10 + i as i64, 0))
            .unwrap();
    }
    t
}

fn create(t: &mut Tree, path: &str, mode: CreateMode) -> Result<String, ErrorCode> {
    t.create(path, b"x".to_vec(), &open(), mode, txn(S1, 100, 7))
        .map(|c| c.path)
}

#[test]
fn path_validation() {
    for ok in ["/", "/a", "/a/b", "/a.b/..c", "/zk-é"] {
        assert_eq!(validate_path(ok), Ok(()), "{ok}");
    }
    for bad in [
        "",
        "a",
        "a/b",
        "/a/",
        "//a",
        "/a//b",
        "/.",
        "/a/./b",
        "/..",
        "/a/..",
        "/a\0b",
        "/a\u{1}",
        "/a\u{7f}",
        "/a\u{fff5}",
        "/a\u{1F600}",
    ] {
        assert_eq!(validate_path(bad), Err(ErrorCode::BadArguments), "{bad:?}");
    }
}

#[test]
fn create_error_order() {
    let mut t = tree_with(&["/a"]);
    t.create("/eph", vec![], &open(), Ephemeral, txn(S1, 20, 0))
        .unwrap();
    // No '/' or NUL: rejected before the parent is looked up.
    assert_eq!(
        create(&mut t, "a", Persistent),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        create(&mut t, "/nope/a\0", Persistent),
        Err(ErrorCode::BadArguments)
    );
    // A missing parent wins over a malformed last component.
    assert_eq!(
        create(&mut t, "/nope/.", Persistent),
        Err(ErrorCode::NoNode)
    );
    assert_eq!(
        create(&mut t, "/nope/x", Persistent),
        Err(ErrorCode::NoNode)
    );
    // Parent present, malformed final path.
    assert_eq!(
        create(&mut t, "/a/", Persistent),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        create(&mut t, "/a/..", Persistent),
        Err(ErrorCode::BadArguments)
    );
    // NodeExists before NoChildrenForEphemerals; "/" itself exists.
    assert_eq!(create(&mut t, "/a", Persistent), Err(ErrorCode::NodeExists));
    assert_eq!(create(&mut t, "/", Persistent), Err(ErrorCode::NodeExists));
    assert_eq!(
        create(&mut t, "/eph", Ephemeral),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut t, "/eph/c", Persistent),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
    // A bad ACL is found before the missing parent.
    assert_eq!(
        t.create("/nope/x", vec![], &[], Persistent, txn(S1, 1, 0)),
        Err(ErrorCode::InvalidAcl)
    );
    let world_bob = vec![Acl {
        perms: 31,
        scheme: "world".into(),
        id: "bob".into(),
    }];
    assert_eq!(
        t.create("/b", vec![], &world_bob, Persistent, txn(S1, 1, 0)),
        Err(ErrorCode::InvalidAcl)
    );
    assert_eq!(
        t.create("a", vec![], &[], Persistent, txn(S1, 1, 0)),
        Err(ErrorCode::BadArguments)
    );
    // Failed creates consumed no sequence number and changed no stat: /a and /eph were
    // created, /zookeeper was there from the start.
    assert_eq!(t.stat("/").unwrap().cversion, 1);
    assert_eq!(t.stat("/a").unwrap().cversion, 0);
}

#[test]
fn a_tree_starts_with_the_zookeeper_subtree_clients_cannot_delete() {
    let mut t = Tree::default();
    let (children, root) = t.children("/").unwrap();
    assert_eq!(
        (children, root.cversion, root.num_children),
        (vec!["zookeeper".to_string()], -1, 1)
    );
    let zookeeper = t.stat("/zookeeper").unwrap();
    assert_eq!(
        (zookeeper.cversion, zookeeper.num_children, zookeeper.czxid),
        (-2, 2, 0)
    );
    let (acl, config) = t.get_acl("/zookeeper/config", &[]).unwrap();
    assert_eq!((acl[0].perms, config.aversion), (acl::READ, -1));
    for path in ["/zookeeper", "/zookeeper/quota", "/zookeeper/config"] {
        assert_eq!(
            t.delete(path, -1, txn(S1, 5, 0)),
            Err(ErrorCode::BadArguments),
            "{path}"
        );
    }
    assert_eq!(
        t.set_data("/zookeeper/config", vec![], -1, txn(S1, 5, 0)),
        Err(ErrorCode::NoAuth)
    );
    assert_eq!(
        create(&mut t, "/zookeeper/x", Persistent),
        Ok("/zookeeper/x".into())
    );
    assert_eq!(t.descendants("/"), Some(4));
}

#[test]
fn sequential_create_with_trailing_slash() {
    let mut t = tree_with(&["/q"]);
    assert_eq!(
        create(&mut t, "/q/", PersistentSequential),
        Ok("/q/0000000000".into())
    );
    assert_eq!(t.children("/q").unwrap().0, vec!["0000000000".to_string()]);
}

#[test]
fn delete_error_order() {
    let mut t = tree_with(&["/a", "/a/b"]);
    assert_eq!(
        t.delete("/", -1, txn(S1, 50, 0)),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        t.delete("a", -1, txn(S1, 50, 0)),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(t.delete("/x/y", -1, txn(S1, 50, 0)), Err(ErrorCode::NoNode));
    assert_eq!(t.delete("/a/c", 5, txn(S1, 50, 0)), Err(ErrorCode::NoNode));
    // BadVersion wins over NotEmpty.
    assert_eq!(
        t.delete("/a", 3, txn(S1, 50, 0)),
        Err(ErrorCode::BadVersion)
    );
    assert_eq!(t.delete("/a", 0, txn(S1, 50, 0)), Err(ErrorCode::NotEmpty));
    assert_eq!(t.delete("/a", -1, txn(S1, 50, 0)), Err(ErrorCode::NotEmpty));
    assert_eq!(t.delete("/a/b", 0, txn(S1, 50, 0)), Ok(()));
    assert_eq!(t.delete("/a", -1, txn(S1, 51, 0)), Ok(()));
    assert_eq!(t.stat("/a"), None);
}

#[test]
fn set_data_error_order_and_versions() {
    let mut t = tree_with(&["/a"]);
    assert_eq!(
        t.set_data("/a/", vec![], -1, txn(S1, 60, 0)),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        t.set_data("/b", vec![], 7, txn(S1, 60, 0)),
        Err(ErrorCode::NoNode)
    );
    assert_eq!(
        t.set_data("/a", vec![], 1, txn(S1, 60, 0)),
        Err(ErrorCode::BadVersion)
    );
    let s = t
        .set_data("/a", b"hey".to_vec(), 0, txn(S1, 61, 99))
        .unwrap();
    assert_eq!((s.version, s.mzxid, s.mtime, s.data_length), (1, 61, 99, 3));
    assert_eq!(s.czxid, 10);
    let s = t.set_data("/a", vec![], -1, txn(S1, 62, 100)).unwrap();
    assert_eq!(s.version, 2);
}

#[test]
fn stats_of_create_and_delete() {
    let mut t = tree_with(&["/p"]);
    let c = t
        .create(
            "/p/e",
            b"ab".to_vec(),
            &open(),
            Ephemeral,
            txn(S1, 30, 1234),
        )
        .unwrap();
    let s = c.stat;
    assert_eq!((s.czxid, s.mzxid, s.pzxid), (30, 30, 30));
    assert_eq!(
        (s.ctime, s.mtime, s.version, s.cversion),
        (1234, 1234, 0, 0)
    );
    assert_eq!(
        (s.ephemeral_owner, s.data_length, s.num_children),
        (S1, 2, 0)
    );
    let p = t.stat("/p").unwrap();
    assert_eq!(
        (p.pzxid, p.cversion, p.num_children, p.mzxid),
        (30, 1, 1, 10)
    );
    t.delete("/p/e", -1, txn(S1, 31, 0)).unwrap();
    let p = t.stat("/p").unwrap();
    assert_eq!(
        (p.pzxid, p.cversion, p.num_children),
        (31, 2, 0),
        "the visible cversion counts the delete too"
    );
    let persistent = t
        .create("/p/n", vec![], &open(), Persistent, txn(S1, 32, 0))
        .unwrap();
    assert_eq!(persistent.stat.ephemeral_owner, 0);
}

#[test]
fn sequence_counter_shared_gapped_and_not_reset() {
    let mut t = tree_with(&["/l"]);
    let r = create(&mut t, "/l/read-", EphemeralSequential).unwrap();
    let w = create(&mut t, "/l/write-", PersistentSequential).unwrap();
    create(&mut t, "/l/plain", Persistent).unwrap();
    let r2 = create(&mut t, "/l/read-", PersistentSequential).unwrap();
    assert_eq!(r, "/l/read-0000000000");
    assert_eq!(w, "/l/write-0000000001");
    assert_eq!(r2, "/l/read-0000000003");
    t.delete(&r2, -1, txn(S1, 200, 0)).unwrap();
    t.delete(&w, -1, txn(S1, 201, 0)).unwrap();
    assert_eq!(
        create(&mut t, "/l/x-", EphemeralSequential),
        Ok("/l/x-0000000004".into())
    );
    let l = t.stat("/l").unwrap();
    assert_eq!(
        (l.cversion, l.num_children),
        (7, 3),
        "5 creates and 2 deletes, while the next number is 5"
    );
}

#[test]
fn sequential_create_can_hit_node_exists() {
    let mut t = tree_with(&["/l"]);
    create(&mut t, "/l/n-0000000001", Persistent).unwrap();
    // The counter is 1 now: the sequential name collides with the hand-made node.
    assert_eq!(
        create(&mut t, "/l/n-", PersistentSequential),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(t.stat("/l").unwrap().cversion, 1);
}

#[test]
fn sequence_wraps_at_2_pow_31() {
    let mut t = tree_with(&["/l"]);
    t.set_cversion("/l", i32::MAX);
    let last = create(&mut t, "/l/n-", EphemeralSequential).unwrap();
    let wrapped = create(&mut t, "/l/n-", EphemeralSequential).unwrap();
    let next = create(&mut t, "/l/n-", EphemeralSequential).unwrap();
    assert_eq!(last, "/l/n-2147483647");
    assert_eq!(wrapped, "/l/n--2147483648");
    assert_eq!(next, "/l/n--2147483647");
}

#[test]
fn a_chosen_counter_start_applies_to_every_new_parent_and_wraps_in_a_few_creates() {
    let mut t = Tree::with_seq_start(i32::MAX - 1);
    let first = create(&mut t, "/n-", PersistentSequential).unwrap();
    create(&mut t, "/l", Persistent).unwrap();
    let names: Vec<String> = (0..3)
        .map(|_| create(&mut t, "/l/n-", EphemeralSequential).unwrap())
        .collect();
    assert_eq!(first, "/n-2147483646");
    assert_eq!(
        names,
        ["/l/n-2147483646", "/l/n-2147483647", "/l/n--2147483648"]
    );
}

#[test]
fn children_unsorted_but_deterministic() {
    let build = || {
        let mut t = tree_with(&["/l"]);
        for _ in 0..20 {
            create(&mut t, "/l/lock-", EphemeralSequential).unwrap();
        }
        t
    };
    let (names, stat) = build().children("/l").unwrap();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names.len(), 20);
    assert_eq!(stat.num_children, 20);
    assert_ne!(names, sorted, "children came back sorted");
    assert_eq!(build().children("/l").unwrap().0, names);
    assert_eq!(Tree::default().children("/missing"), None);
}

#[test]
fn kill_session_removes_only_its_ephemerals() {
    let mut t = tree_with(&["/l"]);
    let other = S1 + 1;
    t.create("/l/a", vec![], &open(), Ephemeral, txn(S1, 40, 0))
        .unwrap();
    t.create("/l/b", vec![], &open(), Ephemeral, txn(other, 41, 0))
        .unwrap();
    t.create("/l/c", vec![], &open(), EphemeralSequential, txn(S1, 42, 0))
        .unwrap();
    t.create("/l/d", vec![], &open(), Persistent, txn(S1, 43, 0))
        .unwrap();
    t.delete("/l/a", -1, txn(S1, 44, 0)).unwrap();
    assert_eq!(t.kill_session(S1, 45), vec!["/l/c0000000002".to_string()]);
    assert_eq!(t.kill_session(S1, 46), Vec::<String>::new());
    let mut left = t.children("/l").unwrap().0;
    left.sort();
    assert_eq!(left, vec!["b".to_string(), "d".to_string()]);
    assert_eq!(t.stat("/l").unwrap().pzxid, 45);
}
