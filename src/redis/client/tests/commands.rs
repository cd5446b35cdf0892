//! The typed helpers: their requests, their replies, error replies as `ServerError`, and
//! EVALSHA's fallback to EVAL.

use super::fake::open;
use crate::redis::client::{CommandError, ErrorKind, ServerError};
use crate::redis::resp::{Frame, Protocol};

const SCRIPT: &[u8] = b"return redis.call('DEL', KEYS[1])";
/// SCRIPT's SHA1, as `redis.sha1hex` and SCRIPT LOAD give it.
const SHA1: &str = "b0d697da25b13e49157b2c214a4033546aba2104";

#[tokio::test(start_paused = true)]
async fn set_nx_px_bytes_and_both_answers() {
    let (mut client, mut peer) = open();
    let (created, ()) = tokio::join!(client.set_nx_px(b"lock", b"tok", 30_000), async {
        let (_, raw) = peer.request().await;
        let expected: &[u8] =
            b"*6\r\n$3\r\nSET\r\n$4\r\nlock\r\n$3\r\ntok\r\n$2\r\nNX\r\n$2\r\nPX\r\n$5\r\n30000\r\n";
        assert_eq!(raw, expected);
        peer.send(b"+OK\r\n").await;
    });
    assert_eq!(created, Ok(true));
    let set: [&[u8]; 6] = [b"SET", b"lock", b"tok2", b"NX", b"PX", b"30000"];
    let (existed, ()) = tokio::join!(
        client.set_nx_px(b"lock", b"tok2", 30_000),
        peer.answer(&set, b"$-1\r\n")
    );
    assert_eq!(existed, Ok(false));
}

#[tokio::test(start_paused = true)]
async fn an_error_reply_is_a_server_error_and_the_connection_lives_on() {
    let (mut client, mut peer) = open();
    let set: [&[u8]; 6] = [b"SET", b"k", b"v", b"NX", b"PX", b"100"];
    let (refused, ()) = tokio::join!(
        client.set_nx_px(b"k", b"v", 100),
        peer.answer(
            &set,
            b"-READONLY You can't write against a read only replica.\r\n"
        )
    );
    let Err(CommandError::Server(err)) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(err.kind(), ErrorKind::ReadOnly);
    let (value, ()) = tokio::join!(
        client.get(b"k"),
        peer.answer(&[b"GET", b"k"], b"$1\r\nv\r\n")
    );
    assert_eq!(value, Ok(Some(b"v".to_vec())));
}

#[tokio::test(start_paused = true)]
async fn a_reply_of_the_wrong_type_is_unexpected_and_the_connection_lives_on() {
    let (mut client, mut peer) = open();
    let set: [&[u8]; 6] = [b"SET", b"k", b"v", b"NX", b"PX", b"100"];
    let (odd, ()) = tokio::join!(
        client.set_nx_px(b"k", b"v", 100),
        peer.answer(&set, b":1\r\n")
    );
    assert_eq!(odd, Err(CommandError::Unexpected(Frame::Integer(1))));
    let (deleted, ()) = tokio::join!(client.del(b"k"), peer.answer(&[b"DEL", b"k"], b":1\r\n"));
    assert_eq!(deleted, Ok(true));
}

#[tokio::test(start_paused = true)]
async fn get_and_del_answers() {
    let (mut client, mut peer) = open();
    let (missing, ()) = tokio::join!(client.get(b"k"), peer.answer(&[b"GET", b"k"], b"$-1\r\n"));
    assert_eq!(missing, Ok(None));
    let (empty, ()) = tokio::join!(
        client.get(b"k"),
        peer.answer(&[b"GET", b"k"], b"$0\r\n\r\n")
    );
    assert_eq!(empty, Ok(Some(Vec::new())));
    let (absent, ()) = tokio::join!(client.del(b"k"), peer.answer(&[b"DEL", b"k"], b":0\r\n"));
    assert_eq!(absent, Ok(false));
    let (odd, ()) = tokio::join!(client.get(b"k"), peer.answer(&[b"GET", b"k"], b"+OK\r\n"));
    assert_eq!(
        odd,
        Err(CommandError::Unexpected(Frame::Simple(b"OK".to_vec())))
    );
}

#[tokio::test(start_paused = true)]
async fn eval_sends_numkeys_keys_then_args_and_maps_script_errors() {
    let (mut client, mut peer) = open();
    let eval: [&[u8]; 6] = [b"EVAL", SCRIPT, b"2", b"k1", b"k2", b"a1"];
    let (value, ()) = tokio::join!(
        client.eval(SCRIPT, &[b"k1", b"k2"], &[b"a1"]),
        peer.answer(&eval, b":1\r\n")
    );
    assert_eq!(value, Ok(Frame::Integer(1)));
    let eval: [&[u8]; 3] = [b"EVAL", SCRIPT, b"0"];
    let (failed, ()) = tokio::join!(
        client.eval(SCRIPT, &[], &[]),
        peer.answer(&eval, b"-ERR user_script:1: oops\r\n")
    );
    let Err(CommandError::Server(err)) = failed else {
        panic!("{failed:?}");
    };
    assert_eq!(err.kind(), ErrorKind::Err);
}

