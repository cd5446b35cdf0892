"""kazoo's recipes against one ZooKeeper server, in its default configuration, printing what
each promises: locks, read-write locks, a semaphore, counters, an election, barriers, parties,
queues, data and children watches, a tree cache, a lease and a set partitioner. Two clients
(two sessions) take turns; each wait is bounded, and every line is one the recipe decides,
never a timing. Usage: kazoo_recipes.py PORT, or kazoo_recipes.py HOST:PORT,HOST:PORT,...
(an ensemble's connect string).
"""

import sys
import threading
from datetime import timedelta

from kazoo.client import KazooClient
from kazoo.recipe.cache import TreeCache, TreeEvent

TARGET = sys.argv[1]
HOSTS = TARGET if ":" in TARGET else f"127.0.0.1:{int(TARGET)}"
BASE = "/kazoo-recipes"
WAIT = 10


def out(*parts):
    print(*parts, flush=True)


def client():
    c = KazooClient(hosts=HOSTS, timeout=10)
    c.start(timeout=WAIT)
    return c


def waited(event, what):
    if not event.wait(WAIT):
        raise SystemExit(f"timed out waiting for {what}")


a, b = client(), client()
a.ensure_path(BASE)
ours = sorted(c for c in a.get_children("/") if c in ("zookeeper", BASE[1:]))
out("children of /:", ours)

# Lock: the second client cannot take it while the first holds it, then can.
la, lb = a.Lock(BASE + "/lock", "a"), b.Lock(BASE + "/lock", "b")
out("lock: a acquires", la.acquire(timeout=WAIT))
out("lock: b without blocking", lb.acquire(blocking=False))
out("lock: contenders", la.contenders())
la.release()
out("lock: b after a released", lb.acquire(timeout=WAIT), lb.contenders())
lb.release()

# Read-write lock: readers share, a writer waits for them.
r1, r2 = a.ReadLock(BASE + "/rw", "r1"), b.ReadLock(BASE + "/rw", "r2")
w = b.WriteLock(BASE + "/rw", "w")
out("rwlock: readers", r1.acquire(timeout=WAIT), r2.acquire(timeout=WAIT))
out("rwlock: writer without blocking", w.acquire(blocking=False))
r1.release()
r2.release()
out("rwlock: writer after the readers", w.acquire(timeout=WAIT))
w.release()

# Semaphore of two leases.
s1 = a.Semaphore(BASE + "/sem", "s1", max_leases=2)
s2 = b.Semaphore(BASE + "/sem", "s2", max_leases=2)
s3 = b.Semaphore(BASE + "/sem", "s3", max_leases=2)
out("semaphore: two leases", s1.acquire(timeout=WAIT), s2.acquire(timeout=WAIT))
out("semaphore: a third without blocking", s3.acquire(blocking=False))
out("semaphore: lease holders", sorted(s1.lease_holders()))
s1.release()
out("semaphore: the third after one released", s3.acquire(timeout=WAIT))
s2.release()
s3.release()

# Counters: integer and float, from both clients.
ca, cb = a.Counter(BASE + "/counter"), b.Counter(BASE + "/counter")
ca += 5
cb -= 2
out("counter:", ca.value, cb.value)
cf = a.Counter(BASE + "/fcounter", default=0.0)
cf += 1.5
out("float counter:", cf.value)

# Election: the first runs as leader until told to stop; the second sees it as contender.
elected, stop = threading.Event(), threading.Event()


def lead():
    elected.set()
    stop.wait(WAIT)


leader = a.Election(BASE + "/election", "a")
thread = threading.Thread(target=leader.run, args=(lead,))
thread.start()
waited(elected, "the election")
out("election: contenders", b.Election(BASE + "/election", "b").contenders())
stop.set()
thread.join()
out("election: contenders after", b.Election(BASE + "/election", "b").contenders())

# Barrier: waits while the node exists.
barrier = a.Barrier(BASE + "/barrier")
out("barrier: create", barrier.create())
out("barrier: wait while up", b.Barrier(BASE + "/barrier").wait(0.2))
out("barrier: remove", barrier.remove())
out("barrier: wait once down", b.Barrier(BASE + "/barrier").wait(WAIT))

