"""redis-py in its default configuration (host and port, nothing else) through the families a lock
library uses, its own Lock, and python-redis-lock (a lock library on redis-py whose waiters
block in BLPOP until a release script pushes a signal). Prints one line per step, `step:
result`, with nothing that varies between runs or servers, so that the transcripts against
redis-server and `locksim serve redis` can be compared line by line (tests/client_matrix.rs). A
failed step prints its error and the program goes on; every wait is bounded.

Usage: python3 redis_py.py PORT
"""

import sys
import threading
import time

import redis
import redis_lock

HOST = "127.0.0.1"
PORT = int(sys.argv[1])
# A bound on every wait, well inside the harness's kill timeout.
WAIT_S = 5
LOCK_THREADS = 4
LOCK_ROUNDS = 3


def say(step, result):
    print(f"{step}: {result}", flush=True)


def step(name, action):
    """Runs `action` and prints its result (repr) or its error as `ERR Class: message`."""
    try:
        result = action()
    except Exception as error:  # the transcript shows any failure, whatever its kind
        say(name, f"ERR {type(error).__name__}: {error}")
        return None
    say(name, repr(result))
    return result


def strings(r):
    step("ping", r.ping)
    step("set nx px (absent)", lambda: r.set("py:lock", "token-1", nx=True, px=10_000))
    step("set nx px (held)", lambda: r.set("py:lock", "token-2", nx=True, px=10_000))
    step("get", lambda: r.get("py:lock"))
    step("pttl within px", lambda: 0 < r.pttl("py:lock") <= 10_000)
    step("get (absent)", lambda: r.get("py:absent"))
    step("incr (new)", lambda: r.incr("py:fence"))
    step("incr", lambda: r.incr("py:fence"))
    step("incrby", lambda: r.incrby("py:fence", 10))
    step("incr (not an integer)", lambda: r.incr("py:lock"))


def hashes(r):
    step("hset", lambda: r.hset("py:hash", mapping={"owner": "a", "count": "1"}))
    step("hget", lambda: r.hget("py:hash", "owner"))
    step("hincrby", lambda: r.hincrby("py:hash", "count", 2))
    step("hgetall", lambda: sorted(r.hgetall("py:hash").items()))
    step("hget (wrong type)", lambda: r.hget("py:lock", "owner"))


def sorted_sets(r):
    step("zadd", lambda: r.zadd("py:zset", {"c": 3, "a": 1, "b": 2}))
    step("zrange", lambda: r.zrange("py:zset", 0, -1))
    step("zrange withscores", lambda: r.zrange("py:zset", 0, 1, withscores=True))
    step("zadd nx (present)", lambda: r.zadd("py:zset", {"a": 9}, nx=True))
    step("zscore", lambda: r.zscore("py:zset", "a"))


def transaction(r):
    def run():
        pipe = r.pipeline(transaction=True)
        pipe.set("py:tx", "1").incr("py:tx").get("py:tx").hset("py:tx-hash", "f", "v")
        return pipe.execute()

    step("pipeline transaction", run)
    step("pipeline (no transaction)", lambda: r.pipeline(transaction=False).incr("py:tx").get("py:tx").execute())


def scripts(r):
    release = r.register_script(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then "
        "return redis.call('DEL', KEYS[1]) else return 0 end"
    )
    step("script (not the holder)", lambda: release(keys=["py:lock"], args=["token-2"]))
    step("script (the holder)", lambda: release(keys=["py:lock"], args=["token-1"]))
    step("script (gone)", lambda: release(keys=["py:lock"], args=["token-1"]))
    table = r.register_script("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}")
    step("script (table)", lambda: table(keys=["py:script-counter"], args=["x"]))


def lists(r):
    step("lpush", lambda: r.lpush("py:list", "a", "b", "c"))
    step("lrange", lambda: r.lrange("py:list", 0, -1))
    step("blpop (ready)", lambda: r.blpop(["py:list"], timeout=1))
    step("brpop (ready)", lambda: r.brpop(["py:list"], timeout=1))
    step("blpop (timeout)", lambda: r.blpop(["py:empty"], timeout=0.1))

    woken = {}

    def waiter():
        # Its own client: a blocked connection cannot serve the push that wakes it.
        try:
            woken["reply"] = repr(redis.Redis(host=HOST, port=PORT).blpop(["py:wake"], timeout=WAIT_S))
        except Exception as error:
            woken["reply"] = f"ERR {type(error).__name__}: {error}"

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.2)  # the waiter blocks meanwhile; the transcript is the same if it has not yet
    step("lpush (wakes the waiter)", lambda: r.lpush("py:wake", "ready"))
    thread.join(WAIT_S + 1)
    say("blpop (woken)", woken.get("reply", "still blocked"))
    step("llen after wake", lambda: r.llen("py:wake"))


