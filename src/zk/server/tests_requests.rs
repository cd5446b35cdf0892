//! Requests and replies: bodies, error codes, zxids, tree changes.

use super::test_support::*;
use super::{Change, Output, Refusal, Server, ServerConfig};
use crate::zk::proto::{
    Acl, Create2Response, CreateMode::*, CreateRequest, DeleteRequest, ErrorCode, Request,
    Response, SetDataRequest, SetDataResponse,
};

const C1: u64 = 1;

fn opened() -> (Server, i64) {
    let mut s = server();
    let session = open(&mut s, at(0), C1, 1_000).session_id;
    (s, session)
}

#[test]
fn new_session_reply() {
    let mut s = server();
    let first = open(&mut s, at(0), C1, 1_000);
    let second = open(&mut s, at(0), 2, 1_000);
    assert_eq!(first.protocol_version, 0);
    assert_eq!(first.timeout_ms, 1_000);
    assert_eq!(first.session_id, (1 << 56) | 1);
    assert_eq!(second.session_id, (1 << 56) | 2);
    assert!(!first.read_only);
    assert_eq!(first.passwd.len(), 16);
    assert_ne!(first.passwd, vec![0; 16]);
    assert_ne!(first.passwd, second.passwd);
    // Passwords come from the seeded stream: same seed, same password; other seed, other.
    assert_eq!(open(&mut server(), at(0), C1, 1_000).passwd, first.passwd);
    let mut other = Server::new(ServerConfig::with_tick(TICK, 7));
    assert_ne!(open(&mut other, at(0), C1, 1_000).passwd, first.passwd);
}

#[test]
fn create_reply_change_and_stat() {
    let (mut s, session) = opened();
    let before = s.last_zxid();
    let out = send(
        &mut s,
        at(5),
        C1,
        Request::Create2(CreateRequest {
            path: "/e".into(),
            data: b"abc".to_vec(),
            acl: Acl::open_unsafe(),
            mode: Ephemeral,
        }),
    );
    let zxid = before + 1;
    assert_eq!(reply_zxid(&out), zxid);
    assert_eq!(
        out[0],
        Output::Changed(Change::Created {
            path: "/e".into(),
            session,
            zxid
        })
    );
    let Some(Response::Create2(Create2Response { path, stat })) = reply(&out).1 else {
        panic!("not a Create2 reply: {out:?}");
    };
    assert_eq!(path, "/e");
    assert_eq!((stat.czxid, stat.mzxid, stat.pzxid), (zxid, zxid, zxid));
    assert_eq!((stat.ctime, stat.mtime), (WALL_BASE + 5, WALL_BASE + 5));
    assert_eq!((stat.ephemeral_owner, stat.data_length), (session, 3));
    assert_eq!(s.stat("/").unwrap().pzxid, zxid);
}

#[test]
fn zxids_of_writes_reads_and_failures() {
    let (mut s, session) = opened();
    // Epoch 1; the createSession txn took the first zxid.
    assert_eq!(s.last_zxid(), (1 << 32) | 1);
    assert_eq!(create(&mut s, at(1), C1, "/a", Persistent), Ok("/a".into()));
    let after_create = s.last_zxid();
    assert_eq!(after_create, (1 << 32) | 2);
    // A read reports the last zxid and takes none.
    let out = send(
        &mut s,
        at(2),
        C1,
        Request::Exists {
            path: "/a".into(),
            watch: false,
        },
    );
    assert_eq!(reply_zxid(&out), after_create);
    assert_eq!(s.last_zxid(), after_create);
    // A failed write uses up a zxid (its error txn) and changes nothing.
    let out = send(&mut s, at(3), C1, create_req("/a", Persistent));
    assert_eq!(reply(&out), (ErrorCode::NodeExists, None));
    assert_eq!(reply_zxid(&out), after_create + 1);
    assert!(!out.iter().any(|o| matches!(o, Output::Changed(_))));
    // A delete reports its txn.
    let out = send(
        &mut s,
        at(4),
        C1,
        Request::Delete(DeleteRequest {
            path: "/a".into(),
            version: -1,
        }),
    );
    assert_eq!(reply(&out), (ErrorCode::Ok, Some(Response::Delete)));
    assert_eq!(
        out[0],
        Output::Changed(Change::Deleted {
            path: "/a".into(),
            session,
            zxid: after_create + 2
        })
    );
}

