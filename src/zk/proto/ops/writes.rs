//! The writes: create in its four forms, delete, setData, multi and reconfig, and the records
//! their bodies share with a multi's sub-operations (`MultiOp`, `OpResult`), as
//! zookeeper.jute declares them.

use super::{OpSpec, Request, Response, row};
use crate::zk::proto::codes::{CreateMode, OpCode};
use crate::zk::proto::jute::{DecodeError, Reader, Record, Writer};
use crate::zk::proto::multi;
use crate::zk::proto::records::{Acl, Stat};

/// The writes' rows.
pub(super) static OPS: &[OpSpec] = &[
    row(
        OpCode::Create,
        "create",
        |r| Ok(Request::Create(r.record()?)),
        |req, w| {
            if let Request::Create(create) = req {
                w.record(create);
            }
        },
        |r| Ok(Response::Create(r.record()?)),
    ),
    row(
        OpCode::Create2,
        "create",
        |r| Ok(Request::Create2(r.record()?)),
        |req, w| {
            if let Request::Create2(create) = req {
                w.record(create);
            }
        },
        |r| Ok(Response::Create2(r.record()?)),
    ),
    row(
        OpCode::CreateContainer,
        "create",
        |r| Ok(Request::CreateContainer(r.record()?)),
        |req, w| {
            if let Request::CreateContainer(create) = req {
                w.record(create);
            }
        },
        |r| Ok(Response::Create2(r.record()?)),
    ),
    row(
        OpCode::CreateTtl,
        "create",
        |r| Ok(Request::CreateTtl(r.record()?)),
        |req, w| {
            if let Request::CreateTtl(create) = req {
                w.record(create);
            }
        },
        |r| Ok(Response::Create2(r.record()?)),
    ),
    row(
        OpCode::Delete,
        "delete",
        |r| Ok(Request::Delete(r.record()?)),
        |req, w| {
            if let Request::Delete(delete) = req {
                w.record(delete);
            }
        },
        |_| Ok(Response::Delete),
    ),
    row(
        OpCode::SetData,
        "set_data",
        |r| Ok(Request::SetData(r.record()?)),
        |req, w| {
            if let Request::SetData(set) = req {
                w.record(set);
            }
        },
        |r| Ok(Response::SetData(r.record()?)),
    ),
    row(
        OpCode::Multi,
        "multi",
        |r| {
            let ops = multi::read_ops(r)?;
            Ok(Request::Multi { ops })
        },
        |req, w| {
            if let Request::Multi { ops } = req {
                multi::write_ops(w, ops);
            }
        },
        |r| {
            let results = multi::read_results(r)?;
            Ok(Response::Multi { results })
        },
    ),
    row(
        OpCode::Reconfig,
        "reconfig",
        |r| {
            Ok(Request::Reconfig {
                joining_servers: r.ustring()?,
                leaving_servers: r.ustring()?,
                new_members: r.ustring()?,
                config_id: r.long()?,
            })
        },
        |req, w| {
            if let Request::Reconfig {
                joining_servers,
                leaving_servers,
                new_members,
                config_id,
            } = req
            {
                w.ustring(joining_servers);
                w.ustring(leaving_servers);
                w.ustring(new_members);
                w.long(*config_id);
            }
        },
        // A server that reconfigures answers with the new configuration (a
        // GetDataResponse); the simulated ones never do.
        |r| {
            Ok(Response::GetData {
                data: r.buffer()?,
                stat: r.record()?,
            })
        },
    ),
];

/// CreateRequest: the body of create, create2 and createContainer, and of a multi's create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateRequest {
    /// The node's path; for a sequential node, the prefix its number is appended to.
    pub path: String,
    /// Its data.
    pub data: Vec<u8>,
    /// Its ACL.
    pub acl: Vec<Acl>,
    /// Its kind, sent as the int `flags` (createContainer looks only at whether it is
    /// sequential).
    pub mode: CreateMode,
}

