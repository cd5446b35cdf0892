//! The wire protocol spoken directly, for what the client cannot be made to do: connect with
//! a chosen session id and password, or go silent without a word; and those steps recorded.

use std::io;
use std::time::Duration;

use locksim::zk::proto::{
    Acl, ConnectRequest, ConnectResponse, Create2Response, CreateMode, CreateRequest,
    CreateResponse, ErrorCode, MultiOp, NOTIFICATION_XID, OpCode, ReadResult, ReplyHeader, Request,
    Response, SetDataResponse, WatcherEvent, WatcherType, decode_connect_response,
    decode_reply_header, decode_response, decode_watcher_event, encode_connect_request,
    encode_request, split_frame,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

use super::script::Cx;
use super::transcript::{Item, Transcript};

/// How long a raw exchange may take before it counts as no answer.
const LIMIT: Duration = Duration::from_secs(5);

/// What went wrong on a raw connection, as the transcript shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawError {
    Closed,
    TimedOut,
    Io(io::ErrorKind),
    Malformed,
}

/// A reply on a raw connection, with the notifications the server sent ahead of it.
pub struct RawReply {
    pub header: ReplyHeader,
    pub body: Option<Response>,
    pub before: Vec<WatcherEvent>,
}

pub struct RawConn {
    stream: TcpStream,
    inbuf: Vec<u8>,
    /// The zxid of the last reply, for `raw_call_zxid`.
    last_zxid: Option<i64>,
}

impl RawConn {
    /// Dials `addr` and sends a ConnectRequest for `session_id` (0: a new session).
    pub async fn connect(
        addr: std::net::SocketAddr,
        session_id: i64,
        passwd: &[u8],
        timeout_ms: i32,
    ) -> Result<(RawConn, ConnectResponse), RawError> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| RawError::Io(e.kind()))?;
        let mut conn = RawConn {
            stream,
            inbuf: Vec::new(),
            last_zxid: None,
        };
        let request = ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 0,
            timeout_ms,
            session_id,
            passwd: passwd.to_vec(),
            read_only: false,
        };
        conn.send(&encode_connect_request(&request)).await?;
        let body = conn.frame().await?;
        let response = decode_connect_response(&body).map_err(|_| RawError::Malformed)?;
        Ok((conn, response))
    }

    /// Sends a request and returns its reply and the notifications that arrived before it.
    pub async fn call(&mut self, xid: i32, request: &Request) -> Result<RawReply, RawError> {
        self.call_patched(xid, request, |_| {}).await
    }

    /// As `call`, with the encoded packet changed by `patch` first (for bytes no `Request`
    /// encodes, such as a create's flags naming no mode).
    pub async fn call_patched(
        &mut self,
        xid: i32,
        request: &Request,
        patch: impl FnOnce(&mut Vec<u8>),
    ) -> Result<RawReply, RawError> {
        let mut packet = encode_request(xid, request);
        patch(&mut packet);
        self.send(&packet).await?;
        let mut before = Vec::new();
        loop {
            let body = self.frame().await?;
            let (header, rest) = decode_reply_header(&body).map_err(|_| RawError::Malformed)?;
            if header.xid == NOTIFICATION_XID {
                before.push(decode_watcher_event(rest).map_err(|_| RawError::Malformed)?);
                continue;
            }
            let body = if header.err == ErrorCode::Ok {
                Some(decode_response(request.op(), rest).map_err(|_| RawError::Malformed)?)
            } else {
                None
            };
            return Ok(RawReply {
                header,
                body,
                before,
            });
        }
    }

    /// Whether the server closes this connection within the limit (frames before the close
    /// are skipped).
    pub async fn closed_by_server(&mut self) -> bool {
        loop {
            match self.frame().await {
                Ok(_) => {}
                Err(RawError::Closed | RawError::Io(_)) => return true,
                Err(_) => return false,
            }
        }
    }

    async fn send(&mut self, packet: &[u8]) -> Result<(), RawError> {
        match timeout(LIMIT, self.stream.write_all(packet)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(RawError::Io(e.kind())),
            Err(_) => Err(RawError::TimedOut),
        }
    }

    async fn frame(&mut self) -> Result<Vec<u8>, RawError> {
        loop {
            if let Some((body, consumed)) =
                split_frame(&self.inbuf).map_err(|_| RawError::Malformed)?
            {
                let body = body.to_vec();
                self.inbuf.drain(..consumed);
                return Ok(body);
            }
            match timeout(LIMIT, self.stream.read_buf(&mut self.inbuf)).await {
                Ok(Ok(0)) => return Err(RawError::Closed),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(RawError::Io(e.kind())),
                Err(_) => return Err(RawError::TimedOut),
            }
        }
    }
}