#[tokio::test(start_paused = true)]
async fn evalsha_falls_back_to_eval_on_noscript() {
    let (mut client, mut peer) = open();
    let (value, ()) = tokio::join!(client.evalsha(SHA1, SCRIPT, &[b"lock"], &[b"tok"]), async {
        let evalsha: [&[u8]; 5] = [b"EVALSHA", SHA1.as_bytes(), b"1", b"lock", b"tok"];
        peer.answer(
            &evalsha,
            b"-NOSCRIPT No matching script. Please use EVAL.\r\n",
        )
        .await;
        let eval: [&[u8]; 5] = [b"EVAL", SCRIPT, b"1", b"lock", b"tok"];
        peer.answer(&eval, b":1\r\n").await;
    });
    assert_eq!(value, Ok(Frame::Integer(1)));
}

#[tokio::test(start_paused = true)]
async fn evalsha_runs_the_cached_script_and_retries_no_other_error() {
    let (mut client, mut peer) = open();
    let evalsha: [&[u8]; 4] = [b"EVALSHA", SHA1.as_bytes(), b"1", b"lock"];
    let (cached, ()) = tokio::join!(
        client.evalsha(SHA1, SCRIPT, &[b"lock"], &[]),
        peer.answer(&evalsha, b":0\r\n")
    );
    assert_eq!(cached, Ok(Frame::Integer(0)));
    let client_side = async {
        let busy = client.evalsha(SHA1, SCRIPT, &[b"lock"], &[]).await;
        (busy, client.call(&[b"PING"]).await)
    };
    let ((busy, ping), ()) = tokio::join!(client_side, async {
        peer.answer(&evalsha, b"-BUSY Redis is busy running a script.\r\n")
            .await;
        // The next request the server sees is the caller's, not an EVAL retry.
        peer.answer(&[b"PING"], b"+PONG\r\n").await;
    });
    assert_eq!(ping, Ok(Frame::Simple(b"PONG".to_vec())));
    let Err(CommandError::Server(err)) = busy else {
        panic!("{busy:?}");
    };
    assert_eq!(err.kind(), ErrorKind::Busy);
}

#[test]
fn server_error_code_and_kind_come_from_the_first_word() {
    let cases: [(&[u8], &[u8], ErrorKind); 7] = [
        (b"ERR syntax error", b"ERR", ErrorKind::Err),
        (
            b"NOSCRIPT No matching script.",
            b"NOSCRIPT",
            ErrorKind::NoScript,
        ),
        (
            b"READONLY You can't write",
            b"READONLY",
            ErrorKind::ReadOnly,
        ),
        (
            b"WRONGTYPE Operation against",
            b"WRONGTYPE",
            ErrorKind::WrongType,
        ),
        (b"BUSY Redis is busy", b"BUSY", ErrorKind::Busy),
        (b"LOADING", b"LOADING", ErrorKind::Other),
        (b"", b"", ErrorKind::Other),
    ];
    for (text, code, kind) in cases {
        let err = ServerError::new(text.to_vec());
        assert_eq!((err.code(), err.kind(), err.text()), (code, kind, text));
    }
}

#[tokio::test(start_paused = true)]
async fn hello_switches_to_resp3_and_the_helpers_read_its_replies() {
    let (mut client, mut peer) = open();
    let map = b"%2\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n";
    let (hello, ()) = tokio::join!(
        client.hello(Protocol::Resp3),
        peer.answer(&[b"HELLO", b"3"], map)
    );
    assert_eq!(
        hello,
        Ok(Frame::Map(vec![
            (Frame::Bulk(b"proto".to_vec()), Frame::Integer(3)),
            (Frame::Bulk(b"modules".to_vec()), Frame::Array(Vec::new())),
        ]))
    );
    let set: [&[u8]; 6] = [b"SET", b"k", b"v", b"NX", b"PX", b"100"];
    let (existed, ()) = tokio::join!(
        client.set_nx_px(b"k", b"v", 100),
        peer.answer(&set, b"_\r\n")
    );
    assert_eq!(existed, Ok(false));
    let (value, ()) = tokio::join!(client.get(b"k"), peer.answer(&[b"GET", b"k"], b"_\r\n"));
    assert_eq!(value, Ok(None));
    let (refused, ()) = tokio::join!(
        client.hello(Protocol::Resp2),
        peer.answer(
            &[b"HELLO", b"2"],
            b"-NOPROTO unsupported protocol version\r\n"
        )
    );
    assert!(
        matches!(refused, Err(CommandError::Server(_))),
        "{refused:?}"
    );
}
