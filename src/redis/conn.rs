//! One connection's state, kept by the driver and handed in with each input: Redis keeps
//! the same in its `client` struct.

use crate::redis::resp::Args;
use crate::redis::resp::{self, Frame, Protocol, RequestReader};

/// A client connection (or the link from a master, or a script's caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conn {
    pub(crate) id: u64,
    /// CLIENT SETNAME's name; none until set, and again after an empty one.
    pub(crate) name: Option<Vec<u8>>,
    /// The database its commands run in: 0 until SELECT.
    pub(crate) db: usize,
    /// The protocol its replies are written in: RESP2 until HELLO switches it.
    pub(crate) proto: Protocol,
    /// The request being read: bytes read but not yet a whole request.
    pub(crate) input: RequestReader,
    /// A reply ended the connection (QUIT, a protocol error): later input is not read.
    pub(crate) closing: bool,
    /// On the link from a master: the commands between MULTI and EXEC, applied at EXEC and
    /// lost with the link if EXEC never comes.
    pub(crate) multi: Option<Vec<Args>>,
    /// A client's transaction: the commands queued since MULTI (`None` outside one).
    pub(crate) queued: Option<Vec<Args>>,
    /// A command was refused while queuing (CLIENT_DIRTY_EXEC): EXEC answers EXECABORT.
    pub(crate) queue_refused: bool,
    /// The keys this connection WATCHes, each with its database (Redis's
    /// `c->watched_keys`); who else changed them is each database's registry's business.
    pub(crate) watching: Vec<(usize, Vec<u8>)>,
    /// Its commands may not block (Redis's CLIENT_DENY_BLOCKING): set while EXEC runs its
    /// queue, for scripts' client and on a master's link; a blocking pop then answers null.
    pub(crate) deny_blocking: bool,
    /// The replication offset after its last command that propagated something (Redis's
    /// `c->woff`): what WAIT waits for replicas to acknowledge.
    pub(crate) woff: u64,
    /// Frames EXEC's queued commands sent this connection besides their replies, each with
    /// the index of the reply it comes before: Redis writes them inside EXEC's array.
    pub(crate) inside_reply: Vec<(usize, Vec<Frame>)>,
}

impl Conn {
    /// Writes `reply` in the connection's protocol; an EXEC's array with the frames its
    /// commands sent this connection where Redis writes them, after the array's header and
    /// before the reply of the command that sent them (so that RESP2's array then holds
    /// more frames than its count says, as Redis's does).
    pub fn encode_reply(&mut self, reply: &Frame, out: &mut Vec<u8>) {
        let inside = std::mem::take(&mut self.inside_reply);
        let Frame::Array(replies) = reply else {
            return resp::encode(reply, self.proto, out);
        };
        if inside.is_empty() {
            return resp::encode(reply, self.proto, out);
        }
        resp::encode_array_header(replies.len(), out);
        let mut inside = inside.into_iter().peekable();
        for (i, item) in replies.iter().enumerate() {
            while let Some((_, frames)) = inside.next_if(|(at, _)| *at == i) {
                frames.iter().for_each(|f| resp::encode(f, self.proto, out));
            }
            resp::encode(item, self.proto, out);
        }
    }

    pub(crate) fn new(id: u64) -> Conn {
        Conn {
            id,
            name: None,
            db: 0,
            proto: Protocol::Resp2,
            input: RequestReader::default(),
            closing: false,
            multi: None,
            queued: None,
            queue_refused: false,
            watching: Vec::new(),
            deny_blocking: false,
            woff: 0,
            inside_reply: Vec::new(),
        }
    }

    /// CLIENT ID: unique for the server's life.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// CLIENT GETNAME.
    pub fn name(&self) -> Option<&[u8]> {
        self.name.as_deref()
    }

    /// The database SELECT chose.
    pub fn db(&self) -> usize {
        self.db
    }

    /// The protocol its replies are encoded in.
    pub fn protocol(&self) -> Protocol {
        self.proto
    }

    /// Whether the server is done with this connection: the driver closes it once the
    /// output is written.
    pub fn is_closing(&self) -> bool {
        self.closing
    }
}
