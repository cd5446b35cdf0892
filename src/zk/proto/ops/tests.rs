//! Every body through a whole packet and back, every strict prefix of a body rejected,
//! and arbitrary bytes never panicking the decoders.

use super::*;
use crate::zk::proto::{
    CreateMode, ErrorCode, ReplyHeader, RequestHeader, decode_reply_header, decode_request,
    decode_response, encode_reply, encode_request, split_frame,
};
use proptest::prelude::*;

/// A Stat whose fields all differ.
pub(super) fn stat() -> Stat {
    Stat {
        czxid: 0x1_0000_0001,
        mzxid: 0x1_0000_0007,
        ctime: 1_700_000_000_000,
        mtime: 1_700_000_000_500,
        version: 3,
        cversion: -1,
        aversion: 0,
        ephemeral_owner: 0x0100_0000_0000_0042,
        data_length: 2,
        num_children: 0,
        pzxid: 0x1_0000_0009,
    }
}

/// Every family's example requests.
fn all_requests() -> Vec<Request> {
    FAMILIES.iter().flat_map(|examples| examples().0).collect()
}

/// Every family's example replies, each with the op of the request it answers.
fn all_responses() -> Vec<(OpCode, Response)> {
    FAMILIES.iter().flat_map(|examples| examples().1).collect()
}

/// Each family's examples.
type Examples = fn() -> (Vec<Request>, Vec<(OpCode, Response)>);
const FAMILIES: &[Examples] = &[
    reads::examples,
    writes::examples,
    watches::examples,
    sessions::examples,
    acls::examples,
];

fn body_of(packet: &[u8]) -> &[u8] {
    let (body, consumed) = split_frame(packet).unwrap().unwrap();
    assert_eq!(consumed, packet.len());
    body
}

#[test]
fn every_request_round_trips() {
    let requests = all_requests();
    let ops: Vec<OpCode> = requests.iter().map(Request::op).collect();
    for &op in OpCode::ALL {
        assert!(ops.contains(&op), "no request exercises {op:?}");
    }
    for (xid, req) in (1..).zip(requests) {
        let packet = encode_request(xid, &req);
        let header = RequestHeader { xid, op: req.op() };
        assert_eq!(decode_request(body_of(&packet)), Ok((header, req)));
    }
}

#[test]
fn every_response_round_trips() {
    for (op, resp) in all_responses() {
        let header = ReplyHeader {
            xid: 9,
            zxid: 0x3_0000_0001,
            err: ErrorCode::Ok,
        };
        let packet = encode_reply(&header, Some(&resp));
        let (got, rest) = decode_reply_header(body_of(&packet)).unwrap();
        assert_eq!(got, header);
        assert_eq!(decode_response(op, rest), Ok(resp));
    }
}

#[test]
fn every_op_has_one_row_and_replies() {
    for &op in OpCode::ALL {
        let rows = TABLE.iter().flat_map(|rows| rows.iter());
        assert_eq!(rows.filter(|row| row.op == op).count(), 1, "{op:?}");
        let replies = all_responses();
        assert!(replies.iter().any(|(o, _)| *o == op), "no reply to {op:?}");
    }
}

#[test]
fn every_strict_prefix_of_a_request_is_rejected() {
    for req in all_requests() {
        let packet = encode_request(1, &req);
        let body = body_of(&packet);
        for cut in 0..body.len() {
            assert!(
                decode_request(&body[..cut]).is_err(),
                "{req:?} cut at {cut}"
            );
        }
    }
}

#[test]
fn every_strict_prefix_of_a_reply_is_rejected() {
    let header = ReplyHeader {
        xid: 1,
        zxid: 1,
        err: ErrorCode::Ok,
    };
    for (op, resp) in all_responses() {
        let packet = encode_reply(&header, Some(&resp));
        let body = body_of(&packet);
        for cut in 0..16 {
            assert!(decode_reply_header(&body[..cut]).is_err());
        }
        let reply_body = &body[16..];
        for cut in 0..reply_body.len() {
            assert!(
                decode_response(op, &reply_body[..cut]).is_err(),
                "{resp:?} cut at {cut}"
            );
        }
    }
}

