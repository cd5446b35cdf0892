//! The znode tree of the simulated ZooKeeper server: nodes, stats, per-parent sequence
//! numbers and ephemeral ownership. Checks run in the order of ZooKeeper 3.8's
//! `PrepRequestProcessor`, so a request with several faults gets the same error code as
//! from the real server.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::zk::acl::{self, AuthId};
use crate::zk::proto::{Acl, CreateMode, ErrorCode, Stat};

/// One znode. `numChildren` and `dataLength` are derived when a [`Stat`] is built.
#[derive(Debug, Clone)]
struct Node {
    data: Vec<u8>,
    czxid: i64,
    mzxid: i64,
    pzxid: i64,
    ctime: i64,
    mtime: i64,
    version: i32,
    /// +1 per child create, and also the sequence counter: 3.8 appends the parent's stored
    /// cversion and bumps it on every create, while `DataTree.deleteNode` leaves it alone. So
    /// the numbers are shared by all prefixes, have gaps after deletes and wrap as an i32.
    /// The Stat shows a different number (see `stat`).
    cversion: i32,
    /// How many times its ACL was set.
    aversion: i32,
    /// Its ACL, an index into the tree's table (3.8 keeps a reference-counted cache too).
    acl: u32,
    lifetime: Lifetime,
    children: BTreeSet<String>,
}

/// What ends a node (3.8's `EphemeralType`, which it packs into `ephemeralOwner`; clients
/// see the owner of an ephemeral there, and 0 for all the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifetime {
    /// Only a delete.
    Persistent,
    /// Its session's end too.
    Ephemeral(i64),
    /// The server's reaper too, once it has had a child and has none.
    Container,
    /// The server's reaper too, once it has no children and went unchanged this many ms.
    Ttl(i64),
}

impl Lifetime {
    fn owner(self) -> i64 {
        match self {
            Lifetime::Ephemeral(session) => session,
            Lifetime::Persistent | Lifetime::Container | Lifetime::Ttl(_) => 0,
        }
    }
}

impl Node {
    fn new(data: Vec<u8>, zxid: i64, time: i64, acl: u32, lifetime: Lifetime) -> Self {
        Node {
            data,
            czxid: zxid,
            mzxid: zxid,
            pzxid: zxid,
            ctime: time,
            mtime: time,
            version: 0,
            cversion: 0,
            aversion: 0,
            acl,
            lifetime,
            children: BTreeSet::new(),
        }
    }

    /// `DataNode.copyStat`: the visible cversion counts child changes, creates and deletes,
    /// derived as `2 × creates − numChildren` in i32 arithmetic (checked against a real 3.8).
    fn stat(&self) -> Stat {
        let num_children = self.children.len() as i32;
        Stat {
            czxid: self.czxid,
            mzxid: self.mzxid,
            ctime: self.ctime,
            mtime: self.mtime,
            version: self.version,
            cversion: self.cversion.wrapping_mul(2).wrapping_sub(num_children),
            aversion: self.aversion,
            ephemeral_owner: self.lifetime.owner(),
            data_length: self.data.len() as i32,
            num_children,
            pzxid: self.pzxid,
        }
    }
}

/// A successful create: the final path (with any sequence suffix) and the new node's stat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub path: String,
    pub stat: Stat,
}

/// Who writes, in which txn, at what wall-clock time (ctime, mtime), with which identities
/// (its connection's, for the ACL checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Txn<'a> {
    pub session: i64,
    pub zxid: i64,
    pub time: i64,
    pub who: &'a [AuthId],
}

/// The nodes a 3.8 server starts with, in creation order, whether their ACL is read-only, and
/// their ACL version: the root and the `/zookeeper` subtree (`DataTree`'s constructor; its
/// config node is set once more, as `-1`, when a standalone server starts). None counts as a
/// child create of its parent, and clients may not delete them.
const SYSTEM_NODES: [(&str, bool, i32); 4] = [
    ("/", false, 0),
    ("/zookeeper", false, 0),
    ("/zookeeper/quota", false, 0),
    ("/zookeeper/config", true, -1),
];

