//! Exact bytes. The request cases and their error texts were checked against redis-server
//! 7.0.15 (a real server answers `-ERR <message>` and closes the connection).

use super::*;

fn request(buf: &[u8]) -> Result<Decoded, ProtocolError> {
    decode_request(buf, &Limits::default())
}

fn got(args: &[&[u8]], consumed: usize) -> Result<Decoded, ProtocolError> {
    Ok(Decoded::Request {
        args: args.iter().map(|a| a.to_vec()).collect(),
        consumed,
    })
}

fn message(e: ProtocolError) -> String {
    String::from_utf8(e.message()).unwrap_or_default()
}

#[test]
fn multibulk_request_and_every_prefix_incomplete() {
    let ping = b"*1\r\n$4\r\nPING\r\n";
    assert_eq!(request(ping), got(&[b"PING"], 14));
    for cut in 0..ping.len() {
        assert_eq!(
            request(&ping[..cut]),
            Ok(Decoded::Incomplete),
            "cut at {cut}"
        );
    }
    // Only the first of two requests; binary data may hold CR LF.
    let two = b"*2\r\n$4\r\nECHO\r\n$4\r\na\r\nb\r\n*1\r\n$4\r\nPING\r\n";
    assert_eq!(request(two), got(&[b"ECHO", b"a\r\nb"], 24));
    assert_eq!(request(b"*1\r\n$0\r\n\r\n"), got(&[b""], 10));
}

#[test]
fn multibulk_zero_or_negative_count_is_an_empty_request() {
    assert_eq!(request(b"*0\r\n*1\r\n"), got(&[], 4));
    assert_eq!(request(b"*-5\r\nPING\r\n"), got(&[], 5));
}

#[test]
fn bytes_after_cr_are_skipped_unread() {
    // Redis checks neither the byte after a length line's \r nor the two after the data.
    assert_eq!(request(b"*1\rX$4\r\nPINGxx"), got(&[b"PING"], 14));
    // ...but waits for them.
    assert_eq!(request(b"*1\r\n$4\r\nPING\r"), Ok(Decoded::Incomplete));
    assert_eq!(request(b"*1\r"), Ok(Decoded::Incomplete));
}

#[test]
fn a_nul_before_the_line_end_leaves_the_request_incomplete() {
    assert_eq!(request(b"*1\0\r\n$4\r\nPING\r\n"), Ok(Decoded::Incomplete));
    assert_eq!(request(b"*1\r\n$4\0\r\nPING\r\n"), Ok(Decoded::Incomplete));
    assert_eq!(request(b"PING\0\r\nPING\r\n"), Ok(Decoded::Incomplete));
    // NULs in bulk data are data.
    assert_eq!(request(b"*1\r\n$2\r\n\0\0\r\n"), got(&[b"\0\0"], 12));
}

#[test]
fn multibulk_errors_word_for_word() {
    use ProtocolError::*;
    let cases: &[(&[u8], ProtocolError, &str)] = &[
        (
            b"*abc\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*01\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"* 1\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*+1\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*-0\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*2147483648\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*3000000000\r\n",
            InvalidMultibulkLength,
            "Protocol error: invalid multibulk length",
        ),
        (
            b"*1\r\nx\r\n",
            ExpectedDollar(b'x'),
            "Protocol error: expected '$', got 'x'",
        ),
        // The byte is a CR or LF: addReplyErrorFormat prints it as a space.
        (
            b"*1\r\n\r\n",
            ExpectedDollar(b'\r'),
            "Protocol error: expected '$', got ' '",
        ),
        (
            b"*1\r\n\n\r\n",
            ExpectedDollar(b'\n'),
            "Protocol error: expected '$', got ' '",
        ),
        (
            b"*1\r\n$-1\r\n",
            InvalidBulkLength,
            "Protocol error: invalid bulk length",
        ),
        (
            b"*1\r\n$abc\r\n",
            InvalidBulkLength,
            "Protocol error: invalid bulk length",
        ),
        (
            b"*1\r\n$04\r\nPING\r\n",
            InvalidBulkLength,
            "Protocol error: invalid bulk length",
        ),
        (
            b"*1\r\n$536870913\r\n",
            InvalidBulkLength,
            "Protocol error: invalid bulk length",
        ),
    ];
    for (input, error, text) in cases {
        assert_eq!(
            request(input),
            Err(*error),
            "{:?}",
            String::from_utf8_lossy(input)
        );
        assert_eq!(message(*error), *text);
    }
    // The largest count is fine; it only waits for its arguments.
    assert_eq!(request(b"*2147483647\r\n"), Ok(Decoded::Incomplete));
    assert_eq!(request(b"*1\r\n$536870912\r\n"), Ok(Decoded::Incomplete));
}

