//! Stateright models of locksim's lock recipes. Each model calls the recipe's own pure
//! decision core from the `locksim` library, so a bug in a recipe's decision is a bug in its
//! model, and the flawed variants are switches of that core.
//!
//! - `settings.rs`: `--set key=value` pairs and their errors
//! - `symmetry.rs`: renaming clients, for symmetry reduction
//! - `check.rs`: the exhaustive check (breadth first, or depth first with symmetry
//!   reduction), the path to each discovery, the report
//! - `progress.rs`: the progress line of a running check on a terminal's stderr
//! - `explorer.rs`: a model served in stateright's Explorer (`serve-explorer`)
//! - `export.rs`: a counterexample as a locksim trace, kept only if the simulator reproduces it
//! - `redis_lock.rs`: one Redis node, N clients, release by compare-and-delete or DEL
//! - `redlock.rs`: M Redis instances, clients judged by Redlock's quorum and validity, with
//!   pauses, wall-clock jumps, crashes and restarts
//! - `zk_lock/`: one ZooKeeper server, N clients, the lock recipe and its flawed variants

pub mod check;
pub mod explorer;
pub mod export;
pub mod progress;
pub mod redis_lock;
pub mod redlock;
pub mod settings;
pub mod symmetry;
pub mod zk_lock;

use check::CheckReport;
use export::{ExportError, Exported};
use settings::{ParamError, Settings};
use std::net::SocketAddr;

/// Checks a model as `--set` configures it, with a progress line on stderr if asked and
/// stderr is a terminal.
pub type CheckFn = fn(&Settings, bool) -> Result<CheckReport, ParamError>;

/// Exports a model's counterexample as `--set` configures it.
pub type ExportFn = fn(&Settings) -> Result<Exported, ExportError>;

/// A model the CLI can check: its name, what it is, its parameters and how to check it.
pub struct Entry {
    pub name: &'static str,
    pub about: &'static str,
    /// (name, meaning) of each `--set` parameter.
    pub params: &'static [(&'static str, &'static str)],
    /// (flavor, why) of each flavor the simulation has for this recipe that the model
    /// cannot express.
    pub unexpressed: &'static [(&'static str, &'static str)],
    /// Checks the model breadth first.
    pub check: CheckFn,
    /// Checks the model depth first with symmetry reduction over its clients (`check
    /// --symmetry`), if its clients are interchangeable and every property is blind to
    /// which client is which.
    pub check_symmetric: Option<CheckFn>,
    /// Its first counterexample as a locksim trace (`check --trace`), if it maps to one.
    pub export: Option<ExportFn>,
    /// Serves the model as `--set` configures it in stateright's Explorer; returns only if
    /// the parameters are refused.
    pub serve_explorer: fn(&Settings, SocketAddr) -> Result<(), ParamError>,
}

/// Every model, by name. A new model adds its line here.
pub const MODELS: &[Entry] = &[
    Entry {
        name: "redis-lock",
        about: "one Redis node, N clients: release by compare-and-delete or by plain DEL",
        params: redis_lock::PARAMS,
        unexpressed: &[],
        check: |settings, progress| {
            let model = redis_lock::RedisLockModel::from_settings(settings)?;
            Ok(check::check(
                "redis-lock",
                model.describe(),
                model,
                progress,
            ))
        },
        check_symmetric: Some(|settings, progress| {
            let model = redis_lock::RedisLockModel::from_settings(settings)?;
            Ok(check::check_symmetric(
                "redis-lock",
                model.describe(),
                model,
                progress,
            ))
        }),
        export: None,
        serve_explorer: |settings, addr| {
            explorer::serve(
                "redis-lock",
                redis_lock::RedisLockModel::from_settings(settings)?,
                addr,
            );
            Ok(())
        },
    },
    Entry {
        name: "redlock",
        about: "M Redis instances, clients judged by Redlock's quorum and validity; pauses, clock jumps, crashes",
        params: redlock::PARAMS,
        unexpressed: redlock::UNEXPRESSED,
        check: |settings, progress| {
            let model = redlock::RedlockModel::from_settings(settings)?;
            Ok(check::check("redlock", model.describe(), model, progress))
        },
        check_symmetric: Some(|settings, progress| {
            let model = redlock::RedlockModel::from_settings(settings)?;
            Ok(check::check_symmetric(
                "redlock",
                model.describe(),
                model,
                progress,
            ))
        }),
        export: Some(|settings| export::export(&redlock::RedlockModel::from_settings(settings)?)),
        serve_explorer: |settings, addr| {
            explorer::serve(
                "redlock",
                redlock::RedlockModel::from_settings(settings)?,
                addr,
            );
            Ok(())
        },
    },
    Entry {
        name: "zk-lock",
        about: "one ZooKeeper server, N clients: the lock recipe and its flawed variants; lost replies and deletes, disconnects, expiry, the counter's wrap",
        params: zk_lock::PARAMS,
        unexpressed: zk_lock::UNEXPRESSED,
        check: |settings, progress| {
            let model = zk_lock::ZkLockModel::from_settings(settings)?;
            Ok(check::check("zk-lock", model.describe(), model, progress))
        },
        check_symmetric: Some(|settings, progress| {
            let model = zk_lock::ZkLockModel::from_settings(settings)?;
            model.symmetric()?;
            Ok(check::check_symmetric(
                "zk-lock",
                model.describe(),
                model,
                progress,
            ))
        }),
        export: Some(|settings| export::export(&zk_lock::ZkLockModel::from_settings(settings)?)),
        serve_explorer: |settings, addr| {
            explorer::serve(
                "zk-lock",
                zk_lock::ZkLockModel::from_settings(settings)?,
                addr,
            );
            Ok(())
        },
    },
];

/// The model called `name`.
pub fn model(name: &str) -> Option<&'static Entry> {
    MODELS.iter().find(|m| m.name == name)
}