#[derive(Debug, Clone)]
pub struct Tree {
    /// Keyed by full path; the root is "/".
    nodes: BTreeMap<String, Node>,
    /// Session id → paths of its ephemeral nodes.
    ephemerals: BTreeMap<i64, BTreeSet<String>>,
    /// Containers and TTL nodes: what the reaper looks at.
    reapable: BTreeSet<String>,
    /// The distinct ACLs nodes hold; the root's, the open ACL, first.
    acls: Vec<Vec<Acl>>,
    /// Where each new node's sequence counter starts (0 in ZooKeeper).
    seq_start: i32,
}

impl Default for Tree {
    fn default() -> Self {
        Tree::with_seq_start(0)
    }
}

impl Tree {
    /// A tree whose nodes' sequence counters start at `seq_start`, as if that many children
    /// had come and gone: the wrap past 2³¹−1 (Z6) is then a few creates away.
    pub fn with_seq_start(seq_start: i32) -> Self {
        let mut tree = Tree {
            nodes: BTreeMap::new(),
            ephemerals: BTreeMap::new(),
            reapable: BTreeSet::new(),
            acls: vec![Acl::open_unsafe()],
            seq_start,
        };
        let read_only = tree.intern(Cow::Owned(vec![Acl {
            perms: acl::READ,
            ..Acl::open_unsafe().remove(0)
        }]));
        for (path, acl, aversion) in SYSTEM_NODES {
            let mut node = Node::new(Vec::new(), 0, 0, 0, Lifetime::Persistent);
            node.cversion = seq_start;
            node.aversion = aversion;
            if acl {
                node.acl = read_only;
            }
            if path != "/" {
                let parent = tree.nodes.get_mut(parent_of(path));
                parent.map(|p| p.children.insert(child_name(path).to_string()));
            }
            tree.nodes.insert(path.to_string(), node);
        }
        tree
    }

    /// create: a path without '/' or with NUL → BadArguments; bad ACL → InvalidAcl; missing
    /// parent → NoNode; no CREATE on the parent → NoAuth; the suffix is appended; the final
    /// path is validated (BadArguments); NodeExists; NoChildrenForEphemerals. Nothing changes
    /// on failure. The ACL is stored as `fixupACL` leaves it. A container mode makes a
    /// container; a TTL mode needs [`Tree::create_ttl`].
    pub fn create(
        &mut self,
        path: &str,
        data: Vec<u8>,
        acl: &[Acl],
        mode: CreateMode,
        txn: Txn<'_>,
    ) -> Result<Created, ErrorCode> {
        let lifetime = match mode {
            mode if mode.is_ephemeral() => Lifetime::Ephemeral(txn.session),
            CreateMode::Container => Lifetime::Container,
            _ => Lifetime::Persistent,
        };
        self.insert(path, data, acl, mode.is_sequential(), lifetime, txn)
    }

    /// A container, numbered when `sequential`, as createContainer makes one whatever its
    /// mode says otherwise.
    pub fn create_container(
        &mut self,
        path: &str,
        data: Vec<u8>,
        acl: &[Acl],
        sequential: bool,
        txn: Txn<'_>,
    ) -> Result<Created, ErrorCode> {
        self.insert(path, data, acl, sequential, Lifetime::Container, txn)
    }

    /// A node with a time to live of `ttl_ms` (checked by the caller), numbered when
    /// `sequential`.
    pub fn create_ttl(
        &mut self,
        path: &str,
        data: Vec<u8>,
        acl: &[Acl],
        sequential: bool,
        ttl_ms: i64,
        txn: Txn<'_>,
    ) -> Result<Created, ErrorCode> {
        self.insert(path, data, acl, sequential, Lifetime::Ttl(ttl_ms), txn)
    }