#[test]
fn every_error_code_reaches_the_reply() {
    let (mut s, _) = opened();
    create(&mut s, at(1), C1, "/p", Persistent).unwrap();
    create(&mut s, at(1), C1, "/p/c", Persistent).unwrap();
    create(&mut s, at(1), C1, "/e", Ephemeral).unwrap();
    assert_eq!(
        create(&mut s, at(2), C1, "/p/", Persistent),
        Err(ErrorCode::BadArguments)
    );
    assert_eq!(
        create(&mut s, at(2), C1, "/x/y", Persistent),
        Err(ErrorCode::NoNode)
    );
    assert_eq!(
        create(&mut s, at(2), C1, "/p/c", Persistent),
        Err(ErrorCode::NodeExists)
    );
    assert_eq!(
        create(&mut s, at(2), C1, "/e/c", Persistent),
        Err(ErrorCode::NoChildrenForEphemerals)
    );
    let no_acl = Request::Create(CreateRequest {
        path: "/x/y".into(),
        data: vec![],
        acl: vec![],
        mode: Persistent,
    });
    assert_eq!(
        reply(&send(&mut s, at(2), C1, no_acl)),
        (ErrorCode::InvalidAcl, None)
    );
    let del = |s: &mut Server, path: &str, version| {
        let req = Request::Delete(DeleteRequest {
            path: path.into(),
            version,
        });
        reply(&send(s, at(3), C1, req))
    };
    assert_eq!(del(&mut s, "/nope", -1), (ErrorCode::NoNode, None));
    assert_eq!(del(&mut s, "/p", 9), (ErrorCode::BadVersion, None));
    assert_eq!(del(&mut s, "/p", 0), (ErrorCode::NotEmpty, None));
    let set = |s: &mut Server, path: &str, version| {
        let req = Request::SetData(SetDataRequest {
            path: path.into(),
            data: vec![],
            version,
        });
        reply(&send(s, at(3), C1, req))
    };
    assert_eq!(set(&mut s, "/nope", -1), (ErrorCode::NoNode, None));
    assert_eq!(set(&mut s, "/p", 4), (ErrorCode::BadVersion, None));
    let Some(Response::SetData(SetDataResponse { stat })) = set(&mut s, "/p", 0).1 else {
        panic!("setData failed");
    };
    assert_eq!(stat.version, 1);
    assert_eq!(
        get_data(&mut s, at(4), C1, "/nope", false),
        ErrorCode::NoNode
    );
    assert_eq!(
        get_children(&mut s, at(4), C1, "/nope", false),
        ErrorCode::NoNode
    );
    assert_eq!(exists(&mut s, at(4), C1, "/nope", false), ErrorCode::NoNode);
    // Reads only reject NUL (exists) or miss: the server does not validate their paths.
    assert_eq!(
        exists(&mut s, at(4), C1, "/a\0", false),
        ErrorCode::BadArguments
    );
    assert_eq!(get_data(&mut s, at(4), C1, "/p/", false), ErrorCode::NoNode);
}

