//! The reader resumes: any split of the input gives the requests and errors of the whole,
//! each byte is looked at a bounded number of times, and declared sizes reserve nothing.

use super::super::request::{Decoded, decode_request};
use super::*;
use crate::redis::resp::encode_command;
use proptest::prelude::*;

type Requests = Vec<Vec<Vec<u8>>>;

/// Feeds `input` in the given pieces, taking every request after each: the requests, the
/// error if one came, and the bytes examined.
fn read_in_pieces(
    input: &[u8],
    cuts: &[usize],
    limits: &Limits,
) -> (Requests, Option<ProtocolError>, u64) {
    let mut reader = RequestReader::default();
    let mut requests = Vec::new();
    let mut start = 0;
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    ends.sort_unstable();
    ends.push(input.len());
    for end in ends {
        reader.feed(&input[start..end.max(start)]);
        start = end.max(start);
        loop {
            match reader.next_request(limits) {
                Ok(Some(args)) => requests.push(args),
                Ok(None) => break,
                Err(e) => return (requests, Some(e), reader.examined()),
            }
        }
    }
    (requests, None, reader.examined())
}

fn whole(input: &[u8]) -> (Requests, Option<ProtocolError>, u64) {
    read_in_pieces(input, &[], &Limits::default())
}

fn one_byte_at_a_time(input: &[u8]) -> (Requests, Option<ProtocolError>, u64) {
    let cuts: Vec<usize> = (1..input.len()).collect();
    read_in_pieces(input, &cuts, &Limits::default())
}

/// Requests as clients send them: multibulk with binary arguments (CR, LF, NUL, `$`, `*`
/// included), inline lines, empty ones.
fn request_bytes() -> impl Strategy<Value = Vec<u8>> {
    let arg = prop::collection::vec(
        prop_oneof![
            Just(b'\r'),
            Just(b'\n'),
            Just(0u8),
            Just(b'$'),
            Just(b'*'),
            any::<u8>()
        ],
        0..12,
    );
    let multibulk = prop::collection::vec(arg, 1..5).prop_map(|args| {
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        encode_command(&refs, &mut out);
        out
    });
    let word = "[a-zA-Z0-9]{1,6}";
    let inline = prop::collection::vec(word, 0..4).prop_map(|words| {
        let mut line = words.join(" ").into_bytes();
        line.extend_from_slice(b"\r\n");
        line
    });
    prop_oneof![
        4 => multibulk,
        2 => inline,
        1 => Just(b"*0\r\n".to_vec()),
        1 => Just(b"\n".to_vec()),
    ]
}

proptest! {
    #[test]
    fn any_split_reads_the_same_requests(
        requests in prop::collection::vec(request_bytes(), 1..8),
        cuts in prop::collection::vec(0usize..400, 0..20),
        tail in prop::collection::vec(any::<u8>(), 0..24),
    ) {
        // Whatever follows the good requests (garbage, an error, a partial request) too.
        let mut input = requests.concat();
        input.extend_from_slice(&tail);
        let at_once = whole(&input);
        let split = read_in_pieces(&input, &cuts, &Limits::default());
        prop_assert_eq!(&split.0, &at_once.0);
        prop_assert_eq!(split.1, at_once.1);
        prop_assert_eq!(&one_byte_at_a_time(&input).0, &at_once.0);
        // And the one-shot decoder agrees on the first request.
        if let Some(first) = at_once.0.first() {
            let decoded = decode_request(&input, &Limits::default());
            let same = matches!(decoded, Ok(Decoded::Request { ref args, .. }) if args == first);
            prop_assert!(same, "decode_request: {:?}", decoded);
        }
        // Each byte is looked at a bounded number of times, however the input is split; a
        // line stuck at a NUL (as Redis's `strchr` sticks) looks at that NUL again on each
        // read, one byte a read, however many bytes it brought (none, here, past the end).
        let (len, reads) = (input.len() as u64, cuts.len() as u64 + 1);
        prop_assert!(
            split.2 <= 3 * len + 3 + reads,
            "{} examined for {} bytes in {} reads",
            split.2,
            len,
            reads
        );
    }
}

/// One DEL with `keys` one-byte keys, as a client sends it.
fn big_del(keys: usize) -> Vec<u8> {
    let names: Vec<[u8; 1]> = (0..keys).map(|i| [b'a' + (i % 26) as u8]).collect();
    let mut args: Vec<&[u8]> = vec![b"DEL"];
    args.extend(names.iter().map(|k| k.as_slice()));
    let mut out = Vec::new();
    encode_command(&args, &mut out);
    out
}

#[test]
fn a_big_request_costs_linear_work_however_it_is_split() {
    let input = big_del(200_000);
    let len = input.len() as u64;
    for piece in [16 * 1024, 1000, 7, 1] {
        let cuts: Vec<usize> = (piece..input.len()).step_by(piece).collect();
        let (requests, error, examined) = read_in_pieces(&input, &cuts, &Limits::default());
        assert_eq!(error, None);
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].len(), 200_001);
        // Headers are searched once, data copied once, plus a byte per read at most.
        assert!(
            examined <= 2 * len,
            "pieces of {piece}: {examined} bytes examined for {len}"
        );
    }
}