    fn insert(
        &mut self,
        path: &str,
        data: Vec<u8>,
        acl: &[Acl],
        sequential: bool,
        lifetime: Lifetime,
        txn: Txn<'_>,
    ) -> Result<Created, ErrorCode> {
        let parent_path = parent_checked(path)?;
        let acl = acl::fixup(acl, txn.who)?;
        let parent = self.nodes.get(parent_path).ok_or(ErrorCode::NoNode)?;
        self.allow(parent, acl::CREATE, txn.who)?;
        let full = if sequential {
            format!("{path}{:010}", parent.cversion)
        } else {
            path.to_string()
        };
        validate_path(&full)?;
        if self.nodes.contains_key(&full) {
            return Err(ErrorCode::NodeExists);
        }
        if matches!(parent.lifetime, Lifetime::Ephemeral(_)) {
            return Err(ErrorCode::NoChildrenForEphemerals);
        }
        let Txn { zxid, time, .. } = txn;
        let name = child_name(&full).to_string();
        let parent = self.nodes.get_mut(parent_path).ok_or(ErrorCode::NoNode)?;
        parent.cversion = parent.cversion.wrapping_add(1);
        parent.pzxid = zxid;
        parent.children.insert(name);
        let acl = self.intern(acl);
        let mut node = Node::new(data, zxid, time, acl, lifetime);
        node.cversion = self.seq_start;
        let stat = node.stat();
        self.nodes.insert(full.clone(), node);
        match lifetime {
            Lifetime::Ephemeral(session) => {
                self.ephemerals
                    .entry(session)
                    .or_default()
                    .insert(full.clone());
            }
            Lifetime::Container | Lifetime::Ttl(_) => {
                self.reapable.insert(full.clone());
            }
            Lifetime::Persistent => {}
        }
        Ok(Created { path: full, stat })
    }

    /// delete: a path without '/', with NUL, or a system node (the root, `/zookeeper` and
    /// its two children) → BadArguments; NoNode (parent); no DELETE on the parent → NoAuth;
    /// NoNode (node); BadVersion; NotEmpty.
    pub fn delete(&mut self, path: &str, version: i32, txn: Txn<'_>) -> Result<(), ErrorCode> {
        if SYSTEM_NODES.iter().any(|(system, ..)| *system == path) {
            return Err(ErrorCode::BadArguments);
        }
        let parent_path = parent_checked(path)?;
        let parent = self.nodes.get(parent_path).ok_or(ErrorCode::NoNode)?;
        self.allow(parent, acl::DELETE, txn.who)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        check_version(node.version, version)?;
        if !node.children.is_empty() {
            return Err(ErrorCode::NotEmpty);
        }
        self.remove(path, txn.zxid);
        Ok(())
    }

    /// setData: invalid path → BadArguments; NoNode; no WRITE → NoAuth; BadVersion.
    pub fn set_data(
        &mut self,
        path: &str,
        data: Vec<u8>,
        version: i32,
        txn: Txn<'_>,
    ) -> Result<Stat, ErrorCode> {
        validate_path(path)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        self.allow(node, acl::WRITE, txn.who)?;
        let node = self.nodes.get_mut(path).ok_or(ErrorCode::NoNode)?;
        check_version(node.version, version)?;
        node.version = node.version.wrapping_add(1);
        node.data = data;
        node.mzxid = txn.zxid;
        node.mtime = txn.time;
        Ok(node.stat())
    }

    /// check (a multi's CheckVersion): invalid path → BadArguments; NoNode; no READ →
    /// NoAuth; BadVersion.
    pub fn check(&self, path: &str, version: i32, who: &[AuthId]) -> Result<(), ErrorCode> {
        validate_path(path)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        self.allow(node, acl::READ, who)?;
        check_version(node.version, version)
    }

    /// setACL: invalid path → BadArguments; bad ACL → InvalidAcl; NoNode; no ADMIN → NoAuth;
    /// BadVersion (against the aversion). The node's Stat after it.
    pub fn set_acl(
        &mut self,
        path: &str,
        acl: &[Acl],
        version: i32,
        who: &[AuthId],
    ) -> Result<Stat, ErrorCode> {
        validate_path(path)?;
        let acl = acl::fixup(acl, who)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        self.allow(node, acl::ADMIN, who)?;
        check_version(node.aversion, version)?;
        let acl = self.intern(acl);
        let node = self.nodes.get_mut(path).ok_or(ErrorCode::NoNode)?;
        node.aversion = node.aversion.wrapping_add(1);
        node.acl = acl;
        Ok(node.stat())
    }

