//! The rows of the commands the server runs itself rather than through a handler here: the
//! transaction commands act on the connection's queue and on other commands, the scripting
//! commands lend the whole server to a script, and RESET clears the transaction too.

use super::table::{
    ALL, CommandSpec, FAST, Keys, NOSCRIPT, Proc, STALE, Scripting, Transaction, by,
};

/// MULTI, EXEC, DISCARD, WATCH, UNWATCH; EVAL, EVALSHA, SCRIPT; RESET.
pub(super) static COMMANDS: &[CommandSpec] = &[
    by(
        "eval",
        -3,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Scripting(Scripting::Eval),
    ),
    by(
        "evalsha",
        -3,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Scripting(Scripting::EvalSha),
    ),
    by(
        "script",
        -2,
        NOSCRIPT,
        Keys::None,
        Proc::Scripting(Scripting::Script),
    ),
    by(
        "multi",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Transaction(Transaction::Multi),
    ),
    by(
        "exec",
        1,
        NOSCRIPT.and(STALE),
        Keys::None,
        Proc::Transaction(Transaction::Exec),
    ),
    by(
        "discard",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Transaction(Transaction::Discard),
    ),
    by(
        "watch",
        -2,
        NOSCRIPT.and(STALE).and(FAST),
        ALL,
        Proc::Transaction(Transaction::Watch),
    ),
    by(
        "unwatch",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Transaction(Transaction::Unwatch),
    ),
    by(
        "reset",
        1,
        NOSCRIPT.and(STALE).and(FAST),
        Keys::None,
        Proc::Reset,
    ),
];
