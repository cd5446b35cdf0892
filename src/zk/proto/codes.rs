//! The integer-coded enums of the protocol. Each is declared once through `wire_enum!`, which
//! also derives its decoding, so a variant can never be left out of the decoder.

use super::jute::DecodeError;

/// Declares a `#[repr(i32)]`-style enum plus `ALL`, `code()` and `TryFrom<i32>`, whose error
/// for an unknown value is the given `DecodeError` variant carrying that value.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident / $unknown:ident { $($variant:ident = $value:expr),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($variant = $value),+
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
        Create = 1,
        Delete = 2,
        Exists = 3,
        GetData = 4,
        SetData = 5,
        GetChildren = 8,
        Sync = 9,
        Ping = 11,
        GetChildren2 = 12,
        Multi = 14,
        Create2 = 15,
        CloseSession = -11,
        SetWatches = 101,
    }
}

wire_enum! {
    /// Result codes carried in ReplyHeader.err (KeeperException.Code).
    pub enum ErrorCode / UnknownErrorCode {
        Ok = 0,
        SystemError = -1,
        RuntimeInconsistency = -2,
        DataInconsistency = -3,
        ConnectionLoss = -4,
        MarshallingError = -5,
        Unimplemented = -6,
        OperationTimeout = -7,
        BadArguments = -8,
        NoNode = -101,
        NoAuth = -102,
        BadVersion = -103,
        NoChildrenForEphemerals = -108,
        NodeExists = -110,
        NotEmpty = -111,
        SessionExpired = -112,
        InvalidCallback = -113,
        InvalidAcl = -114,
        AuthFailed = -115,
        SessionMoved = -118,
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
        Persistent = 0,
        Ephemeral = 1,
        PersistentSequential = 2,
        EphemeralSequential = 3,
    }
}

impl CreateMode {
    pub fn is_ephemeral(self) -> bool {
        matches!(
            self,
            CreateMode::Ephemeral | CreateMode::EphemeralSequential
        )
    }
    pub fn is_sequential(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentSequential | CreateMode::EphemeralSequential
        )
    }
}

wire_enum! {
    /// Watcher.Event.EventType.
    pub enum EventType / UnknownEventType {
        None = -1,
        NodeCreated = 1,
        NodeDeleted = 2,
        NodeDataChanged = 3,
        NodeChildrenChanged = 4,
    }
}

wire_enum! {
    /// Watcher.Event.KeeperState.
    pub enum KeeperState / UnknownKeeperState {
        Disconnected = 0,
        SyncConnected = 3,
        AuthFailed = 4,
        ConnectedReadOnly = 5,
        SaslAuthenticated = 6,
        Expired = -112,
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
            CreateMode::try_from(4),
            Err(DecodeError::UnknownCreateMode(4))
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
