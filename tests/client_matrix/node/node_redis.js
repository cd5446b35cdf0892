// node-redis (npm `redis`) in its default configuration (host and port, nothing else) through
// the families a lock library uses. Prints one line per step, `step: result`, with nothing that
// varies between runs or servers, so that the transcripts against redis-server and
// `locksim serve redis` can be compared line by line (tests/client_matrix.rs). A failed step
// prints its error and the program goes on; every wait is bounded.
//
// Usage: node node_redis.js PORT

'use strict';

const { createClient, defineScript } = require('redis');
const { say, step, within, WAIT_MS } = require('./transcript');

const PORT = Number(process.argv[2]);

// A script helper: compare-and-delete, the classic lock release. Defining scripts is not a
// connection option; the connection stays in its defaults.
const scripts = {
  release: defineScript({
    SCRIPT:
      "if redis.call('GET', KEYS[1]) == ARGV[1] then " +
      "return redis.call('DEL', KEYS[1]) else return 0 end",
    NUMBER_OF_KEYS: 1,
    parseCommand(parser, key, token) {
      parser.pushKey(key);
      parser.push(token);
    },
    transformReply(reply) {
      return reply;
    },
  }),
};

// Connects a client with host and port only; the reconnection attempts' errors are not part of
// the transcript (their number varies), only whether `connect()` resolves in time.
async function open(name) {
  const client = createClient({ socket: { host: '127.0.0.1', port: PORT }, scripts });
  client.on('error', () => {});
  const ok = await step(name, () => within(client.connect().then(() => 'connected')));
  return ok === undefined ? null : client;
}

async function strings(c) {
  await step('ping', () => c.ping());
  await step('set nx px (absent)', () =>
    c.set('node:lock', 'token-1', { condition: 'NX', expiration: { type: 'PX', value: 10000 } }));
  await step('set nx px (held)', () =>
    c.set('node:lock', 'token-2', { condition: 'NX', expiration: { type: 'PX', value: 10000 } }));
  await step('get', () => c.get('node:lock'));
  await step('pttl within px', async () => {
    const pttl = await c.pTTL('node:lock');
    return pttl > 0 && pttl <= 10000;
  });
  await step('get (absent)', () => c.get('node:absent'));
  await step('incr (new)', () => c.incr('node:fence'));
  await step('incr', () => c.incr('node:fence'));
  await step('incrby', () => c.incrBy('node:fence', 10));
  await step('incr (not an integer)', () => c.incr('node:lock'));
}

async function hashes(c) {
  await step('hset', () => c.hSet('node:hash', { owner: 'a', count: '1' }));
  await step('hget', () => c.hGet('node:hash', 'owner'));
  await step('hincrby', () => c.hIncrBy('node:hash', 'count', 2));
  await step('hgetall', async () => Object.entries(await c.hGetAll('node:hash')).sort());
  await step('hget (wrong type)', () => c.hGet('node:lock', 'owner'));
}

async function sortedSets(c) {
  await step('zadd', () =>
    c.zAdd('node:zset', [{ score: 3, value: 'c' }, { score: 1, value: 'a' }, { score: 2, value: 'b' }]));
  await step('zrange', () => c.zRange('node:zset', 0, -1));
  await step('zrange withscores', () => c.zRangeWithScores('node:zset', 0, 1));
  await step('zadd nx (present)', () =>
    c.zAdd('node:zset', { score: 9, value: 'a' }, { condition: 'NX' }));
  await step('zscore', () => c.zScore('node:zset', 'a'));
}

async function transaction(c) {
  await step('multi exec', () =>
    c.multi().set('node:tx', '1').incr('node:tx').get('node:tx').hSet('node:tx-hash', 'f', 'v').exec());
  await step('multi (queue-time error)', () =>
    c.multi().set('node:tx', '1').addCommand(['NOSUCHCOMMAND']).exec());
  await step('pipeline (no transaction)', () =>
    c.multi().incr('node:tx').get('node:tx').execAsPipeline());
}

async function scriptHelper(c) {
  await step('script (not the holder)', () => c.release('node:lock', 'token-2'));
  await step('script (the holder)', () => c.release('node:lock', 'token-1'));
  await step('script (gone)', () => c.release('node:lock', 'token-1'));
  await step('eval (table)', () =>
    c.eval("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}", {
      keys: ['node:script-counter'],
      arguments: ['x'],
    }));
}

async function lists(c) {
  await step('lpush', () => c.lPush('node:list', ['a', 'b', 'c']));
  await step('lrange', () => c.lRange('node:list', 0, -1));
  await step('blpop (ready)', () => c.blPop('node:list', 1));
  await step('brpop (ready)', () => c.brPop('node:list', 1));
  await step('blpop (timeout)', () => c.blPop('node:empty', 0.1));
  // The waiter on a connection of its own: a blocked connection cannot send the push.
  const waiter = c.duplicate();
  waiter.on('error', () => {});
  await step('waiter connect', () => within(waiter.connect().then(() => 'connected')));
  const woken = waiter.isOpen
    ? within(waiter.blPop('node:wake', WAIT_MS / 1000))
    : Promise.reject(new Error('waiter not connected'));
  woken.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 200));
  await step('lpush (wakes the waiter)', () => c.lPush('node:wake', 'ready'));
  await step('blpop (woken)', () => woken);
  await step('llen after wake', () => c.lLen('node:wake'));
  waiter.destroy();
}

async function pubsub(c) {
  // Pub/sub on a duplicated connection, as node-redis asks.
  const sub = c.duplicate();
  sub.on('error', () => {});
  await step('subscriber connect', () => within(sub.connect().then(() => 'connected')));
  let deliver;
  const message = new Promise((resolve) => {
    deliver = resolve;
  });
  await step('subscribe', () =>
    within(sub.subscribe('node:chan', (text, channel) => deliver([channel, text]))));
  await step('publish', () => c.publish('node:chan', 'unlocked'));
  await step('message', () => within(message));
  await step('publish (no subscriber)', () => c.publish('node:nobody', 'x'));
  await step('unsubscribe', () => within(sub.unsubscribe('node:chan')));
  await step('publish (after unsubscribe)', () => c.publish('node:chan', 'x'));
  sub.destroy();
}

async function main() {
  const c = await open('connect');
  if (c === null) {
    say('done', 'no connection');
    process.exit(1);
  }
  await strings(c);
  await hashes(c);
  await sortedSets(c);
  await transaction(c);
  await scriptHelper(c);
  await lists(c);
  await pubsub(c);
  await step('quit', () => c.close());
  console.log('done');
  process.exit(0);
}

main();