impl Record for CreateRequest {
    fn write(&self, w: &mut Writer) {
        write_create(w, &self.path, &self.data, &self.acl, self.mode.code());
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(CreateRequest {
            path: r.ustring()?,
            data: r.buffer()?,
            acl: r.records()?,
            mode: CreateMode::try_from(r.int()?)?,
        })
    }
}

/// CreateTTLRequest: createTTL's body, and a multi's TTL create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTtlRequest {
    /// The node's path; for a sequential mode, the prefix its number is appended to.
    pub path: String,
    /// Its data.
    pub data: Vec<u8>,
    /// Its ACL.
    pub acl: Vec<Acl>,
    /// Its kind, sent as the int `flags`: a TTL one.
    pub mode: CreateMode,
    /// Its time to live in milliseconds: 1 to 2⁴⁰ − 1.
    pub ttl_ms: i64,
}

impl Record for CreateTtlRequest {
    fn write(&self, w: &mut Writer) {
        write_create(w, &self.path, &self.data, &self.acl, self.mode.code());
        w.long(self.ttl_ms);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(CreateTtlRequest {
            path: r.ustring()?,
            data: r.buffer()?,
            acl: r.records()?,
            mode: CreateMode::try_from(r.int()?)?,
            ttl_ms: r.long()?,
        })
    }
}

/// The fields every create body starts with; `flags` as sent (a multi's create may name no
/// mode).
pub(in crate::zk::proto) fn write_create(
    w: &mut Writer,
    path: &str,
    data: &[u8],
    acl: &[Acl],
    flags: i32,
) {
    w.ustring(path);
    w.buffer(data);
    w.records(acl);
    w.int(flags);
}

/// DeleteRequest: delete's body, and a multi's delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteRequest {
    /// The node's path.
    pub path: String,
    /// The version it must be at; -1 for any.
    pub version: i32,
}

impl Record for DeleteRequest {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.path);
        w.int(self.version);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(DeleteRequest {
            path: r.ustring()?,
            version: r.int()?,
        })
    }
}

/// SetDataRequest: setData's body, and a multi's setData.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetDataRequest {
    /// The node's path.
    pub path: String,
    /// Its new data.
    pub data: Vec<u8>,
    /// The version it must be at; -1 for any.
    pub version: i32,
}

impl Record for SetDataRequest {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.path);
        w.buffer(&self.data);
        w.int(self.version);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(SetDataRequest {
            path: r.ustring()?,
            data: r.buffer()?,
            version: r.int()?,
        })
    }
}

/// CheckVersionRequest: a multi's check, which fails unless the node exists and, when
/// `version` is not -1, has that version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckVersionRequest {
    /// The node's path.
    pub path: String,
    /// The version it must be at; -1 for any.
    pub version: i32,
}

impl Record for CheckVersionRequest {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.path);
        w.int(self.version);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(CheckVersionRequest {
            path: r.ustring()?,
            version: r.int()?,
        })
    }
}

/// CreateResponse: create's reply, and a multi's create result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateResponse {
    /// The node's path, with any sequence suffix.
    pub path: String,
}

impl Record for CreateResponse {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.path);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(CreateResponse { path: r.ustring()? })
    }
}

/// Create2Response: the reply to create2, createContainer and createTTL, and a multi's
/// result for a container or a TTL node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Create2Response {
    /// The node's path, with any sequence suffix.
    pub path: String,
    /// The new node's Stat.
    pub stat: Stat,
}

impl Record for Create2Response {
    fn write(&self, w: &mut Writer) {
        w.ustring(&self.path);
        w.record(&self.stat);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(Create2Response {
            path: r.ustring()?,
            stat: r.record()?,
        })
    }
}

/// SetDataResponse: setData's reply, and a multi's setData result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetDataResponse {
    /// The node's Stat after the write.
    pub stat: Stat,
}

impl Record for SetDataResponse {
    fn write(&self, w: &mut Writer) {
        w.record(&self.stat);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(SetDataResponse { stat: r.record()? })
    }
}

