//! The integer-coded enums of the protocol. Each is declared once through `wire_enum!`, which
//! also derives its decoding, so a variant can never be left out of the decoder.

use super::jute::DecodeError;

/// Declares a `#[repr(i32)]`-style enum plus `ALL`, `code()` and `TryFrom<i32>`, whose error
/// for an unknown value is the given `DecodeError` variant carrying that value.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident / $unknown:ident {
            $($(#[$vmeta:meta])* $variant:ident = $value:expr),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $value),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &[$name] = &[$($name::$variant),+];

            /// The value on the wire.
            pub fn code(self) -> i32 {
                self as i32
            }
        }

        impl TryFrom<i32> for $name {
            type Error = DecodeError;

            fn try_from(code: i32) -> Result<Self, DecodeError> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.code() == code)
                    .ok_or(DecodeError::$unknown(code))
            }
        }
    };
}

wire_enum! {
    /// Request types (ZooDefs.OpCode) of the supported subset.
    pub enum OpCode / UnknownOp {
        /// `create`: makes a node.
        Create = 1,
        /// `delete`: removes a childless node, at any version or only at the one given.
        Delete = 2,
        /// `exists`: a node's Stat; its watch may wait for a node that does not exist yet.
        Exists = 3,
        /// `getData`: a node's data and Stat.
        GetData = 4,
        /// `setData`: replaces a node's data, at any version or only at the one given.
        SetData = 5,
        /// `getChildren`: the names of a node's children.
        GetChildren = 8,
        /// `sync`: answered once the server has caught up with the leader.
        Sync = 9,
        /// `ping`: keeps an idle session alive (xid -2).
        Ping = 11,
        /// `getChildren2`: getChildren, with the parent's Stat.
        GetChildren2 = 12,
        /// `multi`: sub-operations applied all or none.
        Multi = 14,
        /// `create2`: create, with the new node's Stat.
        Create2 = 15,
        /// `closeSession`: ends the session, deleting its ephemeral nodes.
        CloseSession = -11,
        /// `setWatches`: registers the client's watches again after it reconnected (xid -8).
        SetWatches = 101,
        /// `getEphemerals`: the paths of the session's ephemeral nodes (3.6+).
        GetEphemerals = 103,
        /// `setWatches2`: setWatches with persistent watches too (3.6+).
        SetWatches2 = 105,
        /// `getAllChildrenNumber`: how many nodes lie below a node, at any depth (3.6+).
        GetAllChildrenNumber = 104,
        /// `checkWatches`: whether the connection has a watch of a kind on a path (3.5+).
        CheckWatches = 17,
        /// `removeWatches`: drops the connection's watches of a kind on a path (3.5+).
        RemoveWatches = 18,
        /// `multiRead`: getChildren and getData reads, each answered on its own (3.6+).
        MultiRead = 22,
        /// `createContainer`: makes a container, a node the server deletes once its last
        /// child is gone (3.5+).
        CreateContainer = 19,
        /// `getACL`: a node's ACL and Stat.
        GetAcl = 6,
        /// `setACL`: replaces a node's ACL, at any ACL version or only at the one given.
        SetAcl = 7,
        /// `auth`: adds an identity to the connection (xid -4), answered at once.
        Auth = 100,
        /// `whoAmI`: the identities the connection holds (3.7+).
        WhoAmI = 107,
        /// `sasl`: a SASL token, answered at once; a server without SASL answers Ok with a
        /// null token.
        Sasl = 102,
        /// `addWatch`: a persistent or persistent-recursive watch on a path (3.6+).
        AddWatch = 106,
        /// `reconfig`: changes the ensemble's membership; refused with ReconfigDisabled, as by
        /// a server without `reconfigEnabled` (3.5+).
        Reconfig = 16,
        /// `createTTL`: makes a node the server deletes once it has gone unchanged and
        /// childless for its time to live; refused unless the server's extended types are on
        /// (3.5+).
        CreateTtl = 21,
    }
}

