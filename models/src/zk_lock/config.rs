//! The zk-lock model's switches and bounds, as `--set` spells them, and the flavors it
//! expresses and cannot express.

use crate::settings::{ParamError, Renamed, Settings};
use locksim::recipes::zk::lock::decide::Flavor;

/// The model's switches and bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZkLockModel {
    /// The recipe or one of its flawed variants (`Simple` is not modelled: see
    /// `UNEXPRESSED`).
    pub flavor: Flavor,
    pub clients: u8,
    /// Whether the resource refuses a token lower than the highest it has seen.
    pub fencing: bool,
    /// Create replies lost in a run, all clients together.
    pub lost_replies: u8,
    /// Sessions expired under a paused client in a run, all clients together.
    pub expiries: u8,
    /// Deletes lost to ConnectionLoss before the server applied them, all clients together.
    pub lost_deletes: u8,
    /// Connections of waiting clients that drop and come back within the session timeout,
    /// all clients together.
    pub disconnects: u8,
    /// Where the directory's sequence counter starts, as `locksim`'s `seq_start`: near
    /// 2147483647 it wraps to negative numbers within a run (Z6).
    pub seq_start: u32,
    /// Lookups after a lost create reply served by a follower that has not applied that
    /// create yet, all clients together: only a lookup without `sync` first can be (Z15).
    pub stale_reads: u8,
}

impl Default for ZkLockModel {
    fn default() -> Self {
        ZkLockModel {
            flavor: Flavor::Recipe,
            clients: 2,
            fencing: true,
            lost_replies: 1,
            expiries: 1,
            lost_deletes: 1,
            disconnects: 1,
            seq_start: 0,
            stale_reads: 0,
        }
    }
}

/// The parameters `--set` accepts, with what each means.
pub const PARAMS: &[(&str, &str)] = &[
    (
        "flavor",
        "recipe (GUID, predecessor watch, sync before a lookup), herd, noguid, name-sort, int-sort (its flaw needs seq_start=2147483647), release-forgets, session-event, vanished (its flaw needs clients=3), stale-session or no-sync (its flaw needs stale_reads=1), as the scenarios zk-lock and zk-lock-<flavor>",
    ),
    ("clients", "number of clients, 1 to 4"),
    (
        "fencing",
        "true (the resource refuses stale tokens) or false",
    ),
    ("lost_replies", "create replies lost in a run, 0 to 2"),
    ("expiries", "sessions expired under a paused client, 0 to 2"),
    (
        "lost_deletes",
        "deletes lost to ConnectionLoss before the server applied them, 0 to 2",
    ),
    (
        "disconnects",
        "connections of waiters that drop and come back within the session, 0 to 2",
    ),
    (
        "seq_start",
        "where the sequence counter starts, 0 to 2147483647 (past 2147483647 it wraps to -2147483648)",
    ),
    (
        "stale_reads",
        "lookups after a lost create reply served by a follower that has not applied the create, 0 to 2 (a lookup after sync never is)",
    ),
];

/// The flavors the model expresses, named as the simulation's scenarios end.
const FLAVORS: &[(&str, Flavor)] = &[
    ("recipe", Flavor::Recipe),
    ("herd", Flavor::Herd),
    ("noguid", Flavor::NoGuid),
    ("name-sort", Flavor::NameSort),
    ("int-sort", Flavor::IntSort),
    ("release-forgets", Flavor::ReleaseForgets),
    ("session-event", Flavor::SessionEvent),
    ("vanished", Flavor::Vanished),
    ("stale-session", Flavor::StaleSession),
    ("no-sync", Flavor::NoSync),
];

/// The simulation's flavors the model cannot express, and why.
pub const UNEXPRESSED: &[(&str, &str)] = &[(
    "simple",
    "one fixed node raced for by create and exists (simple_next): no line of sequential nodes, which is what the model is made of",
)];

const FENCING: &[(&str, bool)] = &[("true", true), ("false", false)];

/// The spellings this model had before it spelled its parameters as `locksim` does.
pub const RENAMED: &[Renamed] = &[
    Renamed {
        old: "lost-replies",
        new: "lost_replies",
        note: "snake_case",
    },
    Renamed {
        old: "fencing=on",
        new: "fencing=true",
        note: "true or false",
    },
    Renamed {
        old: "fencing=off",
        new: "fencing=false",
        note: "true or false",
    },
];

impl ZkLockModel {
    /// The model as `--set` configures it, the rest as `default` has it.
    pub fn from_settings(settings: &Settings) -> Result<Self, ParamError> {
        settings.only(PARAMS, RENAMED)?;
        let d = ZkLockModel::default();
        Ok(ZkLockModel {
            flavor: settings.choice("flavor", FLAVORS, d.flavor)?,
            clients: settings.number("clients", 1..=4, d.clients)?,
            fencing: settings.choice("fencing", FENCING, d.fencing)?,
            lost_replies: settings.number("lost_replies", 0..=2, d.lost_replies)?,
            expiries: settings.number("expiries", 0..=2, d.expiries)?,
            lost_deletes: settings.number("lost_deletes", 0..=2, d.lost_deletes)?,
            disconnects: settings.number("disconnects", 0..=2, d.disconnects)?,
            seq_start: settings.number("seq_start", 0..=2_147_483_647, d.seq_start)?,
            stale_reads: settings.number("stale_reads", 0..=2, d.stale_reads)?,
        })
    }

    /// The parameters as the report prints them: as `--set` takes them.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            ("flavor", flavor_name(self.flavor).into()),
            ("clients", self.clients.to_string()),
            ("fencing", self.fencing.to_string()),
            ("lost_replies", self.lost_replies.to_string()),
            ("expiries", self.expiries.to_string()),
            ("lost_deletes", self.lost_deletes.to_string()),
            ("disconnects", self.disconnects.to_string()),
            ("seq_start", self.seq_start.to_string()),
            ("stale_reads", self.stale_reads.to_string()),
        ]
    }

    /// Ok if the model's steps and properties are blind to which client is which, so a
    /// search may reduce by symmetry: not when names are sorted whole, where a client's
    /// GUID decides its place in line.
    pub fn symmetric(&self) -> Result<(), ParamError> {
        match self.flavor {
            Flavor::NameSort => Err(ParamError::Asymmetric {
                given: "flavor=name-sort".into(),
                why: "a client's GUID decides its place in a line sorted by name",
            }),
            _ => Ok(()),
        }
    }
}

fn flavor_name(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Herd => "herd",
        Flavor::NoGuid => "noguid",
        Flavor::Simple => "simple",
        Flavor::Recipe => "recipe",
        Flavor::NameSort => "name-sort",
        Flavor::ReleaseForgets => "release-forgets",
        Flavor::SessionEvent => "session-event",
        Flavor::IntSort => "int-sort",
        Flavor::Vanished => "vanished",
        Flavor::StaleSession => "stale-session",
        Flavor::NoSync => "no-sync",
    }
}
