//! zookeeper-client (Rust), in this test's process, in its default configuration (an address
//! and nothing else): the operations it sends by default, some of them ZooKeeper 3.5+ ones
//! (create2, createContainer, createTTL, multiRead, removeWatches when a watcher is dropped,
//! addWatch, whoAmI), its multi writer and its Curator-style lock. One line per step, nothing
//! that varies between runs or servers.

use std::fmt::Debug;
use std::sync::mpsc::Sender;
use std::time::Duration;
use zookeeper_client as zk;

/// A bound on every wait, well inside the harness's time limit.
const WAIT: Duration = Duration::from_secs(10);
const BASE: &str = "/zookeeper-client";

/// Prints the transcript's lines to the harness.
struct Transcript(Sender<String>);

impl Transcript {
    fn say(&self, step: &str, text: impl Debug) {
        let _ = self.0.send(format!("{step}: {text:?}"));
    }
}

/// The Stat fields that do not vary between runs or servers.
fn stat(s: &zk::Stat) -> String {
    let owner = if s.ephemeral_owner != 0 {
        "session"
    } else {
        "0"
    };
    format!(
        "version={} cversion={} aversion={} owner={owner} len={} children={}",
        s.version, s.cversion, s.aversion, s.data_length, s.num_children
    )
}

/// Runs the program against the servers of the connect string `servers`, in a runtime of
/// its own.
pub fn transcript(servers: String, out: Sender<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(servers, Transcript(out)));
}

async fn connect(addr: &str) -> zk::Client {
    let connecting = zk::Client::connector()
        .with_session_timeout(WAIT)
        .connect(addr);
    tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connected in time")
        .expect("connected")
}

async fn run(addr: String, t: Transcript) {
    let (client, other) = (connect(&addr).await, connect(&addr).await);
    let open = zk::Acls::anyone_all();
    let plain = zk::CreateMode::Persistent.with_acls(open);
    let created = client.create(BASE, b"v", &plain).await;
    t.say("create", created.map(|(s, _)| stat(&s)));
    let path = format!("{BASE}/e-");
    let mode = zk::CreateMode::EphemeralSequential.with_acls(open);
    let created = client.create(&path, b"", &mode).await;
    t.say(
        "create ephemeral sequential",
        created.map(|(s, n)| (stat(&s), n.into_i64())),
    );
    let container = zk::CreateMode::Container.with_acls(open);
    let created = client.create(&format!("{BASE}/c"), b"", &container).await;
    t.say("create container", created.map(|(s, _)| stat(&s)));
    let ttl = plain.clone().with_ttl(Duration::from_secs(5));
    let created = client.create(&format!("{BASE}/t"), b"", &ttl).await;
    t.say("create ttl", created.map(|(s, _)| stat(&s)));
    let mut root = client.list_children("/").await.unwrap_or_default();
    root.retain(|name| name == "zookeeper" || BASE.ends_with(name.as_str()));
    root.sort();
    t.say("children of /", root);

    // A dropped watcher is removed on the server (removeWatches) before the change.
    let (data, s, watcher) = client.get_and_watch_data(BASE).await.expect("watched");
    t.say("get and watch", (data, stat(&s)));
    drop(watcher);
    let removed = client.sync(BASE).await;
    t.say("sync after dropping the watcher", removed);
    let set = other.set_data(BASE, b"w", None).await;
    t.say("other's set", set.map(|s| stat(&s)));

    let mode = zk::AddWatchMode::PersistentRecursive;
    let mut recursive = client.watch(BASE, mode).await.expect("a persistent watch");
    let r = format!("{BASE}/r");
    other.create(&r, b"", &plain).await.expect("created");
    other.set_data(&r, b"x", None).await.expect("set");
    for _ in 0..2 {
        let event = tokio::time::timeout(WAIT, recursive.changed()).await;
        t.say("recursive event", event.map(|e| (e.event_type, e.path)));
    }
    drop(recursive);
    let dropped = client.sync(BASE).await;
    t.say("sync after dropping the persistent watch", dropped);

    let mut writer = client.new_multi_writer();
    writer
        .add_create(&format!("{BASE}/m"), b"m", &plain)
        .expect("a create");
    writer.add_set_data(BASE, b"multi", None).expect("a set");
    writer.add_check_version(BASE, 2).expect("a check");
    t.say("multi", writer.commit().await.map(|results| results.len()));
    let mut writer = client.new_multi_writer();
    writer
        .add_create(&format!("{BASE}/m"), b"m", &plain)
        .expect("a create");
    t.say(
        "failing multi",
        writer.commit().await.map(|results| results.len()),
    );
    let mut reader = client.new_multi_reader();
    reader.add_get_data(BASE).expect("a read");
    reader
        .add_get_children(&format!("{BASE}/missing"))
        .expect("a read");
    t.say(
        "multi read",
        reader.commit().await.map(|results| results.len()),
    );

    t.say(
        "count descendants",
        client.count_descendants_number(BASE).await,
    );
    t.say(
        "ephemerals",
        client.list_ephemerals(BASE).await.map(|v| v.len()),
    );
    let acl = client.get_acl(BASE).await;
    t.say("get acl", acl.map(|(acl, s)| (acl, stat(&s))));
    t.say("who am i", client.list_auth_users().await);
    let config = client.get_config().await;
    t.say("config", config.map(|(data, s)| (data, stat(&s))));

    let prefix = zk::LockPrefix::new_curator(BASE, "lock-").expect("a prefix");
    let options = zk::LockOptions::new(open)
        .with_ancestor_options(container.clone())
        .expect("options");
    let lock = client.lock(prefix, b"", options.clone()).await;
    t.say(
        "lock",
        lock.as_ref().map(|l| l.lock_path().starts_with(BASE)),
    );
    let locks = format!("{BASE}/locks");
    let prefix = zk::LockPrefix::new_curator(&locks, "lock-").expect("a prefix");
    let nested = client.lock(prefix, b"", options).await;
    t.say(
        "lock under a new container",
        nested.as_ref().map(|l| l.lock_path().starts_with(&locks)),
    );
    drop(nested);
    drop(lock);

    t.say("auth", client.auth("digest", b"u:p").await);
    let mut users = client.list_auth_users().await.unwrap_or_default();
    users.sort_by(|a, b| a.scheme().cmp(b.scheme()));
    t.say("who am i after auth", users);
    t.say("state", client.state());
    let _ = t.0.send("done".to_string());
}
