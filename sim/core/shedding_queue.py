"""The shedding queue: a single server in virtual time stepping the engine one event at a time.

Which events are processed depends on the queue in virtual time, so the engine is stepped
(``engines.evaluators.stepper.Stepper``) from the server process.  Per event, in virtual time:

* **arrival** (time ``a_i``): the event joins the FIFO queue and is offered to the shedder
  (``shedder.on_arrival``), which may drop it or queued events (``ShedQueue.drop``).  The
  shedder's per-arrival work is returned as a counter row; it is priced with the cost profile
  and charged to a separate *ingest* resource (reported: ``ingest_busy_s``,
  ``ingest_utilisation``) or, with ``ingest_on_server=True``, added to the server's next
  service;
* **service**: the server takes the next live event (FIFO), lets the shedder veto it
  (``before_step``), steps the engine, and serves for
  ``price(engine row) + price(shedder rows)`` (``after_step`` may drop partial matches: its
  row is charged to the same service).  The matches emitted by the step are detected at the
  departure; latency = departure - arrival of the match's last event (docs/ARCHITECTURE.md, "The simulator").

The server process ingests the arrivals up to its current instant before choosing the next
event (an event that arrived during a service is offered to the shedder at its own arrival
time: the queue only grows during a service, and the engine's state only changes at a step,
so the shedder sees exactly the state it would see at ``a_i``), and idles with one timeout
until the next arrival.  That is one wait per served event: the server is a generator that
yields its waits, and a plain clock adds each to the current time (``clock="plain"``), as a SimPy
``Timeout`` would (``clock="simpy"`` drives the same generator with SimPy: the reference,
identical bit for bit, ``tests/test_shedding_clock.py``).  With the no-op shedder
the start/departure times equal the Lindley recursion over the engine's service times to
1e-9 (``tests/test_shedding_queue.py``).

The same loop runs compiled (``sim.core.shedding_queue_kernel``, ``loop="auto"``) for the shedders
whose hooks are compiled in ``engines.shedding.kernel_hooks`` (none, DARLING, random input, random
PM, eSPICE / hSPICE, ICDE'20): identical results bit for bit (``tests/test_shedding_kernel.py``),
the Python loop being the reference and the path of any other shedder (a user's subclass).
"""
from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import simpy

from engines import counters as C
from engines.errors import CepsimInputError
from engines.evaluators.stepper import S_BOUND, S_LIVE, S_NM, Stepper
from engines.heap import trim_heap
from engines.shedding.base import RECENT_STEPS, ShedContext, ShedQueue, Shedder, index_dtype
from sim.core.shedding_outcome import LoopOutcome


@dataclass
class ShedResult:
    metrics: dict
    start: np.ndarray
    depart: np.ndarray
    served: np.ndarray          # bool per event: processed by the engine
    # float64 per match detected after warm-up (within the cap).  With ``keep_keys`` in
    # detection order, row i the latency of ``match_keys[i]``; without, in no fixed order: the
    # percentiles partition it in place (a second copy of 10^8 latencies is 0.9 GB)
    match_latency: np.ndarray
    match_keys: np.ndarray | None = None


def _run_simpy(gen, t_init: float) -> None:
    """Drive the server generator of ``run_shedding`` as one SimPy process: each yielded delay
    is a ``Timeout``, the clock after it is sent back (the reference clock)."""
    env = simpy.Environment(initial_time=t_init)

    def process():
        try:
            delay = gen.send(env.now)
            while True:
                yield env.timeout(delay)
                delay = gen.send(env.now)
        except StopIteration:
            return

    env.process(process())
    env.run()


