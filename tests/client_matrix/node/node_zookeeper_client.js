// node-zookeeper-client (pure JavaScript) in its default configuration (a connection string,
// nothing else), two sessions: the node kinds, children, data and exists watches and the order
// of their events, a transaction (multi) that applies and one that fails, ACLs with digest
// auth, and cleanup. Prints one line per step, `step: result`, with nothing that varies
// between runs or servers, so that the transcripts against a real ZooKeeper and
// `locksim serve zk` can be compared line by line (tests/client_matrix.rs).
//
// Usage: node node_zookeeper_client.js PORT

'use strict';

const zookeeper = require('node-zookeeper-client');
const { say, show, step, within } = require('./transcript');

const PORT = Number(process.argv[2]);
const BASE = '/node-zookeeper-client';
const { CreateMode, ACL, Permission, Id } = zookeeper;

function open() {
  const client = zookeeper.createClient(`127.0.0.1:${PORT}`);
  const connected = new Promise((resolve) => client.once('connected', resolve));
  client.connect();
  return within(connected).then(() => client);
}

// The callback API as promises: `call(c, 'create', path, ...)` resolves to the callback's
// results after the error (one value, or an array of them).
function call(client, method, ...args) {
  return new Promise((resolve, reject) => {
    client[method](...args, (error, ...results) => {
      if (error) reject(error);
      else resolve(results.length > 1 ? results : results[0]);
    });
  });
}

// A Stat's fields that do not vary between runs or servers.
function stat(s) {
  const owner = s.ephemeralOwner.readInt32BE(0) !== 0 || s.ephemeralOwner.readInt32BE(4) !== 0;
  return `version=${s.version} cversion=${s.cversion} aversion=${s.aversion} ` +
    `owner=${owner ? 'session' : '0'} len=${s.dataLength} children=${s.numChildren}`;
}

// A watcher that resolves with the first event it sees, as `type path`.
function watcher() {
  let fire;
  const fired = new Promise((resolve) => { fire = resolve; });
  return { callback: (event) => fire(`${event.getName()} ${event.getPath()}`), fired };
}

async function main() {
  const a = await open();
  const b = await open();
  say('connected', 'both');
  const open_acl = ACL.OPEN_ACL_UNSAFE;
  await step('create base', () => call(a, 'create', BASE, Buffer.from('v'), open_acl, CreateMode.PERSISTENT));
  await step('create ephemeral sequential', () =>
    call(a, 'create', `${BASE}/e-`, Buffer.from(''), open_acl, CreateMode.EPHEMERAL_SEQUENTIAL));
  await step('create sequential', () =>
    call(a, 'create', `${BASE}/p-`, Buffer.from(''), open_acl, CreateMode.PERSISTENT_SEQUENTIAL));
  await step('create again', () => call(a, 'create', BASE, Buffer.from(''), open_acl, CreateMode.PERSISTENT));
  await step('create under an ephemeral', () =>
    call(a, 'create', `${BASE}/e-0000000000/x`, Buffer.from(''), open_acl, CreateMode.PERSISTENT));
  await step('children of /', async () => {
    const [children] = await call(a, 'getChildren', '/');
    return children.filter((c) => c === 'zookeeper' || BASE.endsWith(c)).sort();
  });
  await step('children', async () => (await call(a, 'getChildren', BASE))[0].sort());

  const data = watcher();
  await step('get data, watching', async () => {
    const [value, s] = await call(a, 'getData', BASE, data.callback);
    return `${value.toString()} ${stat(s)}`;
  });
  const missing = watcher();
  await step('exists of a missing node, watching', () => call(a, 'exists', `${BASE}/later`, missing.callback));
  const children = watcher();
  await step('children, watching', async () => (await call(a, 'getChildren', BASE, children.callback))[0].length);
  await step('other sets data', async () => stat(await call(b, 'setData', BASE, Buffer.from('w'), -1)));
  await step('data watch', () => within(data.fired));
  await step('other creates', () => call(b, 'create', `${BASE}/later`, Buffer.from(''), open_acl, CreateMode.PERSISTENT));
  await step('exists watch', () => within(missing.fired));
  await step('children watch', () => within(children.fired));
  await step('set at a stale version', () => call(a, 'setData', BASE, Buffer.from('x'), 0));

  await step('transaction', async () => {
    const results = await new Promise((resolve, reject) => {
      a.transaction()
        .create(`${BASE}/t`, Buffer.from('t'), open_acl, CreateMode.PERSISTENT)
        .setData(BASE, Buffer.from('t'), -1)
        .check(BASE, 2)
        .remove(`${BASE}/later`, -1)
        .commit((error, replies) => (error ? reject(error) : resolve(replies)));
    });
    return results.length;
  });
  await step('failing transaction', async () => {
    const outcome = await new Promise((resolve) => {
      a.transaction()
        .create(`${BASE}/u`, Buffer.from(''), open_acl, CreateMode.PERSISTENT)
        .check(BASE, 99)
        .commit((error, replies) => resolve(`${error ? error.getName() : 'ok'} ${show(replies.map((r) => r.err))}`));
    });
    return outcome;
  });
  await step('after the failing transaction', () => call(a, 'exists', `${BASE}/u`));

  await step('get acl', async () => {
    const [acls, s] = await call(a, 'getACL', BASE);
    return `${acls.map((x) => `${x.permission} ${x.id.scheme}:${x.id.id}`).join(', ')} ${stat(s)}`;
  });
  await step('set acl', async () => stat(await call(a, 'setACL', BASE, open_acl, 0)));
  a.addAuthInfo('digest', Buffer.from('u:p'));
  const mine = [new ACL(Permission.ALL, new Id('auth', '')), new ACL(Permission.READ, new Id('world', 'anyone'))];
  await step('create by auth', () => call(a, 'create', `${BASE}/d`, Buffer.from('d'), mine, CreateMode.PERSISTENT));
  await step('other reads it', async () => (await call(b, 'getData', `${BASE}/d`))[0].toString());
  await step('other writes it', () => call(b, 'setData', `${BASE}/d`, Buffer.from('x'), -1));
  await step('owner writes it', async () => stat(await call(a, 'setData', `${BASE}/d`, Buffer.from('x'), -1)));

  await step('remove recursively', () => call(a, 'removeRecursive', BASE, -1));
  await step('gone', () => call(b, 'exists', BASE));
  a.close();
  b.close();
}

main().then(
  () => { process.stdout.write('done\n'); process.exit(0); },
  (error) => { process.stderr.write(`${error.stack}\n`); process.exit(1); },
);