impl Cx {
    /// Opens a raw session (new when `session` is None, else a resume with that id and
    /// password); records the answer and whether the server then closed the connection.
    pub async fn raw_connect(
        &mut self,
        what: &str,
        session: Option<(i64, Vec<u8>)>,
        timeout_ms: i32,
    ) -> Option<(RawConn, i64, Vec<u8>)> {
        let (id, passwd) = session.unwrap_or((0, vec![0; 16]));
        let step = format!("raw connect {what} timeout={timeout_ms}");
        match RawConn::connect(self.addr, id, &passwd, timeout_ms).await {
            Ok((mut conn, response)) => {
                if id == 0 && response.session_id != 0 {
                    self.raw_count += 1;
                    self.t
                        .label(response.session_id, &format!("r{}", self.raw_count));
                }
                let granted = response.timeout_ms > 0;
                let mut items = vec![
                    Item::Text(format!("timeout={}", response.timeout_ms)),
                    Item::Session(response.session_id),
                    Item::Text(format!(
                        "passwd={}",
                        if response.passwd.iter().all(|&b| b == 0) {
                            "zeros"
                        } else {
                            "set"
                        }
                    )),
                ];
                if !granted {
                    let closed = conn.closed_by_server().await;
                    items.push(Item::Text(format!("closed={closed}")));
                }
                self.t.push(step, items);
                granted.then_some((conn, response.session_id, response.passwd))
            }
            Err(err) => {
                self.t.push(step, vec![Item::Text(format!("{err:?}"))]);
                None
            }
        }
    }

    /// Two new raw sessions, `first` and `second` as the transcript names them.
    pub async fn raw_pair(&mut self, first: &str, second: &str) -> Option<(RawConn, RawConn)> {
        let (one, _, _) = self.raw_connect(first, None, 2_000).await?;
        let (two, _, _) = self.raw_connect(second, None, 2_000).await?;
        Some((one, two))
    }

    /// Closes both sessions of a `raw_pair` and ends the case.
    pub async fn raw_close_pair(mut self, (mut one, mut two): (RawConn, RawConn)) -> Transcript {
        self.raw_call(&mut one, "close", 99, Request::CloseSession)
            .await;
        self.raw_call(&mut two, "close the second", 99, Request::CloseSession)
            .await;
        self.finish().await
    }

    /// A request on a raw connection; records the notifications that came before its reply
    /// (events and replies share one ordered stream), then its error code or body's gist.
    pub async fn raw_call(&mut self, conn: &mut RawConn, what: &str, xid: i32, request: Request) {
        let step = format!("raw {what}");
        let items = match conn.call(xid, &request).await {
            Ok(reply) => vec![
                Item::Events(reply.before),
                Item::Text(format!("{:?}", reply.header.err)),
                raw_body(reply.body),
            ],
            Err(err) => vec![Item::Text(format!("{err:?}"))],
        };
        self.t.push(step, items);
    }

    /// As `raw_call`, also recording how far the reply's zxid moved since the previous reply
    /// on `conn` (how many txns the request and anything between made).
    pub async fn raw_call_zxid(
        &mut self,
        conn: &mut RawConn,
        what: &str,
        xid: i32,
        request: Request,
    ) {
        self.raw_call_zxid_patched(conn, what, xid, request, |_| {})
            .await
    }

