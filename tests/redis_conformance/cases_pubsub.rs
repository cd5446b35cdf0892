//! Pub/sub across connections (messages, pattern messages, the receivers PUBLISH counts,
//! PUBSUB's introspection), the RESP2 subscribed mode (in RESP3 the same steps run every
//! command), RESET, and CLIENT LIST / INFO's replies but for their lines (which name
//! addresses, file descriptors and memory a simulation does not have). Each case's
//! channels are its own.

use super::case::{Step, cmd, pending};

pub fn subscribe_and_publish() -> Vec<Step> {
    vec![
        cmd(&["SUBSCRIBE", "ps:a", "ps:b"]).on(1),
        pending(1).on(1),
        cmd(&["PSUBSCRIBE", "ps:?", "nomatch*"]).on(2),
        pending(1).on(2),
        cmd(&["PUBLISH", "ps:a", "hello"]),
        pending(1).on(1),
        pending(1).on(2),
        cmd(&["PUBLISH", "ps:zz", "x"]),
        cmd(&["PUBLISH", "ps:z", "x"]),
        pending(1).on(2),
        cmd(&["PUBSUB", "NUMSUB", "ps:a", "ps:b", "ps:none"]),
        cmd(&["PUBSUB", "CHANNELS", "ps:a"]),
        cmd(&["PUBSUB", "CHANNELS", "ps:[a]*"]),
        cmd(&["PUBSUB", "NUMSUB"]),
        cmd(&["SUBSCRIBE", "ps:a"]).on(1),
        cmd(&["UNSUBSCRIBE", "ps:a", "ps:none"]).on(1),
        pending(1).on(1),
        cmd(&["PUBLISH", "ps:a", "again"]),
        pending(1).on(2),
        cmd(&["UNSUBSCRIBE"]).on(1),
        cmd(&["UNSUBSCRIBE"]).on(1),
        cmd(&["PUNSUBSCRIBE", "nomatch*"]).on(2),
        cmd(&["PUNSUBSCRIBE"]).on(2),
        cmd(&["PUNSUBSCRIBE"]).on(2),
        cmd(&["PUBLISH", "ps:a", "nobody"]),
        cmd(&["PING"]).on(1),
    ]
}

pub fn subscribed_mode() -> Vec<Step> {
    vec![
        cmd(&["SUBSCRIBE", "sm:ch"]),
        cmd(&["GET", "sm:k"]),
        cmd(&["SET", "sm:k", "v"]),
        cmd(&["PING"]),
        cmd(&["PING", "hi"]),
        cmd(&["ECHO", "x"]),
        cmd(&["PSUBSCRIBE", "sm:*"]),
        cmd(&["PUBLISH", "sm:other", "m"]).on(1),
        pending(1),
        cmd(&["PUNSUBSCRIBE", "sm:*"]),
        cmd(&["UNSUBSCRIBE", "sm:ch"]),
        cmd(&["GET", "sm:k"]),
        cmd(&["PING"]),
        cmd(&["SUBSCRIBE"]),
        cmd(&["PUBLISH", "sm:ch"]),
        cmd(&["PUBSUB"]),
        cmd(&["PUBSUB", "NUMPAT", "x"]),
        cmd(&["PUBSUB", "FOO"]),
    ]
}

/// Frames a queued command sends its own connection come inside EXEC's array, before that
/// command's reply (RESP2's array then holds more frames than its count says): the
/// confirmations of a SUBSCRIBE of two channels, and in RESP3 a message the connection
/// PUBLISHes to itself (RESP2's subscribed mode refuses the MULTI).
pub fn frames_inside_exec() -> Vec<Step> {
    vec![
        cmd(&["MULTI"]),
        cmd(&["SUBSCRIBE", "fx:a", "fx:b"]),
        cmd(&["PING"]),
        cmd(&["EXEC"]),
        pending(1),
        cmd(&["MULTI"]),
        cmd(&["PUBLISH", "fx:a", "to-myself"]),
        cmd(&["SUBSCRIBE", "fx:c"]),
        cmd(&["EXEC"]),
        pending(1),
        cmd(&["RESET"]),
    ]
}

pub fn reset() -> Vec<Step> {
    vec![
        cmd(&["CLIENT", "SETNAME", "rs"]),
        cmd(&["MULTI"]),
        cmd(&["SET", "rs:k", "1"]),
        cmd(&["RESET"]),
        cmd(&["EXEC"]),
        cmd(&["GET", "rs:k"]),
        cmd(&["CLIENT", "GETNAME"]),
        cmd(&["WATCH", "rs:k"]),
        cmd(&["RESET"]),
        cmd(&["SET", "rs:k", "2"]).on(1),
        cmd(&["MULTI"]),
        cmd(&["GET", "rs:k"]),
        cmd(&["EXEC"]),
        cmd(&["SUBSCRIBE", "rs:ch"]),
        cmd(&["RESET"]),
        cmd(&["PUBLISH", "rs:ch", "m"]).on(1),
        cmd(&["GET", "rs:k"]),
        cmd(&["RESET", "now"]),
        cmd(&["reset"]),
    ]
}

pub fn client_list_and_info() -> Vec<Step> {
    vec![
        cmd(&["CLIENT", "INFO"]).kind_only(),
        cmd(&["CLIENT", "LIST"]).kind_only(),
        cmd(&["CLIENT", "LIST", "ID", "1000000"]),
        cmd(&["CLIENT", "LIST", "ID", "x"]),
        cmd(&["CLIENT", "LIST", "TYPE", "foo"]),
        cmd(&["CLIENT", "LIST", "TYPE", "master"]),
        cmd(&["CLIENT", "LIST", "x"]),
        cmd(&["CLIENT", "INFO", "x"]),
    ]
}
