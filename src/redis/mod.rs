//! Simulated Redis: RESP2 / RESP3 codec, sans-IO server core with Lua scripting, async
//! client, and the glue that serves the core inside the simulation and on a real socket.
//!
//! Layout:
//! - `resp`: the reply value, its encoder for either protocol, the request and reply decoders,
//!   a request's arguments (`Args`)
//! - `num`, `cstr`: how Redis reads integers and C-string arguments
//! - `glob`: Redis's glob-style patterns (KEYS, SCAN, pattern subscriptions)
//! - `replies`: Redis's shared replies and error wording
//! - `clock`: `Now` and the clock expiry deadlines live on
//! - `value`: the five types a key can hold
//! - `keyspace`: one database's keys, values, deadlines (and how many databases there are)
//! - `watched`: WATCH's registry of watched keys and doomed transactions
//! - `conn`: one connection's state
//! - `role`: master or replica, which commands and the server both check
//! - `clients`: the registry of connections through which one command reaches another:
//!   subscriptions, blocked clients, the frames for other connections
//! - `cmd`: the commands, one file per family, each declaring its rows of the command table
//!   (name, arity, flags, keys, handler) beside its handlers
//! - `command`: the command table, every family's rows, and its lookup
//! - `script`: Lua scripting (EVAL, EVALSHA, SCRIPT) over real Lua 5.1
//! - `server`: the sans-IO server: checks, dispatch, propagation, replication, expiry cycle
//! - `client`: the async client over any stream, one request at a time
//! - `rs`: redis-rs connections to a simulated Redis host
//! - `events`: what a simulated Redis host records in the history
//! - `story`: a shared list, set or hash told element by element, read back from the history
//! - `host`: the host core over byte streams, whatever the clock and the socket: the
//!   server, its connections' writers, the append-only file and the replica
//! - `output_limit`: when `host` drops a subscriber that does not read
//! - `sim_host`: the host in the simulation (its clocks, history, crashes, failover, lost
//!   replies)
//! - `serve`: `locksim serve redis`, the core on a real socket and the real clock

pub mod client;
pub(crate) mod clients;
pub mod clock;
mod cmd;
#[doc(hidden)] // public for the conformance and fuzz tests (tests/), not an API
pub mod command;
pub(crate) mod conn;
pub(crate) mod cstr;
pub mod events;
pub(crate) mod glob;
pub(crate) mod host;
pub(crate) mod keyspace;
pub(crate) mod num;
pub(crate) mod output_limit;
pub(crate) mod replies;
#[doc(hidden)] // public for the conformance and fuzz tests (tests/), not an API
pub mod resp;
pub mod role;
pub mod rs;
pub(crate) mod script;
#[cfg(feature = "serve")]
pub mod serve;
#[doc(hidden)] // public for the fuzz tests (tests/fuzz), not an API
pub mod server;
pub(crate) mod sim_host;
pub(crate) mod story;
pub(crate) mod value;
pub(crate) mod watched;

/// Redis's port, where the simulated servers listen.
pub const PORT: u16 = 6379;
