//! multi (op 14), as ZooKeeper 3.8 runs it: `PrepRequestProcessor` checks the sub-operations
//! in order against the state the earlier ones leave, all inside one zxid; at the first
//! failure it rolls back and `DataTree.processTxn` reports Ok for the sub-operations before
//! the failing one, its error for that one, and RuntimeInconsistency for the rest. The
//! reply's header says Ok either way, and a failed multi still uses up its zxid. On success
//! the watches fire sub-operation by sub-operation, before the reply.

use super::output::Output;
use super::replica::Replica;
use crate::zk::proto::{
    CheckVersionRequest, Create2Response, CreateMode, CreateRequest, CreateResponse,
    CreateTtlRequest, DeleteRequest, ErrorCode, MultiOp, OpResult, Response, SetDataRequest,
    SetDataResponse,
};
use crate::zk::tree::{Tree, Txn};

/// What a successful sub-operation did, for the notifications and the history.
enum Effect {
    Created(String),
    Deleted(String),
    DataChanged(String),
}

impl Replica {
    /// The multi `ops`, applied as the txn `txn`.
    pub(super) fn multi(
        &mut self,
        txn: Txn<'_>,
        ops: Vec<MultiOp>,
        out: &mut Vec<Output>,
    ) -> Response {
        let count = ops.len();
        // The sub-operations run on a copy, kept only if all of them succeed.
        let mut trial = self.tree.clone();
        let mut results = Vec::with_capacity(count);
        let mut effects = Vec::with_capacity(count);
        for (index, op) in ops.into_iter().enumerate() {
            match self.run_op(&mut trial, op, txn) {
                Ok((result, effect)) => {
                    results.push(result);
                    effects.extend(effect);
                }
                Err(err) => {
                    let results = failed_results(count, index, err);
                    return Response::Multi { results };
                }
            }
        }
        self.tree = trial;
        for effect in effects {
            match effect {
                Effect::Created(path) => self.created(&path, txn, out),
                Effect::Deleted(path) => self.deleted(&path, txn.session, txn.zxid, out),
                Effect::DataChanged(path) => self.data_changed(&path, out),
            }
        }
        Response::Multi { results }
    }
}

impl Replica {
    /// One sub-operation on `tree`, with the same checks in the same order as the request of
    /// its kind. A container or TTL node is answered with its Stat, as 3.8 does.
    fn run_op(
        &self,
        tree: &mut Tree,
        op: MultiOp,
        txn: Txn<'_>,
    ) -> Result<(OpResult, Option<Effect>), ErrorCode> {
        Ok(match op {
            MultiOp::Create(CreateRequest {
                path,
                data,
                acl,
                mode,
            }) => {
                let created = tree.create(&path, data, &acl, mode, txn)?;
                let result = match mode {
                    CreateMode::Container => OpResult::Create2(Create2Response {
                        path: created.path.clone(),
                        stat: created.stat,
                    }),
                    _ => OpResult::Create(CreateResponse {
                        path: created.path.clone(),
                    }),
                };
                (result, Some(Effect::Created(created.path)))
            }
            MultiOp::CreateTtl(CreateTtlRequest {
                path,
                data,
                acl,
                mode,
                ttl_ms,
            }) => {
                self.check_ttl(mode, Some(ttl_ms))?;
                let sequential = mode.is_sequential();
                let created = tree.create_ttl(&path, data, &acl, sequential, ttl_ms, txn)?;
                let result = OpResult::Create2(Create2Response {
                    path: created.path.clone(),
                    stat: created.stat,
                });
                (result, Some(Effect::Created(created.path)))
            }
            MultiOp::CreateUnknownMode { .. } => return Err(ErrorCode::BadArguments),
            MultiOp::Delete(DeleteRequest { path, version }) => {
                tree.delete(&path, version, txn)?;
                (OpResult::Delete, Some(Effect::Deleted(path)))
            }
            MultiOp::SetData(SetDataRequest {
                path,
                data,
                version,
            }) => {
                let stat = tree.set_data(&path, data, version, txn)?;
                (
                    OpResult::SetData(SetDataResponse { stat }),
                    Some(Effect::DataChanged(path)),
                )
            }
            MultiOp::Check(CheckVersionRequest { path, version }) => {
                tree.check(&path, version, txn.who)?;
                (OpResult::Check, None)
            }
        })
    }
}

/// The results of a multi whose sub-operation `failed` ended with `err`.
fn failed_results(count: usize, failed: usize, err: ErrorCode) -> Vec<OpResult> {
    (0..count)
        .map(|index| OpResult::Error {
            err: match index.cmp(&failed) {
                std::cmp::Ordering::Less => ErrorCode::Ok,
                std::cmp::Ordering::Equal => err,
                std::cmp::Ordering::Greater => ErrorCode::RuntimeInconsistency,
            },
        })
        .collect()
}