    /// A create (or create2) of `path` whose flags on the wire are `flags`, whatever they
    /// name, recorded as `raw_call_zxid` records.
    pub async fn raw_create_flags(
        &mut self,
        conn: &mut RawConn,
        xid: i32,
        path: &str,
        flags: i32,
        stat_reply: bool,
    ) {
        let create = CreateRequest {
            path: path.to_string(),
            data: b"d".to_vec(),
            acl: Acl::open_unsafe(),
            mode: CreateMode::Persistent,
        };
        let request = match stat_reply {
            false => Request::Create(create),
            true => Request::Create2(create),
        };
        let what = format!("create{} {path}", if stat_reply { "2" } else { "" });
        self.raw_flags(conn, xid, &what, request, flags).await
    }

    /// `request`, a create, create2 or createContainer, with `flags` on the wire whatever
    /// they name, recorded as `raw_call_zxid` records.
    pub async fn raw_flags(
        &mut self,
        conn: &mut RawConn,
        xid: i32,
        what: &str,
        request: Request,
        flags: i32,
    ) {
        // The flags are the body's last field.
        let patch = |packet: &mut Vec<u8>| {
            let at = packet.len() - 4;
            packet[at..].copy_from_slice(&flags.to_be_bytes());
        };
        let what = format!("{what} flags={flags}");
        self.raw_call_zxid_patched(conn, &what, xid, request, patch)
            .await
    }

    /// A checkWatches of `path` whose type on the wire is `kind`, whatever it names.
    pub async fn raw_check_watches_type(
        &mut self,
        conn: &mut RawConn,
        xid: i32,
        path: &str,
        kind: i32,
    ) {
        let request = Request::CheckWatches {
            path: path.to_string(),
            kind: WatcherType::Any,
        };
        let what = format!("checkWatches {path} type={kind}");
        // The type is the body's last field.
        let patch = |packet: &mut Vec<u8>| {
            let at = packet.len() - 4;
            packet[at..].copy_from_slice(&kind.to_be_bytes());
        };
        self.raw_call_zxid_patched(conn, &what, xid, request, patch)
            .await
    }

    /// A multiRead (op 22) whose one entry is a create of `base`/x: the multi of that create
    /// with its op code patched, as no `Request` encodes it.
    pub async fn raw_multi_read_with_a_create(&mut self, conn: &mut RawConn, xid: i32, base: &str) {
        let request = Request::Multi {
            ops: vec![MultiOp::create(
                format!("{base}/x"),
                b"",
                CreateMode::Persistent,
            )],
        };
        // After the length prefix and the xid.
        let patch = |packet: &mut Vec<u8>| {
            packet[8..12].copy_from_slice(&OpCode::MultiRead.code().to_be_bytes());
        };
        self.raw_call_zxid_patched(conn, "multiRead holding a create", xid, request, patch)
            .await
    }

    /// A multi of the one entry `op`, whose type on the wire is `entry`, whatever `op` is,
    /// recorded as `raw_call_zxid` records.
    pub async fn raw_multi_entry(&mut self, conn: &mut RawConn, xid: i32, op: MultiOp, entry: i32) {
        let what = format!("multi of a type-{entry} {}", super::ops::describe(&op));
        let request = Request::Multi { ops: vec![op] };
        // After the length prefix, the xid, the op code: the first entry's type.
        let patch = |packet: &mut Vec<u8>| {
            packet[12..16].copy_from_slice(&entry.to_be_bytes());
        };
        self.raw_call_zxid_patched(conn, &what, xid, request, patch)
            .await
    }

    /// `request`'s body under the op code `op`, recorded as `raw_call_zxid` records.
    pub async fn raw_op(
        &mut self,
        conn: &mut RawConn,
        what: &str,
        xid: i32,
        request: Request,
        op: i32,
    ) {
        // After the length prefix and the xid.
        let patch = |packet: &mut Vec<u8>| packet[8..12].copy_from_slice(&op.to_be_bytes());
        let what = format!("{what} (op {op})");
        self.raw_call_zxid_patched(conn, &what, xid, request, patch)
            .await
    }