def run_shedding(stream, program, arrivals, profile, shedder: Shedder | None = None,
                 n_warm: int = 0, ingest_on_server: bool = False, keep_keys: bool = False,
                 latency_cap: float | None = None,
                 leaf_mask: np.ndarray | None = None, clock: str = "plain",
                 loop: str = "auto", leaf_bits: np.ndarray | None = None) -> ShedResult:
    """Simulate the shedding queue (module docstring); ``n_warm`` first events are the warm-up
    (the shedder must not drop there; it gathers statistics and ``end_warmup`` is called when
    event ``n_warm`` arrives).  Matches detected at or after event ``n_warm`` are measured;
    ``keep_keys`` keeps their bindings (rows in slot order) for the Eq. (4) intersection;
    ``latency_cap`` (seconds) excludes matches slower than it (the paper's 30 minutes).
    ``leaf_mask`` (bool per event, ``engines.shedding.memory.leaf_mask``): served events the tree
    would also store at a leaf, counted while within the window; ``peak_pm_slots`` is the peak
    over the served events from ``n_warm`` on of (events bound by the engine's partial matches +
    those leaf events) -- the DARLING artifact's storage size with instances leaving when their
    window closes (``peak_pm_slots_window``).  ``leaf_bits`` (int per event, bit ``j`` = stored
    at leaf ``L_j``, ``engines.shedding.memory.leaf_bits``) adds the artifact's lazy expiry
    (``engines.shedding.lazy_store``): ``peak_pm_slots`` is then that storage's peak and
    ``peak_pm_slots_window`` the window accounting (``leaf_mask`` defaults to ``leaf_bits != 0``).

    ``clock``: what advances virtual time between the server's waits. ``"plain"`` (default)
    adds each wait to the clock (``now + delay``), exactly what a SimPy ``Timeout`` does with
    one process and nothing else scheduled (``Environment.schedule`` pushes ``now + delay``,
    ``step`` pops it), without SimPy's per-wait event objects and heap (about a
    fifth of a DARLING point). ``"simpy"`` runs the same server as a SimPy process: the
    reference the tests compare bit for bit.

    ``loop``: ``"auto"`` (default) runs the plain-clock server compiled
    (``sim.core.shedding_queue_kernel``) when the shedder's class has compiled hooks (the no-op
    shedder, DARLING and random input dropping, random PM dropping, eSPICE / hSPICE, ICDE'20),
    else in Python;
    ``"python"`` always runs the Python server (the reference the compiled loop equals bit for
    bit, ``tests/test_shedding_kernel.py``); ``"compiled"`` requires the compiled loop."""
    if clock not in ("plain", "simpy"):
        raise CepsimInputError(f"run_shedding: clock must be 'plain' or 'simpy', got {clock!r}")
    if loop not in ("auto", "python", "compiled"):
        raise CepsimInputError(f"run_shedding: loop must be 'auto', 'python' or 'compiled', "
                               f"got {loop!r}")
    n = len(stream)
    arr = np.ascontiguousarray(arrivals, dtype=np.float64)
    if arr.shape != (n,):
        raise CepsimInputError(f"run_shedding: {arr.shape} arrivals for {n} events")
    if n > 1 and np.any(np.diff(arr) < 0):
        raise CepsimInputError("run_shedding: arrival times must be non-decreasing")
    shedder = shedder or Shedder()
    stp = Stepper(program, stream)
    q = ShedQueue(np.asarray(stream.types), len(stream.schema.type_names))
    unit = profile.unit_vector()
    base = float(profile.base_cost)
    ctx = ShedContext(stream, program, stp, q, unit, base, arr, int(n_warm))
    ctx.recent = deque(maxlen=RECENT_STEPS)
    shedder.attach(ctx)
    t_init = min(0.0, float(arr[0])) if n else 0.0
    from engines.shedding.kernel_hooks import compiled_kind
    compiled = clock == "plain" and loop != "python" and compiled_kind(shedder) is not None
    if loop == "compiled" and not compiled:
        raise CepsimInputError(f"run_shedding: no compiled loop for shedder "
                               f"{type(shedder).__name__} with clock {clock!r}; use loop='auto'")
    store = None
    if leaf_bits is not None:
        from engines.shedding.lazy_store import LazyStore
        leaf_bits = np.ascontiguousarray(leaf_bits, dtype=np.int64)
        if leaf_bits.shape != (n,):
            raise CepsimInputError(f"run_shedding: {leaf_bits.shape} leaf bits for {n} events")
        if leaf_mask is None:
            leaf_mask = leaf_bits != 0
        store = LazyStore(stp.m, leaf_bits, float(stp.window))
    if compiled:
        from sim.core.shedding_queue_kernel import run_compiled
        out = run_compiled(ctx, shedder, stp, int(n_warm), bool(ingest_on_server),
                           bool(keep_keys), latency_cap, leaf_mask, t_init, store)
    else:
        out = _serve_python(ctx, shedder, stp, q, int(n_warm), ingest_on_server, keep_keys,
                            latency_cap, leaf_mask, clock, t_init, store)
    start, depart, served, lat, keys = out.start, out.depart, out.served, out.lat, out.keys
    shed_tot, totals = out.shed_tot, out.totals
    end = float(np.nanmax(depart)) if served.any() else 0.0
    t0 = float(arr[0]) if n else 0.0
    met = {
        "n_events": n, "n_warm": int(n_warm), "served": int(served.sum()),
        "shed_events": int(n - served.sum()), "dropped_in_queue": int(q.dropped),
        "vetoed": int(out.vetoed), "peak_queue": int(q.peak),
        "peak_live_pm": int(out.peak_live), "peak_live_bound": int(out.peak_bound),
        "peak_memory_events": int(out.peak_mem),
        "peak_pm_slots": (int(out.peak_slots_lazy) if store is not None else
                          int(out.peak_slots) if leaf_mask is not None else -1),
        "peak_pm_slots_window": int(out.peak_slots) if leaf_mask is not None else -1,
        "matches_measured": int(lat.size), "warm_matches": int(out.warm_matches),
        "matches_over_cap": int(out.n_over),
        "ingest_busy_s": float(out.ingest_busy),
        "ingest_utilisation": float(out.ingest_busy / max(end - t0, 1e-300)),
        "server_shed_s": float(out.server_shed_s),
        "replication_s": float(out.replication_s),
        "makespan_s": end - t0,
        "pm_removed_by_shedder": int(shed_tot[C.PM_REMOVED]),
        "shed_ops": int(shed_tot[C.SHED_OP]), "utility_ops": int(shed_tot[C.UTILITY_UPDATE]),
        "decision_checks": int(totals[C.DECISION_CHECK] + shed_tot[C.DECISION_CHECK]),
    }
    if lat.size:
        # the mean first (its pairwise sum depends on the order), then the order statistics,
        # partitioning ``lat`` in place unless it must stay aligned with the match keys: the
        # same values as separate percentile calls on copies (tests/test_shedding_queue.py)
        mean, top = float(lat.mean()), float(lat.max())
        p50, p95, p99 = np.percentile(lat, [50, 95, 99], overwrite_input=not keep_keys)
        met.update(latency_mean=mean, latency_p50=float(p50), latency_p95=float(p95),
                   latency_p99=float(p99), latency_max=top)
    else:
        met.update(latency_mean=0.0, latency_p50=0.0, latency_p95=0.0, latency_p99=0.0,
                   latency_max=0.0)
    met.update({f"shedder_{k}": v for k, v in shedder.info().items()})
    met["aux_memory_bytes"] = int(shedder.aux_memory_bytes())
    for k, name in enumerate(C.COUNTER_NAMES):
        if k not in C.GAUGES:
            met[f"engine_{name}"] = int(totals[k])
    return ShedResult(metrics=met, start=start, depart=depart, served=served,
                      match_latency=lat, match_keys=keys)