#[test]
fn reads_return_data_children_and_stats() {
    let (mut s, _) = opened();
    create(&mut s, at(1), C1, "/p", Persistent).unwrap();
    create(&mut s, at(1), C1, "/p/a", Persistent).unwrap();
    let out = send(
        &mut s,
        at(2),
        C1,
        Request::GetData {
            path: "/p".into(),
            watch: false,
        },
    );
    let Some(Response::GetData { data, stat }) = reply(&out).1 else {
        panic!("getData failed");
    };
    assert_eq!(
        (data, stat.num_children, stat.cversion),
        (b"d".to_vec(), 1, 1)
    );
    let req = Request::GetChildren2 {
        path: "/p".into(),
        watch: false,
    };
    let Some(Response::GetChildren2 { children, stat }) = reply(&send(&mut s, at(2), C1, req)).1
    else {
        panic!("getChildren2 failed");
    };
    assert_eq!((children, stat.num_children), (vec!["a".to_string()], 1));
    let req = Request::GetChildren {
        path: "/p".into(),
        watch: false,
    };
    assert_eq!(
        reply(&send(&mut s, at(2), C1, req)),
        (
            ErrorCode::Ok,
            Some(Response::GetChildren {
                children: vec!["a".into()]
            })
        )
    );
}

#[test]
fn sequential_names_through_the_server() {
    let (mut s, _) = opened();
    create(&mut s, at(1), C1, "/l", Persistent).unwrap();
    let a = create(&mut s, at(1), C1, "/l/read-", EphemeralSequential).unwrap();
    let b = create(&mut s, at(1), C1, "/l/write-", EphemeralSequential).unwrap();
    assert_eq!(delete(&mut s, at(1), C1, &a), ErrorCode::Ok);
    let c = create(&mut s, at(1), C1, "/l/read-", EphemeralSequential).unwrap();
    assert_eq!(
        (a.as_str(), b.as_str(), c.as_str()),
        (
            "/l/read-0000000000",
            "/l/write-0000000001",
            "/l/read-0000000002"
        )
    );
}

#[test]
fn ping_reply() {
    let (mut s, _) = opened();
    let out = s.handle_request(at(1), C1, -2, Request::Ping);
    assert_eq!(
        out,
        vec![Output::Reply {
            conn: C1,
            xid: -2,
            zxid: s.last_zxid(),
            err: ErrorCode::Ok,
            body: Some(Response::Ping)
        }]
    );
}

#[test]
fn request_without_handshake_is_closed() {
    let mut s = server();
    let out = s.handle_request(at(0), 9, 1, Request::Ping);
    assert_eq!(out, vec![Output::Close { conn: 9 }]);
}