#[test]
fn lines_too_long_without_their_end() {
    let limit = Limits::default().max_inline_len;
    assert_eq!(limit, 65536);
    let mut inline = vec![b'x'; limit];
    assert_eq!(request(&inline), Ok(Decoded::Incomplete));
    inline.push(b'y');
    assert_eq!(request(&inline), Err(ProtocolError::TooBigInlineRequest));
    // Once the line end is there, a long line is fine.
    inline.push(b'\n');
    assert!(matches!(request(&inline), Ok(Decoded::Request { .. })));

    let mut count = vec![b'*'];
    count.extend(vec![b'1'; limit]);
    assert_eq!(request(&count), Err(ProtocolError::TooBigMbulkCount));
    let mut bulk = b"*1\r\n$".to_vec();
    bulk.extend(vec![b'1'; limit]);
    assert_eq!(request(&bulk), Err(ProtocolError::TooBigBulkCount));
    let mut junk = b"*1\r\n".to_vec();
    junk.extend(vec![b'x'; limit + 1]);
    assert_eq!(request(&junk), Err(ProtocolError::TooBigBulkCount));

    assert_eq!(
        message(ProtocolError::TooBigInlineRequest),
        "Protocol error: too big inline request"
    );
    assert_eq!(
        message(ProtocolError::TooBigMbulkCount),
        "Protocol error: too big mbulk count string"
    );
    assert_eq!(
        message(ProtocolError::TooBigBulkCount),
        "Protocol error: too big bulk count string"
    );
}

#[test]
fn smaller_limits_for_the_simulation() {
    let limits = Limits {
        max_bulk_len: 3,
        max_inline_len: 8,
        max_multibulk_len: 1,
    };
    let decode = |b: &[u8]| decode_request(b, &limits);
    assert_eq!(decode(b"*1\r\n$3\r\nGET\r\n"), got(&[b"GET"], 13));
    assert_eq!(
        decode(b"*1\r\n$4\r\nPING\r\n"),
        Err(ProtocolError::InvalidBulkLength)
    );
    assert_eq!(
        decode(b"*2\r\n"),
        Err(ProtocolError::InvalidMultibulkLength)
    );
    assert_eq!(
        decode(b"PING PING"),
        Err(ProtocolError::TooBigInlineRequest)
    );
    assert_eq!(decode(b"PING PIN"), Ok(Decoded::Incomplete));
}

#[test]
fn inline_requests() {
    assert_eq!(request(b"PING\r\n"), got(&[b"PING"], 6));
    assert_eq!(request(b"PING\n"), got(&[b"PING"], 5));
    assert_eq!(request(b"PING"), Ok(Decoded::Incomplete));
    assert_eq!(request(b"PING\r"), Ok(Decoded::Incomplete));
    assert_eq!(
        request(b"SET k \"a b\"\r\nGET k\r\n"),
        got(&[b"SET", b"k", b"a b"], 13)
    );
    // Only the \r right before the \n belongs to the line end.
    assert_eq!(request(b"\r\r\nPING\r\n"), got(&[], 3));
    // Empty lines are requests of no arguments (Redis skips them without a reply).
    assert_eq!(request(b"\r\n"), got(&[], 2));
    assert_eq!(request(b"\n"), got(&[], 1));
    assert_eq!(request(b"   \r\n"), got(&[], 5));
}

#[test]
fn inline_unbalanced_quotes() {
    for line in [
        &b"ECHO \"abc\r\n"[..],
        b"ECHO \"abc\"d\r\n",
        b"ECHO 'x'y\r\n",
        b"ECHO \"abc\\\r\n",
    ] {
        assert_eq!(request(line), Err(ProtocolError::UnbalancedQuotes));
    }
    assert_eq!(
        message(ProtocolError::UnbalancedQuotes),
        "Protocol error: unbalanced quotes in request"
    );
}

fn encoded(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    encode(frame, Protocol::Resp2, &mut out);
    out
}

fn encoded3(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    encode(frame, Protocol::Resp3, &mut out);
    out
}