#[test]
fn a_long_inline_line_costs_linear_work() {
    let mut line = b"DEL".to_vec();
    for _ in 0..30_000 {
        line.extend_from_slice(b" k");
    }
    line.extend_from_slice(b"\r\n");
    let len = line.len() as u64;
    let cuts: Vec<usize> = (1..line.len()).collect();
    let (requests, error, examined) = read_in_pieces(&line, &cuts, &Limits::default());
    assert_eq!(error, None);
    assert_eq!(requests[0].len(), 30_001);
    // Searched for its `\n` once (a byte again per read), then split once.
    assert!(examined <= 3 * len, "{examined} examined for {len}");
}

#[test]
fn the_limits_fall_on_the_same_byte_however_the_input_is_split() {
    let limits = Limits::default();
    let cases: Vec<(Vec<u8>, ProtocolError)> = vec![
        (vec![b'x'; 65537], ProtocolError::TooBigInlineRequest),
        (
            [&b"*"[..], &[b'1'; 65536]].concat(),
            ProtocolError::TooBigMbulkCount,
        ),
        (
            [&b"*1\r\n$"[..], &[b'1'; 65536]].concat(),
            ProtocolError::TooBigBulkCount,
        ),
        // A NUL hides the line end for good: the line only grows.
        (
            [&b"PING\0\r\n"[..], &[b'x'; 65530]].concat(),
            ProtocolError::TooBigInlineRequest,
        ),
        (
            b"*2\r\n$3\r\nGET\r\n$536870913\r\n".to_vec(),
            ProtocolError::InvalidBulkLength,
        ),
        (
            b"*2147483648\r\n".to_vec(),
            ProtocolError::InvalidMultibulkLength,
        ),
        (b"SET k \"v\r\n".to_vec(), ProtocolError::UnbalancedQuotes),
    ];
    for (input, error) in cases {
        let short = &input[..input.len() - 1];
        for piece in [16 * 1024, 5, 1] {
            let cuts: Vec<usize> = (piece..input.len()).step_by(piece).collect();
            let got = read_in_pieces(&input, &cuts, &limits);
            assert_eq!(got.1, Some(error), "{error:?} in pieces of {piece}");
            if !matches!(error, ProtocolError::UnbalancedQuotes) {
                // One byte fewer and it still waits.
                assert_eq!(read_in_pieces(short, &cuts, &limits).1, None, "{error:?}");
            }
        }
    }
}

#[test]
fn a_declared_length_reserves_nothing_until_its_bytes_arrive() {
    let mut reader = RequestReader::default();
    reader.feed(b"*1\r\n$536870912\r\nabcdefgh");
    assert_eq!(reader.next_request(&Limits::default()), Ok(None));
    // Redis's query buffer would hold the 8 bytes of the argument so far.
    assert_eq!(reader.pending(), 8);
    let State::Args {
        bulk: Bulk::Data { arg, .. },
        ..
    } = &reader.parser.state
    else {
        panic!("reading the argument: {:?}", reader.parser.state);
    };
    assert!(arg.capacity() <= 16, "{} reserved", arg.capacity());
    // As bytes arrive the room grows with them, within twice what arrived.
    for _ in 0..1000 {
        reader.feed(&[b'x'; 1000]);
        assert_eq!(reader.next_request(&Limits::default()), Ok(None));
    }
    let State::Args {
        bulk: Bulk::Data { arg, .. },
        ..
    } = &reader.parser.state
    else {
        panic!("still reading the argument");
    };
    assert_eq!(arg.len(), 1_000_008);
    assert!(arg.capacity() <= 2 * arg.len());
    assert_eq!(reader.pending(), 1_000_008);
}

#[test]
fn a_declared_count_reserves_at_most_1024_arguments() {
    let mut reader = RequestReader::default();
    reader.feed(b"*2147483647\r\n$1\r\na\r\n");
    assert_eq!(reader.next_request(&Limits::default()), Ok(None));
    let State::Args { args, left, .. } = &reader.parser.state else {
        panic!("reading the arguments");
    };
    assert_eq!((args.len(), *left), (1, 2147483646));
    assert!(args.capacity() <= FIRST_ARGS);
    assert_eq!(reader.pending(), 0);
}

#[test]
fn parsed_bytes_leave_the_buffer() {
    let mut reader = RequestReader::default();
    reader.feed(b"*2\r\n$3\r\nGET\r\n$1\r\nk");
    assert_eq!(reader.next_request(&Limits::default()), Ok(None));
    // `GET` is in argv; `k` is the argument being read; its line end is still to come.
    assert_eq!(reader.pending(), 1);
    reader.feed(b"\r\n*1\r\n$4\r\nPI");
    assert_eq!(
        reader.next_request(&Limits::default()),
        Ok(Some(vec![b"GET".to_vec(), b"k".to_vec()]))
    );
    assert_eq!(reader.next_request(&Limits::default()), Ok(None));
    assert_eq!(reader.pending(), 2);
    reader.feed(b"NG\r\n");
    assert_eq!(
        reader.next_request(&Limits::default()),
        Ok(Some(vec![b"PING".to_vec()]))
    );
    assert_eq!(reader.buf.len(), 4);
    reader.feed(b"");
    assert_eq!((reader.buf.len(), reader.pending()), (0, 0));
}
