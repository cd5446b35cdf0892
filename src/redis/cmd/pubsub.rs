//! SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB and the pub/sub form of
//! PING (Redis 7.0.15's pubsub.c). A (un)subscription's confirmations are pushes (arrays
//! in RESP2), one per channel: all but the last go to the outbox for the caller, which the
//! server writes ahead of the reply. Messages go to the outbox for their subscribers.

use super::table::{CommandSpec, FAST, NOSCRIPT, STALE, container, spec};
use super::{Ctx, arg};
use crate::redis::clients::subscriptions::Kind;
use crate::redis::resp::{Frame, Protocol};

/// The pub/sub commands.
pub(super) static COMMANDS: &[CommandSpec] = &[
    spec("subscribe", -2, NOSCRIPT.and(STALE), |ctx, args| {
        subscribe(ctx, args, Kind::Channel)
    }),
    spec("unsubscribe", -1, NOSCRIPT.and(STALE), |ctx, args| {
        unsubscribe(ctx, args, Kind::Channel)
    }),
    spec("psubscribe", -2, NOSCRIPT.and(STALE), |ctx, args| {
        subscribe(ctx, args, Kind::Pattern)
    }),
    spec("punsubscribe", -1, NOSCRIPT.and(STALE), |ctx, args| {
        unsubscribe(ctx, args, Kind::Pattern)
    }),
    spec("publish", 3, STALE.and(FAST), publish),
    container(
        "pubsub",
        -2,
        &[
            spec("pubsub|channels", -2, STALE, |ctx, args| {
                channels(ctx, args)
            }),
            spec("pubsub|numsub", -2, STALE, |ctx, args| numsub(ctx, args)),
            spec("pubsub|numpat", 2, STALE, |ctx, _| numpat(ctx)),
        ],
    ),
];

fn bulk(b: &[u8]) -> Frame {
    Frame::Bulk(b.to_vec())
}

/// The confirmation `addReplyPubsub(Un)Subscribed` writes: `[kind, name, count]`.
fn confirmation(what: &[u8], name: Option<&[u8]>, count: usize) -> Frame {
    Frame::Push(vec![
        bulk(what),
        name.map_or(Frame::Null, bulk),
        Frame::Integer(i64::try_from(count).unwrap_or(i64::MAX)),
    ])
}

/// Several replies for the caller: all but the last through the outbox, which the server
/// writes ahead of the command's own reply, the last as the reply.
fn replies_in_order(ctx: &mut Ctx<'_>, mut frames: Vec<Frame>) -> Frame {
    let last = frames.pop().unwrap_or(Frame::Null);
    for frame in frames {
        ctx.clients.send(ctx.conn.id, frame);
    }
    last
}

/// SUBSCRIBE channel... / PSUBSCRIBE pattern...
fn subscribe(ctx: &mut Ctx<'_>, args: &[Vec<u8>], kind: Kind) -> Frame {
    let what: &[u8] = match kind {
        Kind::Channel => b"subscribe",
        Kind::Pattern => b"psubscribe",
    };
    let id = ctx.conn.id;
    let frames = args
        .iter()
        .skip(1)
        .map(|name| {
            ctx.clients.subs.subscribe(kind, id, name);
            confirmation(what, Some(name), ctx.clients.subs.count(id))
        })
        .collect();
    replies_in_order(ctx, frames)
}

/// UNSUBSCRIBE [channel...] / PUNSUBSCRIBE [pattern...]: without names, from everything
/// it listens to; listening to nothing, one confirmation with a null name.
fn unsubscribe(ctx: &mut Ctx<'_>, args: &[Vec<u8>], kind: Kind) -> Frame {
    let what: &[u8] = match kind {
        Kind::Channel => b"unsubscribe",
        Kind::Pattern => b"punsubscribe",
    };
    let id = ctx.conn.id;
    let names = match args.get(1..) {
        Some(names) if !names.is_empty() => names.to_vec(),
        _ => ctx.clients.subs.of(kind, id),
    };
    if names.is_empty() {
        return confirmation(what, None, ctx.clients.subs.count(id));
    }
    let frames = names
        .iter()
        .map(|name| {
            ctx.clients.subs.unsubscribe(kind, id, name);
            confirmation(what, Some(name), ctx.clients.subs.count(id))
        })
        .collect();
    replies_in_order(ctx, frames)
}

/// PUBLISH channel message: how many clients received it (pattern matches counted).
/// Redis also sends it to replicas, whose own subscribers would receive it; a simulated
/// replica has no clients, so nothing is propagated.
fn publish(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let messages = ctx.clients.subs.publish(arg(args, 1), arg(args, 2));
    let receivers = messages.len();
    for (client, frame) in messages {
        ctx.clients.send(client, frame);
    }
    Frame::Integer(i64::try_from(receivers).unwrap_or(i64::MAX))
}

/// PUBSUB CHANNELS [pattern].
fn channels(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let pattern = args.get(2).map(Vec::as_slice);
    let names = ctx.clients.subs.channels(pattern);
    Frame::Array(names.into_iter().map(Frame::Bulk).collect())
}

/// PUBSUB NUMSUB [channel...]: each channel and its subscribers, flat.
fn numsub(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut items = Vec::new();
    for channel in args.iter().skip(2) {
        let n = ctx.clients.subs.numsub(channel);
        items.push(bulk(channel));
        items.push(Frame::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
    }
    Frame::Array(items)
}

/// PUBSUB NUMPAT.
fn numpat(ctx: &Ctx<'_>) -> Frame {
    Frame::Integer(i64::try_from(ctx.clients.subs.numpat()).unwrap_or(i64::MAX))
}

/// PING from a RESP2 client in pub/sub mode: `["pong", message or ""]`, as a push would be;
/// `None` for everyone else.
pub(super) fn subscribed_ping(ctx: &Ctx<'_>, args: &[Vec<u8>]) -> Option<Frame> {
    let subscribed = ctx.conn.proto == Protocol::Resp2 && ctx.clients.subscribed(ctx.conn.id);
    match args {
        [_] if subscribed => Some(Frame::Array(vec![bulk(b"pong"), bulk(b"")])),
        [_, message] if subscribed => Some(Frame::Array(vec![bulk(b"pong"), bulk(message)])),
        _ => None,
    }
}