/// Each RESP3 type in both protocols, as redis-server 7.0.15 sends it (HELLO, INFO, a
/// script's `{double=…}`, `{map=…}`, `{set=…}`, `{big_number=…}`, `{verbatim_string=…}`).
#[test]
fn resp3_types_in_both_protocols() {
    let cases: &[(Frame, &[u8], &[u8])] = &[
        (Frame::Null, b"$-1\r\n", b"_\r\n"),
        (Frame::NullArray, b"*-1\r\n", b"_\r\n"),
        (
            Frame::Map(vec![(Frame::Bulk(b"a".to_vec()), Frame::Integer(1))]),
            b"*2\r\n$1\r\na\r\n:1\r\n",
            b"%1\r\n$1\r\na\r\n:1\r\n",
        ),
        (Frame::Map(Vec::new()), b"*0\r\n", b"%0\r\n"),
        (
            Frame::Set(vec![Frame::Bulk(b"a".to_vec())]),
            b"*1\r\n$1\r\na\r\n",
            b"~1\r\n$1\r\na\r\n",
        ),
        (
            Frame::Push(vec![Frame::Bulk(b"message".to_vec())]),
            b"*1\r\n$7\r\nmessage\r\n",
            b">1\r\n$7\r\nmessage\r\n",
        ),
        (
            Frame::Double(b"1.5".to_vec()),
            b"$3\r\n1.5\r\n",
            b",1.5\r\n",
        ),
        (Frame::Boolean(true), b":1\r\n", b"#t\r\n"),
        (Frame::Boolean(false), b":0\r\n", b"#f\r\n"),
        (
            Frame::BigNumber(b"123".to_vec()),
            b"$3\r\n123\r\n",
            b"(123\r\n",
        ),
        (
            Frame::Verbatim {
                format: *b"txt",
                text: b"hi".to_vec(),
            },
            b"$2\r\nhi\r\n",
            b"=6\r\ntxt:hi\r\n",
        ),
        (
            Frame::Array(vec![Frame::Map(vec![(
                Frame::Null,
                Frame::Set(Vec::new()),
            )])]),
            b"*1\r\n*2\r\n$-1\r\n*0\r\n",
            b"*1\r\n%1\r\n_\r\n~0\r\n",
        ),
    ];
    let limits = ReplyLimits::default();
    for (frame, resp2, resp3) in cases {
        assert_eq!(encoded(frame), *resp2, "{frame:?}");
        assert_eq!(encoded3(frame), *resp3, "{frame:?}");
        let read2 = decode_reply(resp2, &limits).unwrap().unwrap();
        assert_eq!(read2, (frame.clone().into_resp2(), resp2.len()));
        let (read3, used) = decode_reply(resp3, &limits).unwrap().unwrap();
        assert_eq!(used, resp3.len());
        if *frame != Frame::NullArray {
            assert_eq!(read3, *frame);
        }
    }
}

#[test]
fn resp3_replies_redis_never_sends_are_refused() {
    let limits = ReplyLimits::default();
    for (bytes, error) in [
        (
            &b"|1\r\n+a\r\n+b\r\n+c\r\n"[..],
            ReplyError::UnknownType(b'|'),
        ),
        (b"$?\r\n", ReplyError::BadLength),
        (b"%-1\r\n", ReplyError::BadLength),
        (b"#x\r\n", ReplyError::BadLineEnd),
        (b"_x\r\n", ReplyError::BadLineEnd),
        (b"=2\r\nab\r\n", ReplyError::BadLineEnd),
    ] {
        assert_eq!(decode_reply(bytes, &limits), Err(error), "{bytes:?}");
    }
    assert_eq!(
        decode_reply(b"!5\r\nERR x\r\n", &limits),
        Ok(Some((Frame::Error(b"ERR x".to_vec()), 11)))
    );
    assert_eq!(decode_reply(b"%2\r\n+a\r\n", &limits), Ok(None));
}

#[test]
fn encode_every_kind() {
    let cases: &[(Frame, &[u8])] = &[
        (Frame::Simple(b"OK".to_vec()), b"+OK\r\n"),
        (Frame::Error(b"ERR no".to_vec()), b"-ERR no\r\n"),
        (Frame::Integer(0), b":0\r\n"),
        (Frame::Integer(-2), b":-2\r\n"),
        (Frame::Integer(i64::MIN), b":-9223372036854775808\r\n"),
        (Frame::Bulk(b"a\r\nb".to_vec()), b"$4\r\na\r\nb\r\n"),
        (Frame::Bulk(Vec::new()), b"$0\r\n\r\n"),
        (Frame::Null, b"$-1\r\n"),
        (Frame::NullArray, b"*-1\r\n"),
        (Frame::Array(Vec::new()), b"*0\r\n"),
        (
            Frame::Array(vec![
                Frame::Integer(1),
                Frame::Array(vec![Frame::Null, Frame::Bulk(b"x".to_vec())]),
                Frame::Simple(b"ok".to_vec()),
            ]),
            b"*3\r\n:1\r\n*2\r\n$-1\r\n$1\r\nx\r\n+ok\r\n",
        ),
    ];
    for (frame, bytes) in cases {
        assert_eq!(encoded(frame), *bytes, "{frame:?}");
        assert_eq!(
            decode_reply(bytes, &ReplyLimits::default()),
            Ok(Some((frame.clone(), bytes.len())))
        );
    }
}

