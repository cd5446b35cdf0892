//! `call`: the bytes of a request, every reply type, and the rule that any failure leaves
//! the connection dead.

use std::time::Duration;

use tokio::time::Instant;

use super::fake::{TIMEOUT_MS, connect, open};
use crate::redis::client::CallError;
use crate::redis::resp::{Frame, ReplyError};

#[tokio::test(start_paused = true)]
async fn a_request_is_an_array_of_bulk_strings_byte_for_byte() {
    let (mut client, mut peer) = open();
    let (reply, ()) = tokio::join!(client.call(&[b"SET", b"k", b"a\r\nb", b""]), async {
        let (args, raw) = peer.request().await;
        assert_eq!(
            raw,
            b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n$0\r\n\r\n"
        );
        assert_eq!(args, [&b"SET"[..], b"k", b"a\r\nb", b""]);
        peer.send(b"+OK\r\n").await;
    });
    assert_eq!(reply, Ok(Frame::Simple(b"OK".to_vec())));
}

#[tokio::test(start_paused = true)]
async fn every_reply_type_comes_back_as_its_frame() {
    let cases: [(&[u8], Frame); 9] = [
        (b"+PONG\r\n", Frame::Simple(b"PONG".to_vec())),
        (b"-ERR unknown\r\n", Frame::Error(b"ERR unknown".to_vec())),
        (b":-42\r\n", Frame::Integer(-42)),
        (b"$4\r\na\r\nb\r\n", Frame::Bulk(b"a\r\nb".to_vec())),
        (b"$0\r\n\r\n", Frame::Bulk(Vec::new())),
        (b"$-1\r\n", Frame::Null),
        (b"*-1\r\n", Frame::NullArray),
        (b"*0\r\n", Frame::Array(Vec::new())),
        (
            b"*2\r\n:1\r\n*2\r\n$1\r\nx\r\n$-1\r\n",
            Frame::Array(vec![
                Frame::Integer(1),
                Frame::Array(vec![Frame::Bulk(b"x".to_vec()), Frame::Null]),
            ]),
        ),
    ];
    // One connection for all: an error reply is a reply, and each leaves it in step.
    let (mut client, mut peer) = open();
    for (bytes, frame) in cases {
        let (reply, ()) = tokio::join!(client.call(&[b"PING"]), peer.answer(&[b"PING"], bytes));
        assert_eq!(
            reply,
            Ok(frame),
            "reply {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_reply_arriving_one_byte_at_a_time_is_read_whole() {
    let (mut client, mut peer) = connect(1);
    let bytes = b"*3\r\n$5\r\nhello\r\n*2\r\n:1\r\n$-1\r\n-ERR x\r\n";
    let (reply, ()) = tokio::join!(client.call(&[b"EVAL"]), peer.answer(&[b"EVAL"], bytes));
    let expected = Frame::Array(vec![
        Frame::Bulk(b"hello".to_vec()),
        Frame::Array(vec![Frame::Integer(1), Frame::Null]),
        Frame::Error(b"ERR x".to_vec()),
    ]);
    assert_eq!(reply, Ok(expected));
    let (again, ()) = tokio::join!(
        client.call(&[b"PING"]),
        peer.answer(&[b"PING"], b"+PONG\r\n")
    );
    assert_eq!(again, Ok(Frame::Simple(b"PONG".to_vec())));
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_times_out_on_the_timer_and_the_connection_is_dead() {
    let (mut client, mut peer) = open();
    let start = Instant::now();
    let (reply, _) = tokio::join!(client.call(&[b"GET", b"k"]), peer.request());
    assert_eq!(reply, Err(CallError::Timeout));
    assert_eq!(start.elapsed(), Duration::from_millis(TIMEOUT_MS));
    // The client hung up, so a late reply cannot pass for the answer to the next request,
    // which fails at once without being sent.
    assert!(peer.hung_up().await);
    let gave_up = Instant::now();
    assert_eq!(client.call(&[b"GET", b"k"]).await, Err(CallError::Closed));
    assert_eq!(gave_up.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn a_call_dropped_midway_takes_the_connection_with_it() {
    let (mut client, mut peer) = open();
    let outer = tokio::time::timeout(Duration::from_millis(10), client.call(&[b"GET", b"k"]));
    let (cut, _) = tokio::join!(outer, peer.request());
    assert!(cut.is_err(), "the caller's own timeout fires first");
    assert!(peer.hung_up().await);
    assert_eq!(client.call(&[b"PING"]).await, Err(CallError::Closed));
}

#[tokio::test(start_paused = true)]
async fn eof_in_the_middle_of_a_reply_is_closed() {
    let (mut client, mut peer) = open();
    let (reply, ()) = tokio::join!(client.call(&[b"GET", b"k"]), async move {
        peer.answer(&[b"GET", b"k"], b"$5\r\nab").await;
        drop(peer);
    });
    assert_eq!(reply, Err(CallError::Closed));
    assert_eq!(client.call(&[b"PING"]).await, Err(CallError::Closed));
}

#[tokio::test(start_paused = true)]
async fn a_connection_the_server_closed_fails_with_closed() {
    let (mut client, peer) = open();
    drop(peer);
    assert_eq!(client.call(&[b"PING"]).await, Err(CallError::Closed));
}

#[tokio::test(start_paused = true)]
async fn malformed_or_oversized_replies_are_protocol_errors_and_kill_the_connection() {
    let cases: [(&[u8], ReplyError); 5] = [
        (b"?\r\n", ReplyError::UnknownType(b'?')),
        (b":12a\r\n", ReplyError::BadInteger),
        (b"$3\r\nabcd\r\n", ReplyError::BadLineEnd),
        // Refused from the header alone: nothing is allocated or awaited for the data.
        (b"$99999999999\r\n", ReplyError::TooLarge),
        (b"*99999999999\r\n", ReplyError::TooLarge),
    ];
    for (bytes, error) in cases {
        let (mut client, mut peer) = open();
        let (reply, ()) = tokio::join!(client.call(&[b"PING"]), peer.answer(&[b"PING"], bytes));
        assert_eq!(reply, Err(CallError::Protocol(error)));
        assert!(peer.hung_up().await);
        assert_eq!(client.call(&[b"PING"]).await, Err(CallError::Closed));
    }
}

#[tokio::test(start_paused = true)]
async fn a_second_reply_to_one_request_is_unsolicited() {
    let (mut client, mut peer) = open();
    let (reply, ()) = tokio::join!(
        client.call(&[b"PING"]),
        peer.answer(&[b"PING"], b"+PONG\r\n+PONG\r\n")
    );
    assert_eq!(reply, Err(CallError::Unsolicited));
    assert_eq!(client.call(&[b"PING"]).await, Err(CallError::Closed));
}
