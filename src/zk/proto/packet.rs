//! Whole packets: the length-prefixed framing and the encode / decode entry points for each
//! direction of a connection.

use super::MAX_FRAME;
use super::NOTIFICATION_XID;
use super::codes::{ErrorCode, OpCode};
use super::jute::{DecodeError, Reader, Record, Writer};
use super::ops::{Request, Response};
use super::records::{ConnectRequest, ConnectResponse, ReplyHeader, RequestHeader, WatcherEvent};

/// Splits one frame off the front of `buf`: `Ok(Some((body, consumed)))`, `Ok(None)` when
/// more bytes are needed, or an error for an impossible length.
pub fn split_frame(buf: &[u8]) -> Result<Option<(&[u8], usize)>, DecodeError> {
    split_frame_within(buf, MAX_FRAME)
}

/// [`split_frame`] for bodies of at most `max_len` bytes: a longer or negative length is an
/// error as soon as its prefix is in.
pub(super) fn split_frame_within(
    buf: &[u8],
    max_len: usize,
) -> Result<Option<(&[u8], usize)>, DecodeError> {
    let Some((prefix, rest)) = buf.split_first_chunk::<4>() else {
        return Ok(None);
    };
    let len = i32::from_be_bytes(*prefix);
    let len = match usize::try_from(len) {
        Ok(n) if n <= max_len => n,
        _ => return Err(DecodeError::BadFrameLength(i64::from(len))),
    };
    Ok(rest.get(..len).map(|body| (body, 4 + len)))
}

/// Client side: a length-prefixed ConnectRequest packet.
pub fn encode_connect_request(req: &ConnectRequest) -> Vec<u8> {
    let mut w = Writer::packet();
    w.record(req);
    w.finish()
}

/// Client side: a length-prefixed request packet (header + body).
pub fn encode_request(xid: i32, req: &Request) -> Vec<u8> {
    let mut w = Writer::packet();
    w.record(&RequestHeader { xid, op: req.op() });
    req.write_body(&mut w);
    w.finish()
}

/// Server side: decodes a ConnectRequest body (the trailing readOnly byte is optional).
pub fn decode_connect_request(body: &[u8]) -> Result<ConnectRequest, DecodeError> {
    decode_whole(body, ConnectRequest::read)
}

/// Server side: decodes a request header and body.
pub fn decode_request(body: &[u8]) -> Result<(RequestHeader, Request), DecodeError> {
    decode_whole(body, |r| {
        let header: RequestHeader = r.record()?;
        Ok((header, Request::read_body(header.op, r)?))
    })
}

/// Server side: a length-prefixed ConnectResponse packet.
pub fn encode_connect_response(resp: &ConnectResponse) -> Vec<u8> {
    let mut w = Writer::packet();
    w.record(resp);
    w.finish()
}

/// Server side: a length-prefixed reply (header, then the body when given).
pub fn encode_reply(header: &ReplyHeader, body: Option<&Response>) -> Vec<u8> {
    let mut w = Writer::packet();
    w.record(header);
    if let Some(body) = body {
        body.write_body(&mut w);
    }
    w.finish()
}

/// Server side: a length-prefixed watch notification (xid -1, zxid -1, err 0, event).
pub fn encode_notification(event: &WatcherEvent) -> Vec<u8> {
    let mut w = Writer::packet();
    w.record(&ReplyHeader {
        xid: NOTIFICATION_XID,
        zxid: -1,
        err: ErrorCode::Ok,
    });
    w.record(event);
    w.finish()
}

/// Client side: decodes a ConnectResponse body (the trailing readOnly byte is optional).
pub fn decode_connect_response(body: &[u8]) -> Result<ConnectResponse, DecodeError> {
    decode_whole(body, ConnectResponse::read)
}

/// Client side: decodes a reply header and returns the rest of the body.
pub fn decode_reply_header(body: &[u8]) -> Result<(ReplyHeader, &[u8]), DecodeError> {
    let mut r = Reader::new(body);
    let header = r.record()?;
    Ok((header, r.rest()))
}

/// Client side: decodes the body of a successful reply to a request of kind `op`.
pub fn decode_response(op: OpCode, body: &[u8]) -> Result<Response, DecodeError> {
    decode_whole(body, |r| Response::read_body(op, r))
}

