//! Client connections the test can break, without touching the client: `cut` closes the
//! current connection (the client reads EOF, the server sees the socket close), `freeze`
//! stops it dead both ways as a partition would (the client's read timeout notices), and
//! `refuse` makes new dials fail until lifted.

use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use locksim::zk::client::ConnectFuture;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineState {
    Open,
    /// Nothing arrives; what the client sends is dropped.
    Frozen,
    /// Closed: reads see EOF, writes fail.
    Cut,
}

/// One connection's state, shared by the stream and the valve.
struct Line {
    state: LineState,
    /// The last reader, woken when the state changes.
    waker: Option<Waker>,
}

#[derive(Default)]
struct ValveState {
    refusing: bool,
    current: Option<Rc<RefCell<Line>>>,
}

/// The test's handle on one client's connections.
#[derive(Clone, Default)]
pub struct Valve {
    state: Rc<RefCell<ValveState>>,
}

impl Valve {
    /// The connector to give `ZkClient::connect`: dials `addr` unless refusing.
    pub fn connector(
        &self,
        addr: SocketAddr,
    ) -> impl Fn() -> ConnectFuture<ValvedStream> + 'static {
        let valve = self.clone();
        move || {
            let valve = valve.clone();
            Box::pin(async move {
                if valve.state.borrow().refusing {
                    return Err(io::Error::from(io::ErrorKind::ConnectionRefused));
                }
                let stream = TcpStream::connect(addr).await?;
                stream.set_nodelay(true)?;
                let line = Rc::new(RefCell::new(Line {
                    state: LineState::Open,
                    waker: None,
                }));
                valve.state.borrow_mut().current = Some(Rc::clone(&line));
                Ok(ValvedStream {
                    inner: Some(stream),
                    line,
                })
            })
        }
    }

    pub fn refuse(&self, refusing: bool) {
        self.state.borrow_mut().refusing = refusing;
    }

    pub fn cut(&self) {
        self.set(LineState::Cut);
    }

    pub fn freeze(&self) {
        self.set(LineState::Frozen);
    }

    fn set(&self, state: LineState) {
        if let Some(line) = &self.state.borrow().current {
            let mut line = line.borrow_mut();
            line.state = state;
            if let Some(waker) = line.waker.take() {
                waker.wake();
            }
        }
    }
}

/// A TCP stream behind a valve.
pub struct ValvedStream {
    inner: Option<TcpStream>,
    line: Rc<RefCell<Line>>,
}

impl ValvedStream {
    fn state(&self) -> LineState {
        self.line.borrow().state
    }
}

impl AsyncRead for ValvedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        this.line.borrow_mut().waker = Some(cx.waker().clone());
        match (this.state(), &mut this.inner) {
            (LineState::Open, Some(stream)) => Pin::new(stream).poll_read(cx, buf),
            (LineState::Frozen, _) => Poll::Pending,
            (LineState::Cut, _) | (LineState::Open, None) => {
                this.inner = None;
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl AsyncWrite for ValvedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match (this.state(), &mut this.inner) {
            (LineState::Open, Some(stream)) => Pin::new(stream).poll_write(cx, buf),
            (LineState::Frozen, _) => Poll::Ready(Ok(buf.len())),
            (LineState::Cut, _) | (LineState::Open, None) => {
                this.inner = None;
                Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match (self.state(), &mut self.inner) {
            (LineState::Open, Some(stream)) => Pin::new(stream).poll_flush(cx),
            _ => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match (self.state(), &mut self.inner) {
            (LineState::Open, Some(stream)) => Pin::new(stream).poll_shutdown(cx),
            _ => Poll::Ready(Ok(())),
        }
    }
}