/// Re-encoding a decoded request must decode to the same request: decoding loses
/// nothing the encoder needs.
fn assert_request_stable(body: &[u8]) {
    if let Ok((header, req)) = decode_request(body) {
        let again = encode_request(header.xid, &req);
        assert_eq!(decode_request(&again[4..]), Ok((header, req)));
    }
}

fn multi_op() -> impl Strategy<Value = MultiOp> {
    let path = "/[a-z]{0,3}(/[a-z-]{1,3}){0,2}";
    let data = proptest::collection::vec(any::<u8>(), 0..4);
    prop_oneof![
        (
            path,
            data.clone(),
            proptest::sample::select(CreateMode::ALL)
        )
            .prop_map(|(p, d, m)| MultiOp::create(p, &d, m)),
        (path, any::<i32>()).prop_map(|(p, v)| MultiOp::delete(p, v)),
        (path, data, any::<i32>()).prop_map(|(p, d, v)| MultiOp::set_data(p, &d, v)),
        (path, any::<i32>()).prop_map(|(p, v)| MultiOp::check(p, v)),
    ]
}

fn op_result() -> impl Strategy<Value = OpResult> {
    prop_oneof![
        "/[a-z0-9]{0,12}".prop_map(|path| OpResult::Create(CreateResponse { path })),
        Just(OpResult::Delete),
        any::<i64>().prop_map(|czxid| OpResult::SetData(SetDataResponse {
            stat: Stat { czxid, ..stat() }
        })),
        Just(OpResult::Check),
        proptest::sample::select(ErrorCode::ALL).prop_map(|err| OpResult::Error { err }),
    ]
}

proptest! {
    /// Any multi, and any multi reply, through a packet and back; every strict prefix
    /// and one flipped byte never panic the decoder.
    #[test]
    fn multi_round_trips_and_mangling_never_panics(
        ops in proptest::collection::vec(multi_op(), 0..5),
        results in proptest::collection::vec(op_result(), 0..5),
        flip in any::<prop::sample::Index>(),
        mask in 1..=255u8,
    ) {
        let req = Request::Multi { ops };
        let packet = encode_request(7, &req);
        let header = RequestHeader { xid: 7, op: OpCode::Multi };
        prop_assert_eq!(decode_request(body_of(&packet)), Ok((header, req)));
        let mut mangled = packet[4..].to_vec();
        let at = flip.index(mangled.len());
        mangled[at] ^= mask;
        assert_request_stable(&mangled);
        for cut in 0..packet.len() - 4 {
            prop_assert!(decode_request(&packet[4..4 + cut]).is_err());
        }

        let resp = Response::Multi { results };
        let header = ReplyHeader { xid: 7, zxid: 9, err: ErrorCode::Ok };
        let packet = encode_reply(&header, Some(&resp));
        prop_assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(resp));
        let mut mangled = packet[20..].to_vec();
        if !mangled.is_empty() {
            let at = flip.index(mangled.len());
            mangled[at] ^= mask;
            if let Ok(again) = decode_response(OpCode::Multi, &mangled) {
                let packet = encode_reply(&header, Some(&again));
                prop_assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(again));
            }
        }
    }

    #[test]
    fn decode_request_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        assert_request_stable(&bytes);
    }

    #[test]
    fn decode_request_body_never_panics(
        xid in any::<i32>(),
        op in proptest::sample::select(OpCode::ALL),
        tail in proptest::collection::vec(any::<u8>(), 0..96),
    ) {
        let mut body = xid.to_be_bytes().to_vec();
        body.extend_from_slice(&op.code().to_be_bytes());
        body.extend_from_slice(&tail);
        assert_request_stable(&body);
    }

    #[test]
    fn decode_response_never_panics(
        op in proptest::sample::select(OpCode::ALL),
        bytes in proptest::collection::vec(any::<u8>(), 0..96),
    ) {
        if let Ok(resp) = decode_response(op, &bytes) {
            let header = ReplyHeader { xid: 1, zxid: 1, err: ErrorCode::Ok };
            let packet = encode_reply(&header, Some(&resp));
            prop_assert_eq!(decode_response(op, &packet[20..]), Ok(resp));
        }
    }
}