    /// getACL: NoNode (the path is not validated); neither READ nor ADMIN → NoAuth. Without
    /// ADMIN, digests show no hash.
    pub fn get_acl(&self, path: &str, who: &[AuthId]) -> Result<(Vec<Acl>, Stat), ErrorCode> {
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        self.allow(node, acl::READ | acl::ADMIN, who)?;
        let acl = &self.acls[node.acl as usize];
        let shown = match self.allow(node, acl::ADMIN, who) {
            Ok(()) => acl.clone(),
            Err(_) => acl::masked(acl),
        };
        Ok((shown, node.stat()))
    }

    /// Whether `who` holds `perm` on the existing node `path` (NoAuth if not), as the reads
    /// check after finding it.
    pub fn permits(&self, path: &str, perm: i32, who: &[AuthId]) -> Result<(), ErrorCode> {
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        self.allow(node, perm, who)
    }

    fn allow(&self, node: &Node, perm: i32, who: &[AuthId]) -> Result<(), ErrorCode> {
        match acl::permits(&self.acls[node.acl as usize], perm, who) {
            true => Ok(()),
            false => Err(ErrorCode::NoAuth),
        }
    }

    /// The table index of `acl`, added if new.
    fn intern(&mut self, acl: Cow<'_, [Acl]>) -> u32 {
        let index = match self.acls.iter().position(|known| known[..] == acl[..]) {
            Some(index) => index,
            None => {
                self.acls.push(acl.into_owned());
                self.acls.len() - 1
            }
        };
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// The containers and TTL nodes 3.8's `ContainerManager` would delete at wall-clock time
    /// `wall_ms`, in path order: childless containers that have had a child (their stored
    /// cversion is positive), and childless TTL nodes unchanged for longer than their TTL.
    pub fn reapable(&self, wall_ms: i64) -> Vec<String> {
        self.reapable
            .iter()
            .filter(|path| {
                let node = &self.nodes[path.as_str()];
                node.children.is_empty()
                    && match node.lifetime {
                        Lifetime::Container => node.cversion > 0,
                        Lifetime::Ttl(ttl_ms) => wall_ms.saturating_sub(node.mtime) > ttl_ms,
                        Lifetime::Persistent | Lifetime::Ephemeral(_) => false,
                    }
            })
            .cloned()
            .collect()
    }

    /// deleteContainer, the reaper's request: invalid path → BadArguments; NoNode; NotEmpty;
    /// an ephemeral → BadVersion (3.8's choice of code).
    pub fn delete_container(&mut self, path: &str, zxid: i64) -> Result<(), ErrorCode> {
        parent_checked(path)?;
        let node = self.nodes.get(path).ok_or(ErrorCode::NoNode)?;
        if !node.children.is_empty() {
            return Err(ErrorCode::NotEmpty);
        }
        if matches!(node.lifetime, Lifetime::Ephemeral(_)) {
            return Err(ErrorCode::BadVersion);
        }
        self.remove(path, zxid);
        Ok(())
    }

    /// Deletes every ephemeral of `session` in one txn; returns their paths in path order.
    pub fn kill_session(&mut self, session: i64, zxid: i64) -> Vec<String> {
        let paths: Vec<String> = self
            .ephemerals
            .remove(&session)
            .unwrap_or_default()
            .into_iter()
            .collect();
        for path in &paths {
            self.remove(path, zxid);
        }
        paths
    }

    pub fn stat(&self, path: &str) -> Option<Stat> {
        self.nodes.get(path).map(Node::stat)
    }

    pub fn data(&self, path: &str) -> Option<(Vec<u8>, Stat)> {
        self.nodes.get(path).map(|n| (n.data.clone(), n.stat()))
    }

    /// Child names in an arbitrary but deterministic order (see [`scatter_key`]).
    pub fn children(&self, path: &str) -> Option<(Vec<String>, Stat)> {
        let node = self.nodes.get(path)?;
        Some((scattered(&node.children), node.stat()))
    }

    /// The paths of `session`'s ephemeral nodes that start with `prefix` (as strings), in an
    /// arbitrary but deterministic order: the real server's is a Java `HashSet`'s.
    pub fn ephemerals(&self, session: i64, prefix: &str) -> Vec<String> {
        let Some(paths) = self.ephemerals.get(&session) else {
            return Vec::new();
        };
        scattered(paths.iter().filter(|path| path.starts_with(prefix)))
    }

    /// How many nodes lie below `path` at any depth, if it exists.
    pub fn descendants(&self, path: &str) -> Option<usize> {
        self.nodes.get(path)?;
        if path == "/" {
            return Some(self.nodes.len() - 1);
        }
        let below = format!("{path}/");
        let count = self
            .nodes
            .range(below.clone()..)
            .take_while(|(key, _)| key.starts_with(&below))
            .count();
        Some(count)
    }

    /// Removes an existing childless node and updates its parent and ephemeral index.
    fn remove(&mut self, path: &str, zxid: i64) {
        let Some(node) = self.nodes.remove(path) else {
            return;
        };
        if let Some(parent) = self.nodes.get_mut(parent_of(path)) {
            parent.children.remove(child_name(path));
            parent.pzxid = parent.pzxid.max(zxid);
        }
        match node.lifetime {
            Lifetime::Ephemeral(session) => {
                if let Some(paths) = self.ephemerals.get_mut(&session) {
                    paths.remove(path);
                    if paths.is_empty() {
                        self.ephemerals.remove(&session);
                    }
                }
            }
            Lifetime::Container | Lifetime::Ttl(_) => {
                self.reapable.remove(path);
            }
            Lifetime::Persistent => {}
        }
    }

    #[cfg(test)]
    pub(crate) fn set_cversion(&mut self, path: &str, cversion: i32) {
        if let Some(node) = self.nodes.get_mut(path) {
            node.cversion = cversion;
        }
    }
}

/// The parent of a path as the server computes it: everything before the last '/', with ""
/// meaning the root.
pub fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

fn child_name(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// The cheap first check of create and delete (`validatePathForCreate`,
/// `getParentPathAndValidate`): the full path check comes later, after the parent lookup.
fn parent_checked(path: &str) -> Result<&str, ErrorCode> {
    if !path.contains('/') || path.contains('\0') {
        return Err(ErrorCode::BadArguments);
    }
    Ok(parent_of(path))
}

fn check_version(current: i32, expected: i32) -> Result<(), ErrorCode> {
    if expected != -1 && expected != current {
        return Err(ErrorCode::BadVersion);
    }
    Ok(())
}

/// `PathUtils.validatePath`: absolute, no trailing '/', no empty, "." or ".." component,
/// no NUL or other character the Java client rejects. Java checks UTF-16 units, so
/// characters outside the BMP (surrogate pairs) are rejected as well.
pub fn validate_path(path: &str) -> Result<(), ErrorCode> {
    if !path.starts_with('/') {
        return Err(ErrorCode::BadArguments);
    }
    if path == "/" {
        return Ok(());
    }
    if path.ends_with('/') {
        return Err(ErrorCode::BadArguments);
    }
    let bad_part = path[1..]
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..");
    let bad_char = path.chars().any(|c| {
        let c = c as u32;
        c <= 0x1f || (0x7f..=0x9f).contains(&c) || (0xd800..=0xf8ff).contains(&c) || c >= 0xfff0
    });
    if bad_part || bad_char {
        return Err(ErrorCode::BadArguments);
    }
    Ok(())
}

/// `names` in the order of their [`scatter_key`]s. Names are unique, so the order is the
/// keys' (an unstable sort gives the same), and each key is computed once.
fn scattered<'a>(names: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut keyed: Vec<(u64, &String)> = names
        .into_iter()
        .map(|name| (scatter_key(name), name))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, name)| name.clone()).collect()
}

/// Sort key that scatters names: the real server returns children in Java `HashSet` order,
/// which callers must not rely on. A mixing hash (FNV-1a, then a splitmix64 finaliser)
/// keeps the order deterministic while making "lock-0000000001", "lock-0000000002", …
/// come back out of order, so a recipe that forgets to sort is caught.
fn scatter_key(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests;
