//! The client operations a case script records: each call writes its outcome (reply code,
//! path, data, children, Stat) to the transcript and keeps any watch it set under a name.

use locksim::zk::proto::{
    CheckVersionRequest, Create2Response, CreateMode, CreateRequest, CreateResponse,
    CreateTtlRequest, DeleteRequest, MultiOp, OpResult, SetDataRequest, SetDataResponse, Stat,
};
use tokio::time::timeout;

use super::script::{Cx, LIMIT, S};
use super::transcript::Item;

impl Cx {
    pub async fn create(
        &mut self,
        s: S,
        rel: &str,
        data: &str,
        mode: CreateMode,
    ) -> Option<String> {
        let path = self.p(rel);
        let step = self.step(s, format!("create {path} {mode:?} {data:?}"));
        let client = self.sessions[s].client.clone();
        match self.run(client.create(&path, data.as_bytes(), mode)).await {
            Ok(created) => {
                self.t.push(step, vec![Item::Text(format!("ok {created}"))]);
                Some(created)
            }
            Err(items) => {
                self.t.push(step, items);
                None
            }
        }
    }

    /// A create with an absolute path as given (for malformed paths).
    pub async fn create_abs(&mut self, s: S, path: &str, mode: CreateMode) {
        let step = self.step(s, format!("create {path:?} {mode:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.create(path, b"", mode)).await {
            Ok(created) => vec![Item::Text(format!("ok {created}"))],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn create2(&mut self, s: S, rel: &str, data: &str, mode: CreateMode) {
        let path = self.p(rel);
        let step = self.step(s, format!("create2 {path} {mode:?} {data:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.create2(&path, data.as_bytes(), mode)).await {
            Ok((created, stat)) => vec![Item::Text(format!("ok {created}")), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn delete(&mut self, s: S, rel: &str, version: i32) {
        self.delete_abs(s, &self.p(rel), version).await;
    }

    pub async fn delete_abs(&mut self, s: S, path: &str, version: i32) {
        let step = self.step(s, format!("delete {path:?} v{version}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.delete(path, version)).await {
            Ok(()) => vec![Item::Text("ok".into())],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn set_data(&mut self, s: S, rel: &str, data: &str, version: i32) {
        let path = self.p(rel);
        let step = self.step(s, format!("setData {path} {data:?} v{version}"));
        let client = self.sessions[s].client.clone();
        let items = match self
            .run(client.set_data(&path, data.as_bytes(), version))
            .await
        {
            Ok(stat) => vec![Item::Text("ok".into()), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn exists(&mut self, s: S, rel: &str) {
        self.exists_abs(s, &self.p(rel)).await;
    }

    pub async fn exists_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("exists {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.exists(path)).await {
            Ok(stat) => stat_or_none(stat),
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// exists with a watch kept as `name`.
    pub async fn exists_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("exists+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.exists_watch(&path)).await {
            Ok((stat, watch)) => {
                self.watches.insert(name.to_string(), watch);
                stat_or_none(stat)
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_data(&mut self, s: S, rel: &str) {
        self.get_data_abs(s, &self.p(rel)).await;
    }

    pub async fn get_data_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("getData {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_data(path)).await {
            Ok((data, stat)) => vec![Item::Data(data), Item::Stat(stat)],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// getData with a watch kept as `name` (when the server set one).
    pub async fn get_data_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getData+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_data_watch(&path)).await {
            Ok((data, stat, watch)) => {
                self.watches.insert(name.to_string(), watch);
                vec![Item::Data(data), Item::Stat(stat)]
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_children(&mut self, s: S, rel: &str) {
        self.get_children_abs(s, &self.p(rel)).await;
    }

    pub async fn get_children_abs(&mut self, s: S, path: &str) {
        let step = self.step(s, format!("getChildren {path:?}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children(path)).await {
            Ok(children) => vec![Item::Children(children.into_iter().collect())],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn get_children2(&mut self, s: S, rel: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getChildren2 {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children2(&path)).await {
            Ok((children, stat)) => vec![
                Item::Children(children.into_iter().collect()),
                Item::Stat(stat),
            ],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// getChildren with a watch kept as `name` (when the server set one).
    pub async fn get_children_watch(&mut self, s: S, rel: &str, name: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("getChildren+watch {name} {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.get_children_watch(&path)).await {
            Ok((children, watch)) => {
                self.watches.insert(name.to_string(), watch);
                vec![Item::Children(children.into_iter().collect())]
            }
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    /// A multi; each op's path is relative to the case's subtree (as with `p`).
    pub async fn multi(&mut self, s: S, ops: Vec<MultiOp>) {
        let ops: Vec<MultiOp> = ops.into_iter().map(|op| self.rebase(op)).collect();
        let described: Vec<String> = ops.iter().map(describe).collect();
        let step = self.step(s, format!("multi [{}]", described.join("; ")));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.multi(ops)).await {
            Ok(results) => multi_results(&results),
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    pub async fn sync(&mut self, s: S, rel: &str) {
        let path = self.p(rel);
        let step = self.step(s, format!("sync {path}"));
        let client = self.sessions[s].client.clone();
        let items = match self.run(client.sync(&path)).await {
            Ok(echoed) => vec![Item::Text(format!("ok {echoed}"))],
            Err(items) => items,
        };
        self.t.push(step, items);
    }

    fn rebase(&self, mut op: MultiOp) -> MultiOp {
        let (MultiOp::Create(CreateRequest { path, .. })
        | MultiOp::CreateTtl(CreateTtlRequest { path, .. })
        | MultiOp::CreateUnknownMode { path, .. }
        | MultiOp::Delete(DeleteRequest { path, .. })
        | MultiOp::SetData(SetDataRequest { path, .. })
        | MultiOp::Check(CheckVersionRequest { path, .. })) = &mut op;
        *path = self.p(path);
        op
    }

    pub async fn close(&mut self, s: S) {
        let step = self.step(s, "close".into());
        let client = self.sessions[s].client.clone();
        let items = match timeout(LIMIT, client.close()).await {
            Ok(()) => vec![Item::Text("done".into())],
            Err(_) => vec![Item::Text("no answer".into())],
        };
        self.t.push(step, items);
    }
}

pub(super) fn describe(op: &MultiOp) -> String {
    match op {
        MultiOp::Create(CreateRequest {
            path, data, mode, ..
        }) => format!("create {path} {mode:?} {:?}", String::from_utf8_lossy(data)),
        MultiOp::CreateTtl(CreateTtlRequest {
            path,
            data,
            mode,
            ttl_ms,
            ..
        }) => format!(
            "createTTL {path} {mode:?} {ttl_ms} ms {:?}",
            String::from_utf8_lossy(data)
        ),
        MultiOp::CreateUnknownMode { path, flags, .. } => {
            format!("create {path} flags {flags}")
        }
        MultiOp::Delete(DeleteRequest { path, version }) => format!("delete {path} v{version}"),
        MultiOp::SetData(SetDataRequest {
            path,
            data,
            version,
        }) => format!(
            "setData {path} {:?} v{version}",
            String::from_utf8_lossy(data)
        ),
        MultiOp::Check(CheckVersionRequest { path, version }) => format!("check {path} v{version}"),
    }
}

/// A multi's results, one item (or two, for a Stat) per op.
pub fn multi_results(results: &[OpResult]) -> Vec<Item> {
    let mut items = vec![Item::Text(format!("{} results:", results.len()))];
    for result in results {
        match result {
            OpResult::Create(CreateResponse { path }) => {
                items.push(Item::Text(format!("created {path}")))
            }
            OpResult::Create2(Create2Response { path, stat }) => {
                items.push(Item::Text(format!("created {path}")));
                items.push(Item::Stat(*stat));
            }
            OpResult::Delete => items.push(Item::Text("deleted".into())),
            OpResult::SetData(SetDataResponse { stat }) => {
                items.push(Item::Text("set".into()));
                items.push(Item::Stat(*stat));
            }
            OpResult::Check => items.push(Item::Text("checked".into())),
            OpResult::Error { err } => items.push(Item::Text(format!("error {err:?}"))),
        }
    }
    items
}

fn stat_or_none(stat: Option<Stat>) -> Vec<Item> {
    match stat {
        Some(stat) => vec![Item::Stat(stat)],
        None => vec![Item::Text("none".into())],
    }
}