/// A request of each of the family's ops and the replies they may get, for the codec's
/// tests (`ops::tests`, which checks that every op has both).
#[cfg(test)]
pub(super) fn examples() -> (Vec<Request>, Vec<(OpCode, Response)>) {
    use super::tests::stat;
    use crate::zk::proto::{ErrorCode, MultiOp, OpResult};
    let requests = vec![
        Request::Delete(DeleteRequest {
            path: "/lock/n-0000000001".into(),
            version: -1,
        }),
        Request::SetData(SetDataRequest {
            path: "/cfg".into(),
            data: vec![0, 0xff, 7],
            version: 4,
        }),
        Request::Multi { ops: vec![] },
        Request::Multi {
            ops: vec![
                MultiOp::create("/q/entry-", b"v", CreateMode::PersistentSequential),
                MultiOp::delete("/q/locks/entry-0000000001", 3),
                MultiOp::set_data("/q", &[0, 0xff], -1),
                MultiOp::check("/q", 2),
            ],
        },
        Request::Reconfig {
            joining_servers: "server.4=10.0.0.4:2888:3888;2181".into(),
            leaving_servers: String::new(),
            new_members: String::new(),
            config_id: -1,
        },
        Request::CreateContainer(CreateRequest {
            path: "/locks".into(),
            data: vec![1],
            acl: Acl::open_unsafe(),
            mode: CreateMode::Container,
        }),
        Request::CreateTtl(CreateTtlRequest {
            path: "/lease-".into(),
            data: vec![],
            acl: Acl::open_unsafe(),
            mode: CreateMode::PersistentSequentialWithTtl,
            ttl_ms: 30_000,
        }),
        Request::Create(CreateRequest {
            path: "/lock/n-".into(),
            data: vec![],
            acl: vec![
                Acl {
                    perms: 1,
                    scheme: "digest".into(),
                    id: "u:h".into(),
                },
                Acl::open_unsafe().remove(0),
            ],
            mode: CreateMode::PersistentSequential,
        }),
        Request::Create2(CreateRequest {
            path: "/lock/n-".into(),
            data: vec![],
            acl: Acl::open_unsafe(),
            mode: CreateMode::EphemeralSequential,
        }),
    ];
    let responses = vec![
        (
            OpCode::Reconfig,
            Response::GetData {
                data: b"server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181".to_vec(),
                stat: stat(),
            },
        ),
        (
            OpCode::Create,
            Response::Create(CreateResponse { path: "/x".into() }),
        ),
        (
            OpCode::Create2,
            Response::Create2(Create2Response {
                path: "/x0000000001".into(),
                stat: stat(),
            }),
        ),
        (
            OpCode::CreateContainer,
            Response::Create2(Create2Response {
                path: "/locks".into(),
                stat: stat(),
            }),
        ),
        (
            OpCode::CreateTtl,
            Response::Create2(Create2Response {
                path: "/lease-0000000003".into(),
                stat: stat(),
            }),
        ),
        (OpCode::Delete, Response::Delete),
        (
            OpCode::SetData,
            Response::SetData(SetDataResponse { stat: stat() }),
        ),
        (OpCode::Multi, Response::Multi { results: vec![] }),
        (
            OpCode::Multi,
            Response::Multi {
                results: vec![
                    OpResult::Create(CreateResponse {
                        path: "/q/entry-0000000004".into(),
                    }),
                    OpResult::Delete,
                    OpResult::SetData(SetDataResponse { stat: stat() }),
                    OpResult::Check,
                ],
            },
        ),
        (
            OpCode::Multi,
            Response::Multi {
                results: vec![
                    OpResult::Error { err: ErrorCode::Ok },
                    OpResult::Error {
                        err: ErrorCode::NoNode,
                    },
                    OpResult::Error {
                        err: ErrorCode::RuntimeInconsistency,
                    },
                ],
            },
        ),
    ];
    (requests, responses)
}