/// Client side: decodes the body of a notification (after its reply header).
pub fn decode_watcher_event(body: &[u8]) -> Result<WatcherEvent, DecodeError> {
    decode_whole(body, WatcherEvent::read)
}

/// Runs `read` over `body` and requires it to consume every byte.
fn decode_whole<T>(
    body: &[u8],
    read: impl FnOnce(&mut Reader<'_>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    let mut r = Reader::new(body);
    let value = read(&mut r)?;
    r.finish()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    //! Exact byte layouts, written out field by field from zookeeper.jute.

    use super::*;
    use crate::zk::proto::{
        Acl, CreateMode, CreateRequest, CreateResponse, CreateTtlRequest, EventType, KeeperState,
        MultiOp, OpResult, PING_XID, SetDataResponse, Stat,
    };

    fn cat(fields: &[&[u8]]) -> Vec<u8> {
        fields.concat()
    }

    /// A Stat whose fields are 1..=11, and its 68 bytes on the wire.
    fn counting_stat() -> (Stat, Vec<u8>) {
        let stat = Stat {
            czxid: 1,
            mzxid: 2,
            ctime: 3,
            mtime: 4,
            version: 5,
            cversion: 6,
            aversion: 7,
            ephemeral_owner: 8,
            data_length: 9,
            num_children: 10,
            pzxid: 11,
        };
        let bytes = cat(&[
            &[0, 0, 0, 0, 0, 0, 0, 1],  // czxid
            &[0, 0, 0, 0, 0, 0, 0, 2],  // mzxid
            &[0, 0, 0, 0, 0, 0, 0, 3],  // ctime
            &[0, 0, 0, 0, 0, 0, 0, 4],  // mtime
            &[0, 0, 0, 5],              // version
            &[0, 0, 0, 6],              // cversion
            &[0, 0, 0, 7],              // aversion
            &[0, 0, 0, 0, 0, 0, 0, 8],  // ephemeralOwner
            &[0, 0, 0, 9],              // dataLength
            &[0, 0, 0, 10],             // numChildren
            &[0, 0, 0, 0, 0, 0, 0, 11], // pzxid
        ]);
        (stat, bytes)
    }

    #[test]
    fn connect_request_layout() {
        let req = ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 0x1_0000_0002,
            timeout_ms: 30_000,
            session_id: 0,
            passwd: vec![0; 16],
            read_only: false,
        };
        let expected = cat(&[
            &[0, 0, 0, 45],            // length
            &[0, 0, 0, 0],             // protocolVersion
            &[0, 0, 0, 1, 0, 0, 0, 2], // lastZxidSeen
            &[0, 0, 0x75, 0x30],       // timeOut
            &[0, 0, 0, 0, 0, 0, 0, 0], // sessionId
            &[0, 0, 0, 16],            // passwd
            &[0; 16],
            &[0], // readOnly
        ]);
        let packet = encode_connect_request(&req);
        assert_eq!(packet, expected);
        assert_eq!(decode_connect_request(&packet[4..]), Ok(req.clone()));
        let old_client = &packet[4..packet.len() - 1];
        assert_eq!(decode_connect_request(old_client), Ok(req.clone()));
        let read_only = cat(&[old_client, &[1]]);
        assert!(decode_connect_request(&read_only).unwrap().read_only);
        let extra = cat(&[&packet[4..], &[0]]);
        assert_eq!(
            decode_connect_request(&extra),
            Err(DecodeError::TrailingBytes(1))
        );
    }

    #[test]
    fn connect_response_layout() {
        let resp = ConnectResponse {
            protocol_version: 0,
            timeout_ms: 20_000,
            session_id: 0x0123_4567_89ab_cdef,
            passwd: vec![1, 2],
            read_only: true,
        };
        let expected = cat(&[
            &[0, 0, 0, 23],                                    // length
            &[0, 0, 0, 0],                                     // protocolVersion
            &[0, 0, 0x4e, 0x20],                               // timeOut
            &[0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef], // sessionId
            &[0, 0, 0, 2, 1, 2],                               // passwd
            &[1],                                              // readOnly
        ]);
        let packet = encode_connect_response(&resp);
        assert_eq!(packet, expected);
        assert_eq!(decode_connect_response(&packet[4..]), Ok(resp));
        let old_server = decode_connect_response(&packet[4..packet.len() - 1]);
        assert!(!old_server.unwrap().read_only);
    }

    #[test]
    fn create_ephemeral_sequential_request_layout() {
        let req = Request::Create(CreateRequest {
            path: "/a".into(),
            data: b"x".to_vec(),
            acl: Acl::open_unsafe(),
            mode: CreateMode::EphemeralSequential,
        });
        let expected = cat(&[
            &[0, 0, 0, 50], // length
            &[0, 0, 0, 1],  // xid
            &[0, 0, 0, 1],  // type = create
            &[0, 0, 0, 2],  // path
            b"/a",
            &[0, 0, 0, 1], // data
            b"x",
            &[0, 0, 0, 1],  // acl count
            &[0, 0, 0, 31], // perms = ALL
            &[0, 0, 0, 5],  // scheme
            b"world",
            &[0, 0, 0, 6], // id
            b"anyone",
            &[0, 0, 0, 3], // flags = EPHEMERAL_SEQUENTIAL
        ]);
        let packet = encode_request(1, &req);
        assert_eq!(packet, expected);
        let header = RequestHeader {
            xid: 1,
            op: OpCode::Create,
        };
        assert_eq!(decode_request(&packet[4..]), Ok((header, req)));
    }

    #[test]
    fn ping_request_is_header_only() {
        let packet = encode_request(PING_XID, &Request::Ping);
        assert_eq!(packet, [0, 0, 0, 8, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0x0b]);
    }

    #[test]
    fn close_session_request_layout() {
        let packet = encode_request(5, &Request::CloseSession);
        assert_eq!(packet, [0, 0, 0, 8, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xf5]);
    }

    #[test]
    fn set_watches_request_layout() {
        let req = Request::SetWatches {
            relative_zxid: 0x20,
            data: vec!["/a".into()],
            exist: vec![],
            child: vec!["/b".into()],
        };
        let expected = cat(&[
            &[0, 0, 0, 40],               // length
            &[0xff, 0xff, 0xff, 0xf8],    // xid = -8
            &[0, 0, 0, 101],              // type = setWatches
            &[0, 0, 0, 0, 0, 0, 0, 0x20], // relativeZxid
            &[0, 0, 0, 1, 0, 0, 0, 2],    // dataWatches
            b"/a",
            &[0, 0, 0, 0],             // existWatches
            &[0, 0, 0, 1, 0, 0, 0, 2], // childWatches
            b"/b",
        ]);
        assert_eq!(
            encode_request(crate::zk::proto::SET_WATCHES_XID, &req),
            expected
        );
    }

    #[test]
    fn sync_layouts() {
        let packet = encode_request(4, &Request::Sync { path: "/q".into() });
        let expected = cat(&[
            &[0, 0, 0, 14], // length
            &[0, 0, 0, 4],  // xid
            &[0, 0, 0, 9],  // type = sync
            &[0, 0, 0, 2],  // path
            b"/q",
        ]);
        assert_eq!(packet, expected);
        let header = ReplyHeader {
            xid: 4,
            zxid: 3,
            err: ErrorCode::Ok,
        };
        let reply = encode_reply(&header, Some(&Response::Sync { path: "/q".into() }));
        assert_eq!(&reply[20..], &cat(&[&[0, 0, 0, 2], b"/q"])[..]);
    }

    /// MultiOperationRecord: each op behind MultiHeader {type, done=false, err=-1}, closed
    /// by {-1, true, -1}.
    #[test]
    fn multi_request_layout() {
        let req = Request::Multi {
            ops: vec![
                MultiOp::create("/a", b"", CreateMode::PersistentSequential),
                MultiOp::delete("/b", 5),
                MultiOp::check("/c", -1),
            ],
        };
        let expected = cat(&[
            &[0, 0, 0, 105],                          // length
            &[0, 0, 0, 3],                            // xid
            &[0, 0, 0, 14],                           // type = multi
            &[0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff], // {create, false, -1}
            &[0, 0, 0, 2],                            // path
            b"/a",
            &[0, 0, 0, 0],  // data
            &[0, 0, 0, 1],  // acl count
            &[0, 0, 0, 31], // perms = ALL
            &[0, 0, 0, 5],  // scheme
            b"world",
            &[0, 0, 0, 6], // id
            b"anyone",
            &[0, 0, 0, 2],                            // flags = PERSISTENT_SEQUENTIAL
            &[0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff], // {delete, false, -1}
            &[0, 0, 0, 2],                            // path
            b"/b",
            &[0, 0, 0, 5],                             // version
            &[0, 0, 0, 13, 0, 0xff, 0xff, 0xff, 0xff], // {check, false, -1}
            &[0, 0, 0, 2],                             // path
            b"/c",
            &[0xff; 4],                                           // version
            &[0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff], // {-1, true, -1}
        ]);
        let packet = encode_request(3, &req);
        assert_eq!(packet, expected);
        let header = RequestHeader {
            xid: 3,
            op: OpCode::Multi,
        };
        assert_eq!(decode_request(&packet[4..]), Ok((header, req)));
    }

    /// MultiResponse of a failed multi: the reply header says Ok; every result is an error
    /// result {-1, false, err} + ErrorResponse {err}.
    #[test]
    fn failed_multi_reply_layout() {
        let header = ReplyHeader {
            xid: 3,
            zxid: 0x10,
            err: ErrorCode::Ok,
        };
        let results = vec![
            OpResult::Error { err: ErrorCode::Ok },
            OpResult::Error {
                err: ErrorCode::NoNode,
            },
            OpResult::Error {
                err: ErrorCode::RuntimeInconsistency,
            },
        ];
        let body = Response::Multi { results };
        let expected = cat(&[
            &[0, 0, 0, 64],                                       // length
            &[0, 0, 0, 3],                                        // xid
            &[0, 0, 0, 0, 0, 0, 0, 0x10],                         // zxid
            &[0, 0, 0, 0],                                        // err
            &[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0],             // {error, false, 0}
            &[0, 0, 0, 0],                                        // ErrorResponse 0
            &[0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0x9b], // {error, false, -101}
            &[0xff, 0xff, 0xff, 0x9b],                            // ErrorResponse -101
            &[0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0xfe], // {error, false, -2}
            &[0xff, 0xff, 0xff, 0xfe],                            // ErrorResponse -2
            &[0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff], // {-1, true, -1}
        ]);
        let packet = encode_reply(&header, Some(&body));
        assert_eq!(packet, expected);
        assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(body));
    }

    #[test]
    fn successful_multi_reply_layout() {
        let (stat, stat_bytes) = counting_stat();
        let header = ReplyHeader {
            xid: 3,
            zxid: 0x10,
            err: ErrorCode::Ok,
        };
        let body = Response::Multi {
            results: vec![
                OpResult::Create(CreateResponse { path: "/a1".into() }),
                OpResult::Delete,
                OpResult::SetData(SetDataResponse { stat }),
                OpResult::Check,
            ],
        };
        let expected = cat(&[
            &[0, 0, 0, 136],              // length
            &[0, 0, 0, 3],                // xid
            &[0, 0, 0, 0, 0, 0, 0, 0x10], // zxid
            &[0, 0, 0, 0],                // err
            &[0, 0, 0, 1, 0, 0, 0, 0, 0], // {create, false, 0}
            &[0, 0, 0, 3],                // CreateResponse path
            b"/a1",
            &[0, 0, 0, 2, 0, 0, 0, 0, 0],  // {delete, false, 0}, no body
            &[0, 0, 0, 5, 0, 0, 0, 0, 0],  // {setData, false, 0}
            &stat_bytes,                   // SetDataResponse stat
            &[0, 0, 0, 13, 0, 0, 0, 0, 0], // {check, false, 0}, no body
            &[0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff], // {-1, true, -1}
        ]);
        let packet = encode_reply(&header, Some(&body));
        assert_eq!(packet, expected);
        assert_eq!(decode_response(OpCode::Multi, &packet[20..]), Ok(body));
    }

    /// One create entry of type `op` with `flags` (and a TTL of 7 ms for createTTL) in a
    /// multi, decoded.
    fn multi_create(op: u8, flags: u8) -> Result<Vec<MultiOp>, DecodeError> {
        let ttl: &[u8] = if op == 21 {
            &[0, 0, 0, 0, 0, 0, 0, 7]
        } else {
            &[]
        };
        let packet = cat(&[
            &[0, 0, 0, 1, 0, 0, 0, 14],
            &[0, 0, 0, op, 0, 0xff, 0xff, 0xff, 0xff],
            &[0, 0, 0, 2],
            b"/a",
            &[0xff, 0xff, 0xff, 0xff], // no data
            &[0, 0, 0, 0],             // no ACL
            &[0, 0, 0, flags],
            ttl,
            &[0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff],
        ]);
        match decode_request(&packet)?.1 {
            Request::Multi { ops } => Ok(ops),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn multi_create_entries_are_read_by_their_flags() {
        let create = |mode| {
            Ok(vec![MultiOp::Create(CreateRequest {
                path: "/a".into(),
                data: vec![],
                acl: vec![],
                mode,
            })])
        };
        // create, create2 and createContainer entries alike; createTTL with a mode without
        // a TTL too.
        for op in [1, 15, 19, 21] {
            assert_eq!(
                multi_create(op, 0),
                create(CreateMode::Persistent),
                "type {op}"
            );
            assert_eq!(
                multi_create(op, 4),
                create(CreateMode::Container),
                "type {op}"
            );
        }
        assert_eq!(
            multi_create(1, 5),
            create(CreateMode::PersistentWithTtl),
            "a TTL mode without a TTL: the server fails the multi as it reads it"
        );
        assert_eq!(
            multi_create(21, 5),
            Ok(vec![MultiOp::CreateTtl(CreateTtlRequest {
                path: "/a".into(),
                data: vec![],
                acl: vec![],
                mode: CreateMode::PersistentWithTtl,
                ttl_ms: 7,
            })])
        );
        assert_eq!(
            multi_create(15, 9),
            Ok(vec![MultiOp::CreateUnknownMode {
                path: "/a".into(),
                data: vec![],
                acl: vec![],
                flags: 9,
            }])
        );
    }

    #[test]
    fn unknown_multi_entries_are_typed_errors() {
        // A getData (4) inside a write multi.
        let get_data = cat(&[
            &[0, 0, 0, 1, 0, 0, 0, 14],               // xid 1, multi
            &[0, 0, 0, 4, 0, 0xff, 0xff, 0xff, 0xff], // {getData, false, -1}
            &[0, 0, 0, 1],
            b"/",
            &[0],
            &[0xff, 0xff, 0xff, 0xff, 1, 0xff, 0xff, 0xff, 0xff],
        ]);
        assert_eq!(
            decode_request(&get_data),
            Err(DecodeError::UnknownMultiOp(4))
        );
        let get_data_result = cat(&[&[0, 0, 0, 4, 0, 0, 0, 0, 0], &[0, 0, 0, 1], b"/"]);
        assert_eq!(
            decode_response(OpCode::Multi, &get_data_result),
            Err(DecodeError::UnknownMultiOp(4))
        );
        // The closing header's type and err are not looked at.
        let closing = [0, 0, 0, 7, 1, 0, 0, 0, 7];
        assert_eq!(
            decode_response(OpCode::Multi, &closing),
            Ok(Response::Multi { results: vec![] })
        );
    }

    #[test]
    fn stat_layout_is_68_bytes_in_field_order() {
        let (stat, stat_bytes) = counting_stat();
        assert_eq!(stat_bytes.len(), 68);
        let header = ReplyHeader {
            xid: 4,
            zxid: 12,
            err: ErrorCode::Ok,
        };
        let packet = encode_reply(&header, Some(&Response::Exists { stat }));
        let expected = cat(&[
            &[0, 0, 0, 84],             // length
            &[0, 0, 0, 4],              // xid
            &[0, 0, 0, 0, 0, 0, 0, 12], // zxid
            &[0, 0, 0, 0],              // err
            &stat_bytes,
        ]);
        assert_eq!(packet, expected);
        let (got_header, rest) = decode_reply_header(&packet[4..]).unwrap();
        assert_eq!(got_header, header);
        assert_eq!(
            decode_response(OpCode::Exists, rest),
            Ok(Response::Exists { stat })
        );
    }

    #[test]
    fn notification_layout() {
        let event = WatcherEvent {
            event_type: EventType::NodeDeleted,
            state: KeeperState::SyncConnected,
            path: "/lock".into(),
        };
        let expected = cat(&[
            &[0, 0, 0, 33], // length
            &[0xff; 4],     // xid = -1
            &[0xff; 8],     // zxid = -1
            &[0, 0, 0, 0],  // err
            &[0, 0, 0, 2],  // type = NodeDeleted
            &[0, 0, 0, 3],  // state = SyncConnected
            &[0, 0, 0, 5],  // path
            b"/lock",
        ]);
        let packet = encode_notification(&event);
        assert_eq!(packet, expected);
        let (header, rest) = decode_reply_header(&packet[4..]).unwrap();
        assert_eq!(
            header,
            ReplyHeader {
                xid: NOTIFICATION_XID,
                zxid: -1,
                err: ErrorCode::Ok
            }
        );
        assert_eq!(decode_watcher_event(rest), Ok(event));
    }

    #[test]
    fn error_reply_has_no_body() {
        let header = ReplyHeader {
            xid: 7,
            zxid: 0x10,
            err: ErrorCode::NoNode,
        };
        let packet = encode_reply(&header, None);
        let expected = cat(&[
            &[0, 0, 0, 16],               // length
            &[0, 0, 0, 7],                // xid
            &[0, 0, 0, 0, 0, 0, 0, 0x10], // zxid
            &[0xff, 0xff, 0xff, 0x9b],    // err = -101
        ]);
        assert_eq!(packet, expected);
        assert_eq!(decode_reply_header(&packet[4..]), Ok((header, &[][..])));
    }

    #[test]
    fn get_children2_reply_layout() {
        let (stat, stat_bytes) = counting_stat();
        let header = ReplyHeader {
            xid: 3,
            zxid: 9,
            err: ErrorCode::Ok,
        };
        let body = Response::GetChildren2 {
            children: vec!["a".into(), "bc".into()],
            stat,
        };
        let expected = cat(&[
            &[0, 0, 0, 99],            // length
            &[0, 0, 0, 3],             // xid
            &[0, 0, 0, 0, 0, 0, 0, 9], // zxid
            &[0, 0, 0, 0],             // err
            &[0, 0, 0, 2],             // children count
            &[0, 0, 0, 1],             // "a"
            b"a",
            &[0, 0, 0, 2], // "bc"
            b"bc",
            &stat_bytes,
        ]);
        let packet = encode_reply(&header, Some(&body));
        assert_eq!(packet, expected);
        let (_, rest) = decode_reply_header(&packet[4..]).unwrap();
        assert_eq!(decode_response(OpCode::GetChildren2, rest), Ok(body));
    }

    #[test]
    fn unknown_codes_are_typed_errors() {
        assert_eq!(
            decode_request(&[0, 0, 0, 1, 0, 0, 0, 99]),
            Err(DecodeError::UnknownOp(99))
        );
        let bad_err = cat(&[&[0, 0, 0, 1], &[0; 8], &[0xff, 0xff, 0xff, 0x9c]]);
        assert_eq!(
            decode_reply_header(&bad_err),
            Err(DecodeError::UnknownErrorCode(-100))
        );
        let bad_mode = cat(&[
            &[0, 0, 0, 1, 0, 0, 0, 1], // xid 1, create
            &[0, 0, 0, 1],             // path
            b"/",
            &[0, 0, 0, 0], // data
            &[0, 0, 0, 0], // acl
            &[0, 0, 0, 7], // flags: no such CreateMode
        ]);
        assert_eq!(
            decode_request(&bad_mode),
            Err(DecodeError::UnknownCreateMode(7))
        );
        assert_eq!(
            decode_watcher_event(&[0, 0, 0, 9, 0, 0, 0, 3, 0, 0, 0, 0]),
            Err(DecodeError::UnknownEventType(9))
        );
        assert_eq!(
            decode_watcher_event(&[0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0]),
            Err(DecodeError::UnknownKeeperState(2))
        );
    }

    #[test]
    fn bodiless_replies_reject_trailing_bytes() {
        for op in [
            OpCode::Ping,
            OpCode::CloseSession,
            OpCode::SetWatches,
            OpCode::Delete,
        ] {
            assert!(decode_response(op, &[]).is_ok());
            assert_eq!(
                decode_response(op, &[0]),
                Err(DecodeError::TrailingBytes(1))
            );
        }
        let ping_with_body = [0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0x0b, 0];
        assert_eq!(
            decode_request(&ping_with_body),
            Err(DecodeError::TrailingBytes(1))
        );
    }

    #[test]
    fn split_frame_waits_for_whole_frames() {
        assert_eq!(split_frame(&[]), Ok(None));
        assert_eq!(split_frame(&[0, 0, 0]), Ok(None));
        assert_eq!(split_frame(&[0, 0, 0, 3, 1, 2]), Ok(None));
        assert_eq!(
            split_frame(&[0, 0, 0, 3, 1, 2, 3]),
            Ok(Some((&[1, 2, 3][..], 7)))
        );
        assert_eq!(split_frame(&[0, 0, 0, 1, 9, 0, 0]), Ok(Some((&[9][..], 5))));
        assert_eq!(split_frame(&[0, 0, 0, 0]), Ok(Some((&[][..], 4))));
    }

    #[test]
    fn split_frame_rejects_impossible_lengths() {
        assert_eq!(
            split_frame(&[0xff, 0xff, 0xff, 0xff]),
            Err(DecodeError::BadFrameLength(-1))
        );
        let max = u32::try_from(MAX_FRAME).unwrap();
        assert_eq!(split_frame(&max.to_be_bytes()), Ok(None));
        assert_eq!(
            split_frame(&(max + 1).to_be_bytes()),
            Err(DecodeError::BadFrameLength(i64::from(max) + 1))
        );
        assert_eq!(
            split_frame(&[0x7f, 0xff, 0xff, 0xff, 0]),
            Err(DecodeError::BadFrameLength(i64::from(i32::MAX)))
        );
    }

    #[test]
    fn truncated_connect_and_notification_bodies_are_rejected() {
        let req = encode_connect_request(&ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 1,
            timeout_ms: 4000,
            session_id: 2,
            passwd: vec![3; 16],
            read_only: true,
        });
        let resp = encode_connect_response(&ConnectResponse {
            protocol_version: 0,
            timeout_ms: 4000,
            session_id: 2,
            passwd: vec![3; 16],
            read_only: true,
        });
        // The last byte (readOnly) is optional, so only shorter cuts must fail.
        for cut in 0..req.len() - 5 {
            assert!(
                decode_connect_request(&req[4..4 + cut]).is_err(),
                "cut {cut}"
            );
        }
        for cut in 0..resp.len() - 5 {
            assert!(
                decode_connect_response(&resp[4..4 + cut]).is_err(),
                "cut {cut}"
            );
        }
        let event = encode_notification(&WatcherEvent {
            event_type: EventType::NodeChildrenChanged,
            state: KeeperState::SyncConnected,
            path: "/q".into(),
        });
        for cut in 20..event.len() {
            assert!(decode_watcher_event(&event[20..cut]).is_err(), "cut {cut}");
        }
    }

    proptest::proptest! {
        #[test]
        fn handshake_and_event_decoders_never_panic(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            if let Ok(req) = decode_connect_request(&bytes) {
                let again = encode_connect_request(&req);
                proptest::prop_assert_eq!(decode_connect_request(&again[4..]), Ok(req));
            }
            if let Ok(resp) = decode_connect_response(&bytes) {
                let again = encode_connect_response(&resp);
                proptest::prop_assert_eq!(decode_connect_response(&again[4..]), Ok(resp));
            }
            if let Ok(event) = decode_watcher_event(&bytes) {
                let again = encode_notification(&event);
                proptest::prop_assert_eq!(decode_watcher_event(&again[20..]), Ok(event));
            }
            if let Ok(Some((body, consumed))) = split_frame(&bytes) {
                proptest::prop_assert_eq!(consumed, body.len() + 4);
                proptest::prop_assert!(consumed <= bytes.len());
            }
        }
    }
}