wire_enum! {
    /// Result codes carried in ReplyHeader.err (KeeperException.Code).
    pub enum ErrorCode / UnknownErrorCode {
        /// Success.
        Ok = 0,
        /// Marks the start of the system errors; never sent as such.
        SystemError = -1,
        /// What a failed multi reports for the sub-operations after the failing one.
        RuntimeInconsistency = -2,
        /// The server found its data inconsistent.
        DataInconsistency = -3,
        /// The connection dropped with the request pending: its outcome is unknown, the session
        /// may live on.
        ConnectionLoss = -4,
        /// Bytes the server could not (de)serialize.
        MarshallingError = -5,
        /// An op code the server does not serve (it closes the connection after saying so), or
        /// a TTL create while its extended types are off.
        Unimplemented = -6,
        /// The request took too long.
        OperationTimeout = -7,
        /// An invalid path (or a delete of the root).
        BadArguments = -8,
        /// The node does not exist.
        NoNode = -101,
        /// The session lacks the ACL permission.
        NoAuth = -102,
        /// The node is not at the version the request asked for.
        BadVersion = -103,
        /// A create under an ephemeral node, which may have no children.
        NoChildrenForEphemerals = -108,
        /// The node already exists.
        NodeExists = -110,
        /// A delete of a node that has children.
        NotEmpty = -111,
        /// The session expired on the server.
        SessionExpired = -112,
        /// An invalid callback.
        InvalidCallback = -113,
        /// A create with no ACL, or a `world` entry for other than `anyone`.
        InvalidAcl = -114,
        /// Authentication failed.
        AuthFailed = -115,
        /// The session moved to another server; the request is ignored.
        SessionMoved = -118,
        /// checkWatches or removeWatches found no such watch.
        NoWatcher = -121,
        /// A reconfig on a server whose dynamic reconfiguration is off.
        ReconfigDisabled = -123,
    }
}

impl ErrorCode {
    /// The code for `code`, or `None` when it is not one this crate knows.
    pub fn from_code(code: i32) -> Option<Self> {
        Self::try_from(code).ok()
    }
}

wire_enum! {
    /// Node kinds (CreateMode) carried in the create request's `flags`.
    pub enum CreateMode / UnknownCreateMode {
        /// Stays until deleted.
        Persistent = 0,
        /// Deleted when its creator's session ends.
        Ephemeral = 1,
        /// Persistent, the parent's sequence counter appended to its name (`%010d`).
        PersistentSequential = 2,
        /// Ephemeral, the parent's sequence counter appended to its name (`%010d`).
        EphemeralSequential = 3,
        /// A container. ZooKeeper 3.8 makes one for createContainer and for a create inside
        /// a multi; a plain create or create2 with this mode makes a persistent node.
        Container = 4,
        /// Persistent with a time to live (createTTL): refused with `Unimplemented` while the
        /// server's extended types are off, as 3.8's are by default.
        PersistentWithTtl = 5,
        /// Persistent sequential with a time to live: refused as [`CreateMode::PersistentWithTtl`].
        PersistentSequentialWithTtl = 6,
    }
}

impl CreateMode {
    /// Whether the node goes with its creator's session.
    pub fn is_ephemeral(self) -> bool {
        matches!(
            self,
            CreateMode::Ephemeral | CreateMode::EphemeralSequential
        )
    }

    /// Whether the node's name gets a sequence suffix.
    pub fn is_sequential(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentSequential
                | CreateMode::EphemeralSequential
                | CreateMode::PersistentSequentialWithTtl
        )
    }

    /// Whether the node would live for a time to live.
    pub fn is_ttl(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentWithTtl | CreateMode::PersistentSequentialWithTtl
        )
    }
}

wire_enum! {
    /// AddWatchMode: which persistent watch addWatch leaves.
    pub enum AddWatchMode / UnknownAddWatchMode {
        /// Stays after firing; sees the path's own events, NodeChildrenChanged included.
        Persistent = 0,
        /// Stays after firing; sees every event at or below the path but
        /// NodeChildrenChanged.
        PersistentRecursive = 1,
    }
}

