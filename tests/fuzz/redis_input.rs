//! The Redis codec and server core under arbitrary input: bytes for the request and reply
//! decoders, and arbitrary commands (from a vocabulary of the real ones, their options, keys,
//! edge numbers and random bytes) at arbitrary clock readings for the server. Never a panic;
//! every reply is well-formed RESP that decodes back to itself; decode(encode(frame)) is the
//! frame; a replica fed a master's propagation holds the master's keys.

use super::runner;
use locksim::redis::clock::{ExpiryClock, Now};
use locksim::redis::command::{self, Lookup};
use locksim::redis::resp::Args;
use locksim::redis::resp::{
    Decoded, Frame, Limits, Protocol, ReplyLimits, decode_reply, decode_request, encode,
};
use locksim::redis::role::Role;
use locksim::redis::server::{Config, Server};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Bytes that look like RESP often enough to get past the first check.
fn resp_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"*".to_vec()),
        Just(b"$".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"0".to_vec()),
        Just(b"3".to_vec()),
        Just(b"2147483648".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"'".to_vec()),
        Just(b"\\x4".to_vec()),
        Just(b" ".to_vec()),
        Just(b"\0".to_vec()),
        Just(b"+OK".to_vec()),
        Just(b":".to_vec()),
        Just(b"GET".to_vec()),
        vec(any::<u8>(), 0..6),
    ];
    vec(token, 0..40).prop_map(|tokens| tokens.concat())
}

/// Small limits as often as Redis's own, so that every limit is met.
fn limits() -> impl Strategy<Value = Limits> {
    prop_oneof![
        Just(Limits::default()),
        (0usize..8, 0usize..24, 0usize..4).prop_map(|(bulk, inline, count)| Limits {
            max_bulk_len: bulk,
            max_inline_len: inline,
            max_multibulk_len: count,
        }),
    ]
}

#[test]
fn request_decoder_never_panics_and_a_prefix_never_decodes_otherwise() {
    let result = runner(1000).run(&(resp_bytes(), limits()), |(buf, limits)| {
        let mut rest = buf.as_slice();
        while let Ok(Decoded::Request { consumed, .. }) = decode_request(rest, &limits) {
            prop_assert!(consumed > 0 && consumed <= rest.len());
            for cut in 0..consumed {
                let prefix = decode_request(&rest[..cut], &limits);
                prop_assert!(
                    !matches!(prefix, Ok(Decoded::Request { .. })),
                    "a prefix of {cut} bytes decoded: {prefix:?}"
                );
            }
            rest = &rest[consumed..];
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn multibulk_requests_decode_to_their_arguments() {
    let result = runner(500).run(&vec(vec(any::<u8>(), 0..20), 1..8), |args| {
        let mut buf = format!("*{}\r\n", args.len()).into_bytes();
        for arg in &args {
            buf.extend(format!("${}\r\n", arg.len()).into_bytes());
            buf.extend(arg);
            buf.extend(b"\r\n");
        }
        let decoded = decode_request(&buf, &Limits::default());
        prop_assert_eq!(
            decoded,
            Ok(Decoded::Request {
                args,
                consumed: buf.len()
            })
        );
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Any string without CR LF in it, which is all a simple string or error can carry.
fn line() -> impl Strategy<Value = Vec<u8>> {
    vec(
        prop_oneof![Just(b'\r'), Just(b'\n'), Just(0u8), any::<u8>()],
        0..12,
    )
    .prop_filter("no CRLF", |s| !s.windows(2).any(|w| w == b"\r\n"))
}

fn frame() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        line().prop_map(Frame::Simple),
        line().prop_map(Frame::Error),
        any::<i64>().prop_map(Frame::Integer),
        vec(any::<u8>(), 0..24).prop_map(Frame::Bulk),
        Just(Frame::Null),
        Just(Frame::NullArray),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| vec(inner, 0..8).prop_map(Frame::Array))
}

/// Any value, RESP3's types too.
fn frame3() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        line().prop_map(Frame::Simple),
        line().prop_map(Frame::Error),
        any::<i64>().prop_map(Frame::Integer),
        vec(any::<u8>(), 0..24).prop_map(Frame::Bulk),
        Just(Frame::Null),
        Just(Frame::NullArray),
        line().prop_map(Frame::Double),
        line().prop_map(Frame::BigNumber),
        any::<bool>().prop_map(Frame::Boolean),
        (any::<[u8; 3]>(), vec(any::<u8>(), 0..24))
            .prop_map(|(format, text)| Frame::Verbatim { format, text }),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Frame::Array),
            vec(inner.clone(), 0..8).prop_map(Frame::Set),
            vec(inner.clone(), 0..8).prop_map(Frame::Push),
            vec((inner.clone(), inner), 0..4).prop_map(Frame::Map),
        ]
    })
}

