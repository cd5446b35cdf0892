//! The host a run's `redis.call`, `redis.pcall` and `redis.acl_check_cmd` reach, lent to the
//! Lua state for that run only.
//!
//! Those three functions are made once per state, not once per run: a scope of per-run
//! functions cost about a twentieth of a Redlock run (three closures made, then invalidated and
//! collected, for every script). A made-once function must be `'static`, and the host is
//! borrowed for the run, so the borrow is kept here with its lifetime erased, and handed out
//! only while the run that lent it is under way.

use std::cell::Cell;
use std::ptr::NonNull;

use super::ScriptHost;

/// The host of the run under way, if one is.
#[derive(Default)]
pub(super) struct Lent {
    host: Cell<Option<NonNull<dyn ScriptHost>>>,
    read_only: Cell<bool>,
}

impl Lent {
    /// Lends `host` (and whether the script may write) while `run` runs, and takes it back
    /// when `run` returns or unwinds.
    pub(super) fn lend<R>(
        &self,
        host: &mut dyn ScriptHost,
        read_only: bool,
        run: impl FnOnce() -> R,
    ) -> R {
        /// Takes the host back however `run` ends.
        struct TakeBack<'a>(&'a Lent);
        impl Drop for TakeBack<'_> {
            fn drop(&mut self) {
                self.0.host.set(None);
            }
        }
        let host = NonNull::from(host);
        // SAFETY: only the lifetime changes (same pointer, same vtable). The pointer is held
        // only until `TakeBack` clears it, before `lend` returns, while `host` is still
        // mutably borrowed by this call, so nothing else can reach it meanwhile.
        let host: NonNull<dyn ScriptHost> = unsafe { std::mem::transmute(host) };
        self.host.set(Some(host));
        self.read_only.set(read_only);
        let _take_back = TakeBack(self);
        run()
    }

    /// Calls `f` with the lent host and whether the script may write, or returns `None` when
    /// no run is under way or the host is in use already (a call from within a call).
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut dyn ScriptHost, bool) -> R) -> Option<R> {
        let mut host = self.host.take()?;
        /// Puts the host back for the run's next call, however `f` ends.
        struct PutBack<'a>(&'a Lent, NonNull<dyn ScriptHost>);
        impl Drop for PutBack<'_> {
            fn drop(&mut self) {
                self.0.host.set(Some(self.1));
            }
        }
        let _put_back = PutBack(self, host);
        // SAFETY: the pointer came from `lend`, whose borrow is still live (it is cleared
        // before `lend` returns), and it was taken out of the cell, so this is the only
        // reference made from it until `PutBack` returns it.
        Some(f(unsafe { host.as_mut() }, self.read_only.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::resp::{Frame, Protocol};
    use crate::redis::script::CommandSpec;

    struct Counter(u32);

    impl ScriptHost for Counter {
        fn command(&self, _: &[Vec<u8>]) -> Option<CommandSpec> {
            None
        }
        fn call(&mut self, _: &[Vec<u8>], _: Protocol) -> Frame {
            self.0 += 1;
            Frame::Integer(i64::from(self.0))
        }
    }

    fn call(lent: &Lent) -> Option<Frame> {
        lent.with(|host, _| host.call(&[], Protocol::Resp2))
    }

    #[test]
    fn the_host_is_reachable_only_while_its_run_is_under_way() {
        let lent = Lent::default();
        let mut host = Counter(0);
        assert_eq!(call(&lent), None);
        let replies = lent.lend(&mut host, true, || {
            let read_only = lent.with(|_, read_only| read_only);
            (call(&lent), call(&lent), read_only)
        });
        assert_eq!(
            replies,
            (Some(Frame::Integer(1)), Some(Frame::Integer(2)), Some(true))
        );
        assert_eq!(call(&lent), None);
        assert_eq!(host.0, 2);
    }

    #[test]
    fn a_call_from_within_a_call_finds_no_host() {
        let lent = Lent::default();
        let mut host = Counter(0);
        let nested = lent.lend(&mut host, false, || lent.with(|_, _| call(&lent)));
        assert_eq!(nested, Some(None));
        assert_eq!(host.0, 0);
    }

    #[test]
    fn a_run_that_unwinds_takes_its_host_back() {
        let lent = Lent::default();
        let mut host = Counter(0);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lent.lend(&mut host, false, || {
                lent.with(|_, _| panic!("the run fails"))
            })
        }));
        assert!(unwound.is_err());
        assert_eq!(call(&lent), None);
    }
}