wire_enum! {
    /// Watcher.WatcherType: which watches checkWatches and removeWatches look at.
    pub enum WatcherType / UnknownWatcherType {
        /// getChildren watches.
        Children = 1,
        /// getData and exists watches.
        Data = 2,
        /// Both.
        Any = 3,
    }
}

wire_enum! {
    /// Watcher.Event.EventType.
    pub enum EventType / UnknownEventType {
        /// No node changed: a session event, whose state says what happened.
        None = -1,
        /// A watched path came into existence (an `exists` watch).
        NodeCreated = 1,
        /// A watched node was deleted.
        NodeDeleted = 2,
        /// A watched node's data was set.
        NodeDataChanged = 3,
        /// A child was created under, or deleted from, a node whose children were watched.
        NodeChildrenChanged = 4,
    }
}

wire_enum! {
    /// Watcher.Event.KeeperState.
    pub enum KeeperState / UnknownKeeperState {
        /// The client lost its connection; the session may live on.
        Disconnected = 0,
        /// The client is connected (again), its session alive.
        SyncConnected = 3,
        /// Authentication failed.
        AuthFailed = 4,
        /// Connected to a read-only server.
        ConnectedReadOnly = 5,
        /// SASL authentication succeeded.
        SaslAuthenticated = 6,
        /// The session expired: the client is done for.
        Expired = -112,
        /// The client closed its session.
        Closed = 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_decodes_to_itself() {
        for &op in OpCode::ALL {
            assert_eq!(OpCode::try_from(op.code()), Ok(op));
        }
        for &err in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(err.code()), Some(err));
        }
        for &mode in CreateMode::ALL {
            assert_eq!(CreateMode::try_from(mode.code()), Ok(mode));
        }
        for &ty in EventType::ALL {
            assert_eq!(EventType::try_from(ty.code()), Ok(ty));
        }
        for &state in KeeperState::ALL {
            assert_eq!(KeeperState::try_from(state.code()), Ok(state));
        }
    }

    #[test]
    fn wire_values_match_zookeeper() {
        assert_eq!(OpCode::CloseSession.code(), -11);
        assert_eq!(OpCode::SetWatches.code(), 101);
        assert_eq!(OpCode::Create2.code(), 15);
        assert_eq!(OpCode::Sync.code(), 9);
        assert_eq!(OpCode::Multi.code(), 14);
        assert_eq!(ErrorCode::NodeExists.code(), -110);
        assert_eq!(ErrorCode::SessionMoved.code(), -118);
        assert_eq!(CreateMode::EphemeralSequential.code(), 3);
        assert_eq!(EventType::None.code(), -1);
        assert_eq!(KeeperState::Expired.code(), -112);
    }

    #[test]
    fn unknown_values_are_typed_errors() {
        assert_eq!(OpCode::try_from(99), Err(DecodeError::UnknownOp(99)));
        assert_eq!(
            ErrorCode::try_from(-100),
            Err(DecodeError::UnknownErrorCode(-100))
        );
        assert_eq!(ErrorCode::from_code(1), None);
        assert_eq!(
            CreateMode::try_from(7),
            Err(DecodeError::UnknownCreateMode(7))
        );
        assert_eq!(
            EventType::try_from(0),
            Err(DecodeError::UnknownEventType(0))
        );
        assert_eq!(
            KeeperState::try_from(1),
            Err(DecodeError::UnknownKeeperState(1))
        );
    }

    #[test]
    fn create_mode_flags() {
        assert!(CreateMode::EphemeralSequential.is_ephemeral());
        assert!(CreateMode::EphemeralSequential.is_sequential());
        assert!(!CreateMode::Persistent.is_ephemeral());
        assert!(!CreateMode::Ephemeral.is_sequential());
    }
}
