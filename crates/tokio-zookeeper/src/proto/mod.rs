use async_trait::async_trait;
use std::error::Error;
use std::net::SocketAddr;
use tokio::io::{AsyncRead, AsyncWrite};

mod active_packetizer;
mod error;
mod packetizer;
mod request;
mod response;
mod watch;

pub(crate) use self::error::ZkError;
pub(crate) use self::packetizer::{Enqueuer, Packetizer};
pub(crate) use self::request::Request;
pub(crate) use self::response::Response;
pub(crate) use self::watch::Watch;

/// When the client pings a connection it has sent nothing on for a while.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Heartbeat {
    /// After two thirds of the negotiated session timeout: this crate's own default.
    #[default]
    TwoThirds,
    /// After a third, as the Java client does (half its read timeout of two thirds): a
    /// live connection then always hears something within two thirds of the timeout, so a
    /// transport may drop one silent for that long and reconnect, with a third left before
    /// the session expires.
    OneThird,
}

impl Heartbeat {
    /// The interval for a negotiated session timeout of `timeout_ms`.
    pub(crate) fn interval(self, timeout_ms: u64) -> std::time::Duration {
        let ms = match self {
            Heartbeat::TwoThirds => 2 * timeout_ms / 3,
            Heartbeat::OneThird => timeout_ms / 3,
        };
        std::time::Duration::from_millis(ms)
    }
}

/// A byte stream the client can run a session over, and how to open one.
///
/// The client calls [`connect`](ZooKeeperTransport::connect) once for the first connection
/// and again, with the same address, every time it reconnects. Implemented for
/// [`tokio::net::TcpStream`]; implement it for another stream (TLS, a proxy, a simulated
/// network) and connect with
/// [`ZooKeeperBuilder::connect_with_transport`](crate::ZooKeeperBuilder::connect_with_transport).
#[async_trait]
pub trait ZooKeeperTransport: AsyncRead + AsyncWrite + Sized + Send + 'static {
    /// Where to connect to.
    type Addr: Send + Clone;
    /// Why a connection could not be opened.
    type ConnectError: Error + Send + Sync + 'static;
    /// Opens a connection to `addr`.
    async fn connect(addr: Self::Addr) -> Result<Self, Self::ConnectError>;
}

#[async_trait]
impl ZooKeeperTransport for tokio::net::TcpStream {
    type Addr = SocketAddr;
    type ConnectError = tokio::io::Error;
    async fn connect(addr: Self::Addr) -> Result<Self, Self::ConnectError> {
        tokio::net::TcpStream::connect(addr).await
    }
}