# Double barrier of two: neither enters before both arrive, neither leaves before both go.
entered = []


def meet(c, name):
    db = c.DoubleBarrier(BASE + "/double", 2, identifier=name)
    db.enter()
    entered.append(name)
    db.leave()


threads = [threading.Thread(target=meet, args=(c, n)) for c, n in ((a, "a"), (b, "b"))]
for t in threads:
    t.start()
for t in threads:
    t.join(WAIT)
out("double barrier: entered", sorted(entered), "left", not any(t.is_alive() for t in threads))

# Parties.
for kind in ("Party", "ShallowParty"):
    pa = getattr(a, kind)(BASE + "/" + kind.lower(), "a")
    pb = getattr(b, kind)(BASE + "/" + kind.lower(), "b")
    pa.join()
    pb.join()
    out(kind + ":", sorted(pa), len(pb))
    pa.leave()
    out(kind + ": after a left", sorted(pb))
    pb.leave()

# Queue: by priority, then in order.
queue = a.Queue(BASE + "/queue")
queue.put(b"one")
queue.put(b"two", priority=10)
queue.put(b"zero", priority=1)
out("queue: length", len(queue))
out("queue:", [b.Queue(BASE + "/queue").get() for _ in range(4)])

# Locking queue: an entry is taken under a lock, then consumed or released.
lq = a.LockingQueue(BASE + "/locking")
lq.put_all([b"x", b"y"])
out("locking queue: get", lq.get(WAIT), lq.holds_lock())
out("locking queue: consume", lq.consume(), len(lq))
out("locking queue: get", lq.get(WAIT))
out("locking queue: release", lq.release(), len(lq))
out("locking queue: get again", lq.get(WAIT), lq.consume(), len(lq))

# Data and children watches: every change, in order.
seen, changed = [], threading.Event()
expect = {"n": 0}


def note(entry):
    seen.append(entry)
    if len(seen) >= expect["n"]:
        changed.set()


def until(count):
    expect["n"] = count
    if len(seen) < count:
        waited(changed, f"{count} watch events")
    changed.clear()


watched = BASE + "/watched"


@a.DataWatch(watched)
def data(value, stat):
    note(("data", value, stat.version if stat else None))


@a.ChildrenWatch(BASE + "/queue")
def children(names):
    note(("children", sorted(names)))


until(2)
b.create(watched, b"1")
until(3)
b.set(watched, b"2")
until(4)
b.create(BASE + "/queue/late")
until(5)
b.delete(watched)
until(6)
out("watches:", seen)

# Tree cache: its initial view, then what changes below it.
cache_events, initialized = [], threading.Event()
cache = TreeCache(a, BASE + "/cached")
a.ensure_path(BASE + "/cached/one")


def listen(event):
    if event.event_type == TreeEvent.INITIALIZED:
        initialized.set()
    elif initialized.is_set():
        cache_events.append((event.event_type, event.event_data.path))


cache.listen(listen)
cache.start()
waited(initialized, "the tree cache")
out("tree cache: children", sorted(cache.get_children(BASE + "/cached")))
pause = threading.Event()


def cached(count):
    for _ in range(WAIT * 10):
        if len(cache_events) >= count:
            return
        pause.wait(0.1)
    raise SystemExit(f"timed out waiting for {count} tree cache events")


b.create(BASE + "/cached/two", b"2")
cached(1)
b.delete(BASE + "/cached/one")
cached(2)
out("tree cache: events", cache_events)
cache.close()

# A non-blocking lease: held by one client until it runs out.
first = a.NonBlockingLease(BASE + "/lease", timedelta(seconds=60), identifier="a")
second = b.NonBlockingLease(BASE + "/lease", timedelta(seconds=60), identifier="b")
out("lease: first, second", bool(first), bool(second))

# A set partitioner alone takes the whole set.
partitioner = a.SetPartitioner(BASE + "/partition", set=("x", "y", "z"), time_boundary=0.2)
partitioner.wait_for_acquire(WAIT)
out("partitioner:", partitioner.acquired, sorted(partitioner))
partitioner.finish()

a.delete(BASE, recursive=True)
out("cleaned:", a.exists(BASE) is None)
a.stop()
b.stop()
out("done")