/// What a RESP3 reader makes of a value: both nulls are `_`.
fn one_null(frame: Frame) -> Frame {
    let all = |items: Vec<Frame>| items.into_iter().map(one_null).collect();
    match frame {
        Frame::NullArray => Frame::Null,
        Frame::Array(items) => Frame::Array(all(items)),
        Frame::Set(items) => Frame::Set(all(items)),
        Frame::Push(items) => Frame::Push(all(items)),
        Frame::Map(pairs) => Frame::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (one_null(k), one_null(v)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
fn every_value_survives_either_protocol_and_its_prefixes_wait() {
    let result = runner(1000).run(&frame3(), |frame| {
        let limits = ReplyLimits::default();
        for (proto, read) in [
            (Protocol::Resp2, frame.clone().into_resp2()),
            (Protocol::Resp3, one_null(frame.clone())),
        ] {
            let mut bytes = Vec::new();
            encode(&frame, proto, &mut bytes);
            prop_assert_eq!(decode_reply(&bytes, &limits), Ok(Some((read, bytes.len()))));
            for cut in 0..bytes.len() {
                prop_assert_eq!(decode_reply(&bytes[..cut], &limits), Ok(None));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn frames_survive_encode_then_decode_and_their_prefixes_wait() {
    let result = runner(1000).run(&frame(), |frame| {
        let mut bytes = Vec::new();
        encode(&frame, Protocol::Resp2, &mut bytes);
        let limits = ReplyLimits::default();
        prop_assert_eq!(
            decode_reply(&bytes, &limits),
            Ok(Some((frame.clone(), bytes.len())))
        );
        for cut in 0..bytes.len() {
            prop_assert_eq!(decode_reply(&bytes[..cut], &limits), Ok(None));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn reply_decoder_never_panics_on_any_bytes() {
    let tight = (0usize..4, 0usize..16, 0usize..8).prop_map(|(depth, bulk, frames)| ReplyLimits {
        max_depth: depth,
        max_bulk_len: bulk,
        max_frames: frames,
    });
    let limits = prop_oneof![Just(ReplyLimits::default()), tight];
    let result = runner(1000).run(&(resp_bytes(), limits), |(buf, limits)| {
        let mut rest = buf.as_slice();
        while let Ok(Some((_, consumed))) = decode_reply(rest, &limits) {
            prop_assert!(consumed > 0 && consumed <= rest.len());
            rest = &rest[consumed..];
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Command names, options, keys and edge numbers, as the fuzzer mixes them.
const WORDS: &str = "SET get DEL EXISTS EXPIRE PEXPIRE expireat PEXPIREAT TTL PTTL PING ECHO \
    SELECT QUIT INFO CLIENT COMMAND host: POST MULTI EXEC NX xx GET KEEPTTL EX px EXAT PXAT GT \
    LT SETNAME GETNAME ID COUNT DOCS default server a b c -1 0 1 100 1000 -9223372036854775808 \
    9223372036854775807 9223372036854775 99999999999999 1795432000000";

/// The command names requests start with (and two that are none).
const NAMES: &str = "SET GET DEL EXISTS EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL PING ECHO \
    SELECT QUIT INFO CLIENT COMMAND post nope";

fn one_of(words: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let words: Vec<&'static str> = words.split_whitespace().collect();
    proptest::sample::select(words).prop_map(|w| w.as_bytes().to_vec())
}

/// One argument: a word, one that needs quoting, or random bytes.
fn arg() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => one_of(WORDS),
        1 => proptest::sample::select(&["", "a\r\nb", "x\0y"][..]).prop_map(|w| w.as_bytes().to_vec()),
        2 => vec(any::<u8>(), 0..6),
    ]
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    one_of("a b c")
}

/// A time argument: a few ms or s, a deadline near the clocks' start, or an edge.
fn number() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (-5i64..3000).prop_map(|n| n.to_string().into_bytes()),
        (-5_000i64..5_000).prop_map(|n| (WALL0 + n).to_string().into_bytes()),
        (-5i64..5).prop_map(|n| (WALL0 / 1000 + n).to_string().into_bytes()),
        arg(),
    ]
}

/// Mostly well-formed commands with their options, sometimes anything.
fn request() -> impl Strategy<Value = Args> {
    let set_option = prop_oneof![
        proptest::sample::select(&["NX", "XX", "GET", "KEEPTTL"][..])
            .prop_map(|o| vec![o.as_bytes().to_vec()]),
        (
            proptest::sample::select(&["EX", "PX", "EXAT", "PXAT"][..]),
            number()
        )
            .prop_map(|(o, n)| vec![o.as_bytes().to_vec(), n]),
    ];
    let set = (key(), vec(any::<u8>(), 0..3), vec(set_option, 0..3)).prop_map(|(k, v, opts)| {
        let mut args = vec![b"SET".to_vec(), k, v];
        args.extend(opts.concat());
        args
    });
    let expire_name = proptest::sample::select(&["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"][..]);
    let condition = proptest::sample::select(&["NX", "XX", "GT", "LT"][..]);
    let expire = (expire_name, key(), number(), vec(condition, 0..2)).prop_map(|(n, k, t, c)| {
        let mut args = vec![n.as_bytes().to_vec(), k, t];
        args.extend(c.iter().map(|c| c.as_bytes().to_vec()));
        args
    });
    let read_name = proptest::sample::select(&["GET", "EXISTS", "TTL", "PTTL", "DEL"][..]);
    let read = (read_name, key()).prop_map(|(n, k)| vec![n.as_bytes().to_vec(), k]);
    let anything = (one_of(NAMES), vec(arg(), 0..6)).prop_map(|(name, rest)| {
        let mut args = vec![name];
        args.extend(rest);
        args
    });
    prop_oneof![3 => set, 2 => expire, 3 => read, 2 => anything]
}

const WALL0: i64 = 1_795_432_000_000;

/// Clock readings for a run: both clocks advance by small steps; now and then the wall
/// clock jumps, either way, and sometimes a reading is anywhere at all.
fn timeline(len: usize) -> impl Strategy<Value = Vec<Now>> {
    let step = prop_oneof![
        8 => (0u64..400).prop_map(|ms| (ms, 0i64, false)),
        1 => (0u64..400, -120_000i64..120_000).prop_map(|(ms, jump)| (ms, jump, false)),
        1 => Just((0, 0, true)),
    ];
    (vec(step, len), any::<(i64, u64)>()).prop_map(|(steps, (wild_wall, wild_mono))| {
        let (mut wall, mut mono) = (WALL0, 0u64);
        steps
            .into_iter()
            .map(|(ms, jump, wild)| {
                mono += ms;
                wall += ms as i64 + jump;
                if wild {
                    Now {
                        wall_ms: wild_wall,
                        mono_ms: wild_mono,
                    }
                } else {
                    Now {
                        wall_ms: wall,
                        mono_ms: mono,
                    }
                }
            })
            .collect()
    })
}

/// Clock readings on their own: mostly near today, sometimes anywhere.
fn now() -> impl Strategy<Value = Now> {
    prop_oneof![
        4 => (-100_000i64..100_000, 0u64..100_000).prop_map(|(wall, mono)| Now {
            wall_ms: WALL0 + wall,
            mono_ms: mono,
        }),
        1 => (any::<i64>(), any::<u64>()).prop_map(|(wall_ms, mono_ms)| Now { wall_ms, mono_ms }),
    ]
}

fn config() -> impl Strategy<Value = Config> {
    let clock = prop_oneof![Just(ExpiryClock::Wall), Just(ExpiryClock::Monotonic)];
    clock.prop_map(|expiry_clock| Config {
        expiry_clock,
        ..Config::default()
    })
}

/// The reply encodes, in RESP2, to bytes that decode back to its RESP2 form.
fn well_formed(reply: &Frame) -> Result<(), TestCaseError> {
    let mut bytes = Vec::new();
    encode(reply, Protocol::Resp2, &mut bytes);
    let back = decode_reply(&bytes, &ReplyLimits::default());
    prop_assert_eq!(back, Ok(Some((reply.clone().into_resp2(), bytes.len()))));
    Ok(())
}

#[test]
fn a_replica_fed_the_masters_propagation_holds_the_masters_keys() {
    let steps =
        (1usize..60).prop_flat_map(|n| (timeline(n), vec(request(), n), vec(any::<bool>(), n)));
    let result = runner(500).run(&(config(), steps), |(config, (times, requests, cycles))| {
        let mut master = Server::new(config);
        let mut replica = Server::new(Config {
            role: Role::Replica,
            ..config
        });
        let mut client = master.connect();
        let mut reader = replica.connect();
        let mut link = replica.connect();
        for ((now, args), cycle) in times.into_iter().zip(requests).zip(cycles) {
            let outcome = master.handle(&mut client, &args, now);
            if let Some(reply) = &outcome.reply {
                well_formed(reply)?;
            }
            for op in &outcome.propagate {
                prop_assert!(!op.is_empty());
                replica.replicate(&mut link, op, now);
            }
            if cycle {
                for op in master.active_expire(now) {
                    replica.replicate(&mut link, &op, now);
                }
            }
            prop_assert_eq!(master.dump(now), replica.dump(now));
            // A replica's clients change nothing, whatever they send.
            let before = replica.dump(now);
            let read = replica.handle(&mut reader, &args, now);
            prop_assert!(read.propagate.is_empty());
            if let Some(reply) = &read.reply {
                well_formed(reply)?;
            }
            prop_assert!(replica.active_expire(now).is_empty());
            prop_assert_eq!(replica.dump(now), before);
            if outcome.close.is_some() {
                client = master.connect();
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn the_scripting_seam_takes_any_command_the_table_finds() {
    let steps = vec((now(), request()), 1..30);
    let result = runner(300).run(&(config(), steps), |(config, steps)| {
        let mut server = Server::new(config);
        let mut ops = Vec::new();
        for (now, args) in steps {
            if let Lookup::Found(spec) = command::lookup(&args)
                && spec.arity_ok(args.len())
            {
                well_formed(&server.call(spec, &args, now, &mut ops))?;
            }
        }
        prop_assert!(ops.iter().all(|op| !op.is_empty()));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn the_server_reads_any_bytes_in_any_slices() {
    let reads = vec((resp_bytes(), now()), 1..8);
    let result = runner(500).run(&(limits(), reads), |(limits, reads)| {
        let mut server = Server::new(Config {
            limits,
            max_query_buffer: 64,
            ..Config::default()
        });
        let mut conn = server.connect();
        let mut closed = false;
        for (bytes, now) in reads {
            let out = server.handle_input(&mut conn, &bytes, now);
            prop_assert!(!closed || (out.bytes.is_empty() && out.close));
            closed = out.close;
            // The output is a sequence of whole replies.
            let mut rest = out.bytes.as_slice();
            while !rest.is_empty() {
                match decode_reply(rest, &ReplyLimits::default()) {
                    Ok(Some((_, consumed))) => rest = &rest[consumed..],
                    other => return Err(TestCaseError::fail(format!("{other:?}"))),
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
