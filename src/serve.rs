//! What every `locksim serve` shares: the accept loop on a real socket. Each family's driver
//! (`zk::serve`, `redis::serve`) brings its core and its clock; this hands it every new
//! connection, with Nagle off, until shutdown.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use tokio::net::{TcpListener, TcpStream};
use tracing::warn;

/// Accepts connections on `listener` and gives each to `serve` until `shutdown` completes.
/// A failed accept (out of file descriptors, a reset before accept) is logged and the loop
/// goes on: one connection's trouble never stops the server.
pub async fn accept_until(
    listener: &TcpListener,
    shutdown: impl Future<Output = ()>,
    mut serve: impl FnMut(TcpStream, SocketAddr),
) {
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => return,
            accepted = accept(listener) => match accepted {
                Ok((stream, peer)) => serve(stream, peer),
                Err(e) => warn!("accept failed: {e}"),
            },
        }
    }
}

/// The next connection, with Nagle off as both real servers have it (ZooKeeper's
/// NIOServerCnxn, Redis's `createClient`): a server that answers in two writes (ZooKeeper's
/// watch events then the reply; Redis's replies to requests that came in separate reads)
/// would otherwise hold the second until the client's delayed ACK of the first, about 40 ms.
/// Cancel-safe, as `accept` is: nothing is awaited after it.
async fn accept(listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    if let Err(e) = stream.set_nodelay(true) {
        warn!("cannot set TCP_NODELAY for {peer}: {e}");
    }
    Ok((stream, peer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (_client, accepted) = tokio::join!(TcpStream::connect(addr), accept(&listener));
        let (stream, _) = accepted.unwrap();
        assert!(stream.nodelay().unwrap());
    }
}
