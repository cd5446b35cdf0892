//! The protected resource: a register on the `store` host. A holder reads it, works, and
//! writes value + 1. With fencing on, every access carries the holder's token and the store
//! refuses any token below the highest it has seen, which is what keeps a paused ex-holder
//! from doing damage. Reads must be fenced too: otherwise a zombie's write that lands before
//! the new holder's write (but after its read) makes that read stale.
//!
//! A client reaches it through [`ProtectedStore`], as the workloads do and as a program of a
//! user's own can; the server's side is crate-private.

mod protected;

pub use protected::{ProtectedStore, Read, StoreError};

use crate::history::{Kind, Op, StoreOp};
use crate::sim::node::Node;
use crate::sim::software::{ServerFamily, ServerFuture, ServerSoftware};
use serde::{Deserialize, Serialize};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use turmoil::net::{TcpListener, TcpStream};

/// The port the `store` host listens on.
pub(crate) const PORT: u16 = 7000;

/// A request to the store: one JSON line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StoreRequest {
    /// Read the register, carrying the holder's token if any.
    Read { token: Option<i64> },
    /// Write `value`, computed from `based_on` (what the writer read), carrying its token.
    Write {
        based_on: i64,
        value: i64,
        token: Option<i64>,
    },
}

/// The store's answer: one JSON line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StoreReply {
    /// A read's answer: the register's value.
    Value(i64),
    /// A fenced read refused: a newer token has been seen.
    Refused,
    /// A write's answer: whether it was applied.
    Accepted(bool),
}

/// The register's pure state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Register {
    value: i64,
    highest_token: Option<i64>,
    fencing: bool,
}

impl Register {
    fn new(fencing: bool) -> Self {
        Register {
            fencing,
            ..Register::default()
        }
    }

    /// Admits an access carrying `token`: always without fencing; with fencing, only a
    /// token at least as high as any seen before, which then becomes the highest.
    fn admit(&mut self, token: Option<i64>) -> bool {
        if !self.fencing {
            return true;
        }
        match (token, self.highest_token) {
            (None, _) => false,
            (Some(t), Some(h)) if t < h => false,
            _ => {
                self.highest_token = token;
                true
            }
        }
    }

    /// The value, unless the read is fenced off.
    fn read(&mut self, token: Option<i64>) -> Option<i64> {
        self.admit(token).then_some(self.value)
    }

    /// Applies a write; returns whether it was accepted.
    fn write(&mut self, value: i64, token: Option<i64>) -> bool {
        let admitted = self.admit(token);
        if admitted {
            self.value = value;
        }
        admitted
    }
}

/// The register as the `store` host's software and its restarts share it.
type SharedRegister = std::rc::Rc<std::cell::RefCell<Register>>;

/// The `store` host, with or without fencing. It loses no replies and has no replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoreFamily {
    /// Whether the store refuses accesses with a token below the highest it has seen.
    pub(crate) fencing: bool,
}

impl ServerFamily for StoreFamily {
    fn describe(&self) -> &'static str {
        "the store"
    }

    fn install(&self, node: Node) -> Box<dyn ServerSoftware> {
        let register = SharedRegister::new(Register::new(self.fencing).into());
        Box::new(StoreSoftware { node, register })
    }
}

struct StoreSoftware {
    node: Node,
    register: SharedRegister,
}

impl ServerSoftware for StoreSoftware {
    fn start(&self) -> ServerFuture {
        Box::pin(serve(self.node.clone(), self.register.clone()))
    }

    /// The family admits no software faults, so none reaches it.
    fn apply(&mut self, _fault: &crate::sim::fault::Fault) {}

    /// Every wait of its is one the stepper sees (`Node::timer`, `turmoil::sleep`).
    fn lazy(&self) -> bool {
        true
    }
}

/// The `store` host's software: one JSON line in, one JSON line out, per connection.
/// The register lives outside the software (`SharedRegister`), so it survives a crash and
/// restart of `store` as a durable store would, fencing token included.
async fn serve(node: Node, register: SharedRegister) -> turmoil::Result {
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await?;
    loop {
        let (stream, peer) = listener.accept().await?;
        let client = turmoil::reverse_lookup(peer.ip()).unwrap_or_else(|| peer.ip().to_string());
        let (node, register) = (node.clone(), register.clone());
        let task_node = node.clone();
        task_node.spawn(async move {
            let _ = answer(stream, &client, &node, &register).await;
        });
    }
}

async fn answer(
    stream: TcpStream,
    client: &str,
    node: &Node,
    register: &std::cell::RefCell<Register>,
) -> io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::with_capacity(LINE_BUF, read).lines();
    while let Some(line) = lines.next_line().await? {
        let request: StoreRequest = serde_json::from_str(&line)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let reply = match request {
            StoreRequest::Read { token } => match register.borrow_mut().read(token) {
                Some(v) => StoreReply::Value(v),
                None => StoreReply::Refused,
            },
            StoreRequest::Write {
                based_on,
                value,
                token,
            } => {
                let current = register.borrow().value;
                let accepted = register.borrow_mut().write(value, token);
                node.record(
                    Kind::Info,
                    Op::Store(StoreOp::StoreWrite {
                        client: client.to_string(),
                        based_on,
                        current,
                        value,
                        token,
                        accepted,
                    }),
                );
                StoreReply::Accepted(accepted)
            }
        };
        let mut out = serde_json::to_vec(&reply).expect("reply serialises");
        out.push(b'\n');
        write.write_all(&out).await?;
    }
    Ok(())
}

/// What a connection's reader buffers: more than any request or reply line (each is written
/// at once, a segment of its own, and read whole), far less than tokio's 8 KiB default,
/// which each call would allocate and zero.
const LINE_BUF: usize = 512;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fencing_rejects_lower_tokens_only_when_on() {
        let mut r = Register::new(true);
        assert!(r.write(1, Some(34)));
        assert!(!r.write(2, Some(33)), "token 33 after 34 must be rejected");
        assert!(r.write(2, Some(34)), "the same holder may write again");
        assert!(!r.write(3, None), "a fenced store needs a token");
        assert_eq!(r.value, 2);
        assert_eq!(r.read(Some(40)), Some(2));
        assert!(
            !r.write(5, Some(34)),
            "a newer holder's read fences the old holder off"
        );
        assert_eq!(r.read(Some(34)), None);
        let mut open = Register::new(false);
        assert!(open.write(1, Some(34)));
        assert!(open.write(2, Some(33)));
        assert_eq!(open.value, 2);
    }
}