    async fn raw_call_zxid_patched(
        &mut self,
        conn: &mut RawConn,
        what: &str,
        xid: i32,
        request: Request,
        patch: impl FnOnce(&mut Vec<u8>),
    ) {
        let step = format!("raw {what}");
        let previous = conn.last_zxid;
        let items = match conn.call_patched(xid, &request, patch).await {
            Ok(reply) => {
                let zxid = reply.header.zxid;
                conn.last_zxid = Some(zxid);
                let moved = match previous {
                    Some(before) => format!("zxid+{}", zxid - before),
                    None => "zxid=first".to_string(),
                };
                vec![
                    Item::Events(reply.before),
                    Item::Text(format!("{:?}", reply.header.err)),
                    raw_body(reply.body),
                    Item::Text(moved),
                ]
            }
            Err(err) => vec![Item::Text(format!("{err:?}"))],
        };
        self.t.push(step, items);
    }

    /// Whether the server closes a raw connection (within the limit).
    pub async fn raw_closed(&mut self, conn: &mut RawConn, what: &str) {
        let closed = conn.closed_by_server().await;
        self.t.push(
            format!("raw {what} closed by server"),
            vec![Item::Text(closed.to_string())],
        );
    }
}

fn raw_body(body: Option<Response>) -> Item {
    match body {
        Some(
            Response::Create(CreateResponse { path })
            | Response::Create2(Create2Response { path, .. }),
        ) => Item::Text(path),
        Some(Response::Exists { stat } | Response::SetData(SetDataResponse { stat })) => {
            Item::Stat(stat)
        }
        Some(Response::GetData { data, .. }) => Item::Data(data),
        Some(Response::Sync { path }) => Item::Text(format!("sync {path}")),
        Some(Response::GetEphemerals { mut paths }) => {
            // A Java HashSet's order on the real server: compared as a set.
            paths.sort();
            Item::Text(format!("ephemerals [{}]", paths.join(" ")))
        }
        Some(Response::GetAllChildrenNumber { total }) => Item::Text(format!("total={total}")),
        Some(Response::GetChildren { mut children }) => {
            // A Java HashSet's order on the real server: compared as a set.
            children.sort();
            Item::Text(format!("children [{}]", children.join(" ")))
        }
        Some(Response::GetAcl { acl, stat }) => {
            let entries: Vec<String> = acl
                .iter()
                .map(|a| format!("{} {}:{}", a.perms, a.scheme, a.id))
                .collect();
            Item::Text(format!(
                "acl[{}] aversion={}",
                entries.join(", "),
                stat.aversion
            ))
        }
        Some(Response::SetAcl { stat }) => Item::Stat(stat),
        Some(Response::WhoAmI { clients }) => {
            // A Java HashSet's order on the real server: compared as a set.
            let mut ids: Vec<String> = clients
                .iter()
                .map(|c| format!("{}:{}", c.auth_scheme, c.user))
                .collect();
            ids.sort();
            Item::Text(format!("whoami [{}]", ids.join(" ")))
        }
        Some(Response::MultiRead { results }) => {
            let view: Vec<String> = results
                .into_iter()
                .map(|result| match result {
                    ReadResult::Children { mut children } => {
                        children.sort();
                        format!("children[{}]", children.join(" "))
                    }
                    ReadResult::Data { data, stat } => format!(
                        "data={:?} version={} children={}",
                        String::from_utf8_lossy(&data),
                        stat.version,
                        stat.num_children
                    ),
                    ReadResult::Error { err } => format!("{err:?}"),
                    other => format!("{other:?}"),
                })
                .collect();
            Item::Text(view.join(" "))
        }
        Some(Response::Multi { results }) => {
            let items = super::ops::multi_results(&results);
            let view: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Item::Text(text) => text.clone(),
                    _ => "stat".to_string(),
                })
                .collect();
            Item::Text(view.join(" "))
        }
        Some(other) => Item::Text(format!("{:?}", other_kind(&other))),
        None => Item::Text("-".into()),
    }
}

fn other_kind(response: &Response) -> String {
    let debug = format!("{response:?}");
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or("")
        .to_string()
}
