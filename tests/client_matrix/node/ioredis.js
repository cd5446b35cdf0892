// ioredis in its default configuration (port and host, nothing else) through the families a lock
// library uses, and redis-semaphore (a mutex and a semaphore on ioredis, in its default
// configuration: scripts over SET NX PX and over a sorted set of holders). Prints one line per
// step, `step: result`, with nothing that varies between runs or servers, so that the transcripts
// against redis-server and `locksim serve redis` can be compared line by line
// (tests/client_matrix.rs). A failed step prints its error and the program goes on; every wait
// is bounded.
//
// Usage: node ioredis.js PORT

'use strict';

const Redis = require('ioredis');
const { Mutex, Semaphore } = require('redis-semaphore');
const { say, show, step, within, WAIT_MS } = require('./transcript');

const PORT = Number(process.argv[2]);

// Connects with port and host only; resolves once ioredis says the connection is ready. The
// reconnection attempts' errors are not part of the transcript (their number varies).
async function open(name, client) {
  client.on('error', () => {});
  const ready =
    client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', resolve));
  return step(name, () => within(ready.then(() => 'ready')));
}

async function strings(c) {
  await step('ping', () => c.ping());
  await step('set nx px (absent)', () => c.set('io:lock', 'token-1', 'PX', 10000, 'NX'));
  await step('set nx px (held)', () => c.set('io:lock', 'token-2', 'PX', 10000, 'NX'));
  await step('get', () => c.get('io:lock'));
  await step('pttl within px', async () => {
    const pttl = await c.pttl('io:lock');
    return pttl > 0 && pttl <= 10000;
  });
  await step('get (absent)', () => c.get('io:absent'));
  await step('incr (new)', () => c.incr('io:fence'));
  await step('incr', () => c.incr('io:fence'));
  await step('incrby', () => c.incrby('io:fence', 10));
  await step('incr (not an integer)', () => c.incr('io:lock'));
}

async function hashes(c) {
  await step('hset', () => c.hset('io:hash', { owner: 'a', count: '1' }));
  await step('hget', () => c.hget('io:hash', 'owner'));
  await step('hincrby', () => c.hincrby('io:hash', 'count', 2));
  await step('hgetall', async () => Object.entries(await c.hgetall('io:hash')).sort());
  await step('hget (wrong type)', () => c.hget('io:lock', 'owner'));
}

async function sortedSets(c) {
  await step('zadd', () => c.zadd('io:zset', 3, 'c', 1, 'a', 2, 'b'));
  await step('zrange', () => c.zrange('io:zset', 0, -1));
  await step('zrange withscores', () => c.zrange('io:zset', 0, 1, 'WITHSCORES'));
  await step('zadd nx (present)', () => c.zadd('io:zset', 'NX', 9, 'a'));
  await step('zscore', () => c.zscore('io:zset', 'a'));
}

async function transaction(c) {
  await step('multi exec', () =>
    c.multi().set('io:tx', '1').incr('io:tx').get('io:tx').hset('io:tx-hash', 'f', 'v').exec());
  await step('multi (runtime error)', () => c.multi().set('io:tx', 'x').incr('io:tx').exec());
  await step('multi (queue-time error)', () =>
    c.multi().set('io:tx', '1').call('NOSUCHCOMMAND').exec());
  await step('pipeline (no transaction)', () => c.pipeline().set('io:tx', '3').get('io:tx').exec());
}

async function scriptHelper(c) {
  // ioredis's script helper: EVALSHA, EVAL when the server does not know the script yet.
  c.defineCommand('release', {
    numberOfKeys: 1,
    lua:
      "if redis.call('GET', KEYS[1]) == ARGV[1] then " +
      "return redis.call('DEL', KEYS[1]) else return 0 end",
  });
  await step('script (not the holder)', () => c.release('io:lock', 'token-2'));
  await step('script (the holder)', () => c.release('io:lock', 'token-1'));
  await step('script (gone)', () => c.release('io:lock', 'token-1'));
  await step('eval (table)', () =>
    c.eval("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}", 1, 'io:script-counter', 'x'));
}

async function lists(c) {
  await step('lpush', () => c.lpush('io:list', 'a', 'b', 'c'));
  await step('lrange', () => c.lrange('io:list', 0, -1));
  await step('blpop (ready)', () => c.blpop('io:list', 1));
  await step('brpop (ready)', () => c.brpop('io:list', 1));
  await step('blpop (timeout)', () => c.blpop('io:empty', 0.1));
  // The waiter on a connection of its own: a blocked connection cannot send the push.
  const waiter = c.duplicate();
  await open('waiter connect', waiter);
  const woken = within(waiter.blpop('io:wake', WAIT_MS / 1000));
  woken.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 200));
  await step('lpush (wakes the waiter)', () => c.lpush('io:wake', 'ready'));
  await step('blpop (woken)', () => woken);
  await step('llen after wake', () => c.llen('io:wake'));
  waiter.disconnect();
}

async function pubsub(c) {
  const sub = c.duplicate();
  await open('subscriber connect', sub);
  const message = new Promise((resolve) => sub.once('message', (channel, text) => resolve([channel, text])));
  await step('subscribe', () => within(sub.subscribe('io:chan')));
  await step('publish', () => c.publish('io:chan', 'unlocked'));
  await step('message', () => within(message));
  await step('publish (no subscriber)', () => c.publish('io:nobody', 'x'));
  await step('unsubscribe', () => within(sub.unsubscribe('io:chan')));
  await step('publish (after unsubscribe)', () => c.publish('io:chan', 'x'));
  sub.disconnect();
}

// `tasks` tasks take the lock `make()` builds, `rounds` times each, on one connection: how
// many took it, whether more than `limit` ever held it at once, and the errors.
async function contend(name, make, limit) {
  const tasks = 4;
  const rounds = 3;
  const seen = { holders: 0, most: 0, acquired: 0, errors: new Set() };
  const task = async () => {
    for (let round = 0; round < rounds; round += 1) {
      try {
        const lock = make();
        await lock.acquire();
        seen.acquired += 1;
        seen.holders += 1;
        seen.most = Math.max(seen.most, seen.holders);
        await new Promise((resolve) => setTimeout(resolve, 10));
        seen.holders -= 1;
        await lock.release();
      } catch (error) {
        seen.errors.add(`${error.constructor.name}: ${error.message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: tasks }, task));
  say(`${name} acquired`, seen.acquired);
  say(`${name} at most ${limit} holding`, seen.most <= limit);
  say(`${name} errors`, show([...seen.errors].sort()));
}

async function lockLibrary(c) {
  await contend('mutex', () => new Mutex(c, 'io:mutex'), 1);
  await contend('semaphore', () => new Semaphore(c, 'io:semaphore', 2), 2);
  const held = new Mutex(c, 'io:mutex');
  await step('mutex tryAcquire', () => held.tryAcquire());
  await step('mutex tryAcquire (held)', () => new Mutex(c, 'io:mutex', { acquireTimeout: 50 }).tryAcquire());
  await step('mutex release', () => held.release());
  await step('mutex key gone', () => c.exists('mutex:io:mutex'));
  await step('semaphore holders gone', () => c.zcard('semaphore:io:semaphore'));
}

async function main() {
  const c = new Redis(PORT, '127.0.0.1');
  if ((await open('connect', c)) === undefined) {
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
  await lockLibrary(c);
  await step('quit', () => c.quit());
  console.log('done');
  process.exit(0);
}

main();