#[test]
fn a_command_encodes_as_the_array_of_its_bulk_strings() {
    let long = b"x".repeat(1000);
    for args in [
        vec![],
        vec![b"PING".as_slice()],
        vec![b"SET", b"k", b"", b"NX", b"PX", b"200"],
        vec![long.as_slice(), b"\r\n$-1"],
    ] {
        let mut direct = b"prefix".to_vec();
        encode_command(&args, &mut direct);
        let array = Frame::Array(args.iter().map(|a| Frame::Bulk(a.to_vec())).collect());
        assert_eq!(direct, [b"prefix".to_vec(), encoded(&array)].concat());
    }
}

#[test]
fn encode_appends() {
    let mut out = b"+PONG\r\n".to_vec();
    encode(&Frame::Integer(7), Protocol::Resp3, &mut out);
    assert_eq!(out, b"+PONG\r\n:7\r\n");
}

#[test]
fn deep_nesting_encodes_without_recursion() {
    let mut frame = Frame::Array(Vec::new());
    for _ in 0..100_000 {
        frame = Frame::Array(vec![frame]);
    }
    let out = encoded(&frame);
    assert_eq!(out.len(), 100_000 * 4 + 4);
    // Dropping a value this deep recurses in Rust's drop glue; unwrap it by hand.
    while let Frame::Array(mut items) = frame {
        frame = items.pop().unwrap_or(Frame::Null);
    }
}

fn reply(buf: &[u8]) -> Result<Option<(Frame, usize)>, ReplyError> {
    decode_reply(buf, &ReplyLimits::default())
}

#[test]
fn reply_prefixes_are_incomplete() {
    let bytes = b"*3\r\n:1\r\n*2\r\n$-1\r\n$1\r\nx\r\n+ok\r\n";
    for cut in 0..bytes.len() {
        assert_eq!(reply(&bytes[..cut]), Ok(None), "cut at {cut}");
    }
    // A value followed by the next one: only the first is consumed.
    assert_eq!(reply(b":1\r\n:2\r\n"), Ok(Some((Frame::Integer(1), 4))));
}

#[test]
fn reply_lines_end_at_the_first_crlf() {
    assert_eq!(
        reply(b"+a\rb\nc\r\n"),
        Ok(Some((Frame::Simple(b"a\rb\nc".to_vec()), 8)))
    );
    assert_eq!(
        reply(b"-ERR x\r\r\n"),
        Ok(Some((Frame::Error(b"ERR x\r".to_vec()), 9)))
    );
}

#[test]
fn reply_errors() {
    use ReplyError::*;
    let cases: &[(&[u8], ReplyError)] = &[
        (b"|1\r\n", UnknownType(b'|')),
        (b"?\r\n", UnknownType(b'?')),
        (b"\r\n", UnknownType(b'\r')),
        (b":1.5\r\n", BadInteger),
        (b":\r\n", BadInteger),
        (b":9223372036854775808\r\n", BadInteger),
        (b"$-2\r\n", BadLength),
        (b"$x\r\n", BadLength),
        (b"*-2\r\n", BadLength),
        (b"*01\r\n", BadLength),
        (b"$1\r\nab\r\n", BadLineEnd),
        (b"$1\r\na\n", BadLineEnd),
        (b"*2\r\n:1\r\n&\r\n", UnknownType(b'&')),
    ];
    for (input, error) in cases {
        assert_eq!(
            reply(input),
            Err(*error),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn reply_limits() {
    let limits = ReplyLimits {
        max_depth: 2,
        max_bulk_len: 4,
        max_frames: 5,
    };
    let decode = |b: &[u8]| decode_reply(b, &limits);
    assert!(matches!(decode(b"*1\r\n*1\r\n:1\r\n"), Ok(Some(_))));
    assert_eq!(decode(b"*1\r\n*1\r\n*0\r\n"), Err(ReplyError::TooDeep));
    assert_eq!(decode(b"$5\r\n"), Err(ReplyError::TooLarge));
    assert!(matches!(decode(b"$4\r\nabcd\r\n"), Ok(Some(_))));
    assert_eq!(decode(b"+abcdef"), Err(ReplyError::TooLarge));
    assert_eq!(decode(b"+abcdef\r\n"), Err(ReplyError::TooLarge));
    assert_eq!(decode(b"*9\r\n"), Err(ReplyError::TooLarge));
    assert_eq!(
        decode(b"*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n"),
        Ok(Some((
            Frame::Array((1..=4).map(Frame::Integer).collect()),
            20
        )))
    );
    assert_eq!(decode(b"*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n"), Ok(None));
    assert_eq!(
        decode(b"*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n:3\r\n"),
        Err(ReplyError::TooLarge)
    );
    // A huge count allocates nothing up front: it just waits.
    assert_eq!(reply(b"*1000000\r\n:1\r\n"), Ok(None));
}