def pubsub(r):
    sub = r.pubsub()
    try:
        sub.subscribe("py:chan")
        confirm = sub.get_message(timeout=WAIT_S)
        say("subscribe", confirm and (confirm["type"], confirm["channel"], confirm["data"]))
        step("publish", lambda: r.publish("py:chan", "unlocked"))
        message = sub.get_message(timeout=WAIT_S)
        say("message", message and (message["type"], message["channel"], message["data"]))
        step("publish (no subscriber)", lambda: r.publish("py:nobody", "x"))
        sub.unsubscribe("py:chan")
        confirm = sub.get_message(timeout=WAIT_S)
        say("unsubscribe", confirm and (confirm["type"], confirm["channel"], confirm["data"]))
    except Exception as error:
        say("pubsub", f"ERR {type(error).__name__}: {error}")
    finally:
        sub.close()


class Holders:
    """Who holds a lock, across threads: the most at once, counts of what happened, errors."""

    def __init__(self):
        self.guard = threading.Lock()
        self.now = 0
        self.most = 0
        self.counts = {"acquired": 0, "extended": 0, "released": 0}
        self.errors = set()

    def enter(self):
        with self.guard:
            self.counts["acquired"] += 1
            self.now += 1
            self.most = max(self.most, self.now)

    def leave(self):
        with self.guard:
            self.now -= 1

    def count(self, what, happened=True):
        with self.guard:
            self.counts[what] += bool(happened)

    def fail(self, error):
        with self.guard:
            self.errors.add(f"{type(error).__name__}: {error}")

    def report(self, name):
        for what, count in self.counts.items():
            say(f"{name} {what}", count)
        say(f"{name} at most one holder", self.most <= 1)
        say(f"{name} errors", sorted(self.errors))


def contend(name, one_round):
    """LOCK_THREADS threads, each on its own client, run `one_round(client, holders)`
    LOCK_ROUNDS times; then the transcript of what they saw."""
    holders = Holders()

    def worker():
        client = redis.Redis(host=HOST, port=PORT)
        for _ in range(LOCK_ROUNDS):
            try:
                one_round(client, holders)
            except Exception as error:  # the transcript shows any failure, whatever its kind
                holders.fail(error)

    threads = [threading.Thread(target=worker) for _ in range(LOCK_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LOCK_ROUNDS * WAIT_S * 2)
    holders.report(name)


def lock(r):
    """redis-py's own Lock, shared by 4 threads: at most one holder at any time."""

    def one_round(client, holders):
        held = client.lock("py:mutex", timeout=WAIT_S, blocking_timeout=WAIT_S * 2)
        if not held.acquire():
            raise TimeoutError("acquire timed out")
        holders.enter()
        time.sleep(0.01)
        holders.count("extended", held.extend(WAIT_S))
        holders.leave()
        held.release()
        holders.count("released")

    contend("lock", one_round)
    step("lock key gone", lambda: r.exists("py:mutex"))


def lock_library(r):
    """python-redis-lock shared by 4 threads: SET NX EX, waiters blocked in BLPOP on its signal
    list until the release script (GET, DEL, LPUSH, PEXPIRE) wakes one."""

    def one_round(client, holders):
        held = redis_lock.Lock(client, "py:lib", expire=WAIT_S)
        if not held.acquire(timeout=WAIT_S):
            raise TimeoutError("acquire timed out")
        holders.enter()
        time.sleep(0.01)
        held.extend(WAIT_S)
        holders.count("extended")
        holders.leave()
        held.release()
        holders.count("released")

    contend("redis_lock", one_round)
    held = redis_lock.Lock(r, "py:lib", expire=WAIT_S)
    step("redis_lock acquire", held.acquire)
    step("redis_lock locked", held.locked)
    other = redis_lock.Lock(r, "py:lib", expire=WAIT_S)
    step("redis_lock acquire (held, not blocking)", lambda: other.acquire(blocking=False))
    step("redis_lock release (not the holder)", other.release)
    step("redis_lock reset_all", lambda: redis_lock.reset_all(r))
    step("redis_lock locked after reset_all", held.locked)


def main():
    r = redis.Redis(host=HOST, port=PORT)
    strings(r)
    hashes(r)
    sorted_sets(r)
    transaction(r)
    scripts(r)
    lists(r)
    pubsub(r)
    lock(r)
    lock_library(r)
    print("done", flush=True)


if __name__ == "__main__":
    main()