#[test]
fn client_ahead_of_server_is_refused() {
    let mut s = server();
    let mut req = connect_req(0, vec![0; 16], 1_000);
    req.last_zxid_seen = s.last_zxid() + 1;
    assert_eq!(
        s.handle_connect(at(0), C1, &req),
        vec![Output::Close { conn: C1 }]
    );
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn a_container_flag_in_a_create_makes_a_plain_persistent_node_as_in_3_8() {
    let (mut s, _) = opened();
    assert_eq!(create(&mut s, at(1), C1, "/c", Container), Ok("/c".into()));
    let out = send(
        &mut s,
        at(2),
        C1,
        Request::Exists {
            path: "/c".into(),
            watch: false,
        },
    );
    let Some(Response::Exists { stat }) = reply(&out).1 else {
        panic!("exists answered {out:?}")
    };
    assert_eq!(stat.ephemeral_owner, 0);
    // Persistent: it outlives its creator's session.
    send(&mut s, at(3), C1, Request::CloseSession);
    open(&mut s, at(4), 2, 1_000);
    assert_eq!(exists(&mut s, at(5), 2, "/c", false), ErrorCode::Ok);
}

#[test]
fn ttl_creates_are_unimplemented_and_take_a_zxid_as_in_3_8() {
    let (mut s, _) = opened();
    for mode in [PersistentWithTtl, PersistentSequentialWithTtl] {
        let before = s.last_zxid();
        let out = send(&mut s, at(1), C1, create_req("/t", mode));
        assert_eq!(reply(&out), (ErrorCode::Unimplemented, None));
        assert_eq!(reply_zxid(&out), before + 1);
        assert_eq!(closes(&out), Vec::<u64>::new(), "the connection stays");
    }
    // The TTL check comes before the path's.
    let out = send(&mut s, at(2), C1, create_req("bad", PersistentWithTtl));
    assert_eq!(reply(&out).0, ErrorCode::Unimplemented);
    assert_eq!(exists(&mut s, at(3), C1, "/t", false), ErrorCode::NoNode);
}

const BAD_FLAGS: Refusal = Refusal {
    err: ErrorCode::BadArguments,
    write: true,
};

#[test]
fn a_refused_write_takes_a_zxid_touches_the_session_and_keeps_the_connection() {
    let (mut s, _) = opened();
    let before = s.last_zxid();
    let out = s.handle_refused(at(900), C1, 7, BAD_FLAGS);
    assert_eq!(
        out,
        vec![Output::Reply {
            conn: C1,
            xid: 7,
            zxid: before + 1,
            err: ErrorCode::BadArguments,
            body: None
        }]
    );
    // Touched at 900: the 1 s session outlives its first deadline.
    assert!(s.handle_timeout(at(1_500)).is_empty());
    // A connection without a session is closed, as for any request.
    assert_eq!(
        s.handle_refused(at(0), 9, 1, BAD_FLAGS),
        vec![Output::Close { conn: 9 }]
    );
}

#[test]
fn get_ephemerals_lists_the_sessions_own_by_string_prefix_as_in_3_8() {
    let (mut s, _) = opened();
    open(&mut s, at(0), 2, 1_000);
    create(&mut s, at(1), C1, "/a", Persistent).unwrap();
    for path in ["/a/e1", "/a/e2", "/ab"] {
        create(&mut s, at(1), C1, path, Ephemeral).unwrap();
    }
    create(&mut s, at(1), 2, "/a/other", Ephemeral).unwrap();
    let ephemerals = |s: &mut Server, prefix: &str| {
        let request = Request::GetEphemerals {
            prefix: prefix.into(),
        };
        match reply(&send(s, at(2), C1, request)) {
            (ErrorCode::Ok, Some(Response::GetEphemerals { mut paths })) => {
                paths.sort();
                paths
            }
            other => panic!("getEphemerals answered {other:?}"),
        }
    };
    let mine = ["/a/e1", "/a/e2", "/ab"];
    for all in ["", "/", " / "] {
        assert_eq!(ephemerals(&mut s, all), mine, "prefix {all:?}");
    }
    assert_eq!(
        ephemerals(&mut s, "/a"),
        mine,
        "a string prefix, not a path one"
    );
    assert_eq!(ephemerals(&mut s, "/a/"), ["/a/e1", "/a/e2"]);
    assert_eq!(ephemerals(&mut s, "/zz"), Vec::<String>::new());
    let before = s.last_zxid();
    let out = send(
        &mut s,
        at(3),
        C1,
        Request::GetEphemerals { prefix: "".into() },
    );
    assert_eq!(reply_zxid(&out), before, "a read takes no zxid");
}

#[test]
fn get_all_children_number_counts_every_depth_below_an_existing_node() {
    let (mut s, _) = opened();
    for path in ["/a", "/a/e1", "/a/p", "/a/p/q", "/ab"] {
        create(&mut s, at(1), C1, path, Persistent).unwrap();
    }
    let count = |s: &mut Server, path: &str| {
        let request = Request::GetAllChildrenNumber { path: path.into() };
        match reply(&send(s, at(2), C1, request)) {
            (ErrorCode::Ok, Some(Response::GetAllChildrenNumber { total })) => Ok(total),
            (err, _) => Err(err),
        }
    };
    assert_eq!(count(&mut s, "/a"), Ok(3), "/ab is not below /a");
    assert_eq!(count(&mut s, "/a/p/q"), Ok(0));
    assert_eq!(
        count(&mut s, "/"),
        Ok(8),
        "with /zookeeper and its two children"
    );
    for missing in ["/missing", "bad", "/a/"] {
        assert_eq!(count(&mut s, missing), Err(ErrorCode::NoNode), "{missing}");
    }
}

#[test]
fn a_refused_read_takes_no_zxid() {
    let (mut s, _) = opened();
    let before = s.last_zxid();
    let refusal = Refusal {
        err: ErrorCode::MarshallingError,
        write: false,
    };
    let out = s.handle_refused(at(1), C1, 3, refusal);
    assert_eq!(reply(&out), (ErrorCode::MarshallingError, None));
    assert_eq!(reply_zxid(&out), before);
}

#[test]
fn check_and_remove_watches_as_in_3_8() {
    use crate::zk::proto::WatcherType::{Any, Children, Data};
    let mut s = two_clients();
    create(&mut s, at(1), A, "/w", Persistent).unwrap();
    let ask = |s: &mut Server, conn, remove: bool, path: &str, kind| {
        let path = path.to_string();
        let request = match remove {
            false => Request::CheckWatches { path, kind },
            true => Request::RemoveWatches { path, kind },
        };
        reply(&send(s, at(2), conn, request)).0
    };
    assert_eq!(ask(&mut s, A, false, "/w", Any), ErrorCode::NoWatcher);
    assert_eq!(get_data(&mut s, at(2), A, "/w", true), ErrorCode::Ok);
    assert_eq!(ask(&mut s, A, false, "/w", Children), ErrorCode::NoWatcher);
    assert_eq!(ask(&mut s, A, false, "/w", Data), ErrorCode::Ok);
    // 3.8 asks whether the path has a watcher at all, not whether it is the asker's.
    assert_eq!(ask(&mut s, B, false, "/w", Data), ErrorCode::Ok);
    // Removing is the connection's own: B has nothing to remove.
    assert_eq!(ask(&mut s, B, true, "/w", Data), ErrorCode::NoWatcher);
    assert_eq!(ask(&mut s, A, true, "/w", Children), ErrorCode::NoWatcher);
    assert_eq!(ask(&mut s, A, true, "/w", Data), ErrorCode::Ok);
    assert_eq!(ask(&mut s, A, true, "/w", Data), ErrorCode::NoWatcher);
    // A removed watch never fires.
    let out = set_data(&mut s, at(3), B, "/w");
    assert_eq!(events(&out, A), vec![]);
    // Any removes both kinds at once.
    assert_eq!(get_children(&mut s, at(4), A, "/w", true), ErrorCode::Ok);
    assert_eq!(get_data(&mut s, at(4), A, "/w", true), ErrorCode::Ok);
    assert_eq!(ask(&mut s, A, true, "/w", Any), ErrorCode::Ok);
    assert_eq!(ask(&mut s, A, false, "/w", Any), ErrorCode::NoWatcher);
}

#[test]
fn multi_read_answers_each_read_on_its_own_and_leaves_no_watch() {
    use crate::zk::proto::{ReadOp, ReadResult};
    let mut s = two_clients();
    create(&mut s, at(1), A, "/p/a", Persistent).unwrap();
    let ops = vec![
        ReadOp::GetChildren { path: "/p".into() },
        ReadOp::GetData {
            path: "/missing".into(),
        },
        ReadOp::GetData {
            path: "/p/a".into(),
        },
    ];
    let before = s.last_zxid();
    let out = send(&mut s, at(2), A, Request::MultiRead { ops });
    let Some(Response::MultiRead { results }) = reply(&out).1 else {
        panic!("multiRead answered {out:?}")
    };
    assert_eq!(reply_zxid(&out), before, "reads take no zxid");
    assert_eq!(
        results[..2],
        [
            ReadResult::Children {
                children: vec!["a".into()]
            },
            ReadResult::Error {
                err: ErrorCode::NoNode
            }
        ]
    );
    assert!(matches!(&results[2], ReadResult::Data { data, .. } if data == b"d"));
    let out = set_data(&mut s, at(3), B, "/p/a");
    assert_eq!(events(&out, A), vec![]);
}