def _serve_python(ctx: ShedContext, shedder: Shedder, stp: Stepper, q: ShedQueue, n_warm: int,
                  ingest_on_server: bool, keep_keys: bool, latency_cap: float | None,
                  leaf_mask: np.ndarray | None, clock: str, t_init: float,
                  store=None) -> LoopOutcome:
    """The server loop in Python (the module docstring)."""
    arr = ctx.arrivals
    n = len(arr)
    stream = ctx.stream
    unit = ctx.unit
    base = ctx.base_cost
    # per-event writes to Python containers, arrays at the end; ``array('d')`` stores a write as
    # 8 bytes where a list keeps a float object (32 bytes) per served event (memory)
    start_l = array("d", [np.nan]) * n
    depart_l = array("d", [np.nan]) * n
    served_b = bytearray(n)
    # the measured latencies, appended as raw float64 bytes: one growing buffer (read by
    # ``np.frombuffer`` at the end) instead of chunks joined by a copy, which held the 10^8
    # latencies of DARLING's long streams twice (peak memory)
    lat_buf = array("d")
    pos_dt = index_dtype(n)
    key_chunks: list[np.ndarray] = []
    shed_tot = np.zeros(C.N_COUNTERS, dtype=np.int64)      # shedder work (server + ingest)
    # per-event state in Python scalars (numpy scalar reads and dict updates cost more than the
    # arithmetic); the engine's work is summed by the stepper (``Stepper.total``)
    ingest_busy = 0.0
    ingest_free_at = -np.inf
    peak_mem = peak_bound = peak_live = vetoed = warm_matches = n_over = 0
    peak_slots = peak_lazy = 0
    if store is not None:
        from engines.shedding.lazy_store import lazy_room, lazy_step, lazy_sync
        el_type = np.asarray(stp.tb["el_type"], dtype=np.int64)
    leaf_l = leaf_mask.tolist() if leaf_mask is not None else None
    ts_l = np.asarray(stream.ts, dtype=np.float64).tolist() if leaf_l is not None else None
    leaves: deque = deque()        # timestamps of the served leaf events within the window
    win = float(stp.window)
    server_shed_s = 0.0
    replication_s = 0.0
    m = stp.m
    cols = stp.tb["col_of_slot"]
    S = memoryview(stp.S)      # scalar reads as Python ints (S is never replaced)
    row_f = stp.row_f
    arr_l = arr.tolist()
    # hooks the shedder leaves at the no-op default are not called (same outcome)
    cls = type(shedder)
    has_arrival, has_before, has_after, has_served, has_extra = (
        getattr(cls, h) is not getattr(Shedder, h)
        for h in ("on_arrival", "before_step", "after_step", "on_served", "take_extra_seconds"))
    price = ctx.price
    step = stp.step
    pop = q.pop
    push = q.push
    # shedder rows charged so far, by value: row bytes -> [seconds, times]; ``shed_tot`` is
    # their sum at the end (exact integer sums in any order; a numpy ``+=`` per row cost ~1 us)
    tally: dict = {}

    def charge(r) -> float:
        """Seconds of shedder row ``r``; adds it to the shedder work (``shed_tot``)."""
        key = r.tobytes()
        e = tally.get(key)
        if e is None:
            if r.dtype != np.int64 or r.shape != (C.N_COUNTERS,):
                shed_tot[:] += r          # any other row: added as it comes
                return price(r)
            e = tally[key] = [price(r), 0]
        e[1] += 1
        return e[0]

    def ingest(i: int) -> float:
        """Offer arrival ``i``; returns the seconds to charge to the server."""
        nonlocal ingest_busy, ingest_free_at
        if i == n_warm and ctx.in_warmup:
            ctx.in_warmup = False
            shedder.end_warmup(arr_l[i])
            # the warm-up matches are read by end_warmup only (eSPICE/hSPICE, ICDE'20): free them
            # (tens of millions of rows on DARLING's long streams; peak memory)
            if ctx.warm_matches:          # ICDE'20 frees (and trims) them itself, earlier
                ctx.warm_matches.clear()
                trim_heap()    # their many small chunks' heap pages back to the system
        push(i)
        if not has_arrival:
            return 0.0
        r = shedder.on_arrival(i, arr_l[i])
        if r is None:
            return 0.0
        c = charge(r)
        if ingest_on_server:
            return c
        s0 = max(arr_l[i], ingest_free_at)
        ingest_free_at = s0 + c
        ingest_busy += c
        return 0.0

    def collect(i_det: int, t_det: float) -> None:
        nonlocal warm_matches, n_over
        k = S[S_NM]
        if k == 0:
            return
        lasts = stp.o_last[:k]
        all_lat = t_det - arr[lasts]
        ctx.recent.append((float(all_lat.sum()), k))
        if i_det >= n_warm:
            lat = t_det - arr[lasts]
            if latency_cap is not None:
                ok = lat <= latency_cap
                n_over += int(k - ok.sum())
                lat = lat[ok]
            else:
                ok = None
            lat_buf.frombytes(np.ascontiguousarray(lat, dtype=np.float64).view(np.uint8))
            if keep_keys:
                rows = stp.o_pos[:k][:, cols] if ok is None else stp.o_pos[:k][ok][:, cols]
                key_chunks.append(rows.copy())
        else:
            warm_matches += k
            ctx.warm_matches.append(stp.o_pos[:k][:, cols].astype(pos_dt))
        stp.clear_output()

    def server():
        nonlocal peak_mem, peak_bound, peak_live, vetoed, server_shed_s, replication_s
        nonlocal peak_slots, peak_lazy
        nxt = 0
        carry = 0.0       # ingest work charged to the server (ingest_on_server)
        warm_service = ctx.warm_service
        now = yield None          # the clock at the start (the driver sends it)
        while True:
            while nxt < n and arr_l[nxt] <= now:
                carry += ingest(nxt)
                nxt += 1
            i = pop()
            if i < 0:
                if nxt >= n:
                    break
                now = yield arr_l[nxt] - now
                # ingest the awaited arrival even if the clock's rounding left it a hair short
                carry += ingest(nxt)
                nxt += 1
                continue
            extra = carry
            carry = 0.0
            if has_before:
                veto, r = shedder.before_step(i, now)
                if r is not None:
                    extra += charge(r)
                if veto:
                    vetoed += 1
                    carry = extra
                    continue
            if store is not None:
                # the artifact's storage: drops before any row is reused, then room
                lazy_sync(stp.S, stp.a_first, store.ent_first, store.ent_row, store.ent_n,
                          store.sc)
                while not lazy_room(i, stp.types, el_type, stp.pn, store.ent_n,
                                    store.leaf_head, store.leaf_tail, store.ent_first.shape[1]):
                    store.grow()
            row = step(i)
            svc = float(row_f.dot(unit)) + base     # = np.dot(row, unit): row_f is row as float
            if has_after:
                r2 = shedder.after_step(i, row, now)
                if r2 is not None:
                    extra += charge(r2)
            if has_extra:
                xs = shedder.take_extra_seconds()
                replication_s += xs
                extra += xs
            server_shed_s += extra
            svc += extra
            start_l[i] = now
            served_b[i] = 1
            live_bound = S[S_BOUND]
            mem = q.length + live_bound
            if mem > peak_mem:
                peak_mem = mem
            if live_bound > peak_bound:
                peak_bound = live_bound
            live = S[S_LIVE]
            if live > peak_live:
                peak_live = live
            if leaf_l is not None:
                t_i = ts_l[i]
                while leaves and t_i - leaves[0] > win:
                    leaves.popleft()
                if leaf_l[i]:
                    leaves.append(t_i)
                if i >= n_warm and live_bound + len(leaves) > peak_slots:
                    peak_slots = live_bound + len(leaves)
            if store is not None:
                held = lazy_step(i, stp.ts, stp.types, win, el_type, stp.a_first, stp.c_slot,
                                 stp.c_first, stp.S, S[S_NM], *store.arrays())
                if i >= n_warm and held > peak_lazy:
                    peak_lazy = held
            t = yield svc
            now = t
            depart_l[i] = t
            if ctx.in_warmup or i < n_warm:
                warm_service.append((i, svc))
            if S[S_NM]:
                collect(i, t)
            if has_served:
                shedder.on_served(i, svc, row, t)
        for key, (_, times) in tally.items():
            shed_tot[:] += np.frombuffer(key, dtype=np.int64) * times
        fin = stp.finish()
        collect(n, now)
        totals[:] = stp.total
        totals[C.MATCH_EMIT] += fin[C.MATCH_EMIT]

    totals = np.zeros(C.N_COUNTERS, dtype=np.int64)        # engine work
    gen = server()
    next(gen)                      # up to its first ``yield``: waiting for the start time
    if clock == "plain":
        now = t_init
        try:
            delay = gen.send(now)
            while True:
                now = now + delay  # what SimPy's Timeout computes (Environment.schedule)
                delay = gen.send(now)
        except StopIteration:
            pass
    else:
        _run_simpy(gen, t_init)
    lat = np.frombuffer(lat_buf, dtype=np.float64) if len(lat_buf) else np.zeros(0)
    del lat_buf             # ``lat`` holds the buffer
    keys = (np.concatenate(key_chunks) if key_chunks else np.zeros((0, m), np.int64)) \
        if keep_keys else None
    key_chunks.clear()
    start = np.frombuffer(start_l, dtype=np.float64)
    depart = np.frombuffer(depart_l, dtype=np.float64)
    served = np.frombuffer(bytes(served_b), dtype=np.uint8).astype(bool)
    return LoopOutcome(start, depart, served, lat, keys, vetoed, peak_mem, peak_bound, peak_live,
                       peak_slots, peak_lazy if store is not None else -1, warm_matches, n_over, ingest_busy, server_shed_s,
                       replication_s, shed_tot, totals)
