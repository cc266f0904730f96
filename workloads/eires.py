"""EIRES (SIGMOD'21) synthetic datasets DS1 / DS2 and the queries Q1 / Q2 (section 7.1).

DS1: type uniform over A-D, ``id`` uniform 1..100, ``v1`` and ``v2`` uniform 1..``v1_max``
(10^4 as the authors' artifact; the paper's Table 2 says 10^5, run as an extra point).  DS2: as
DS1 but ``v1`` / ``v2`` Zipf with exponent s = 1.01 (Table 2), unbounded as the authors'
generator draws it (data/synthetic_datasets/Zipf_generator.cpp: values up to 9.2e18; the remote
engine factorizes keys, so any value is a key).  ``DS2t``: the Zipf truncated to 1..``v1_max``
(a named variant: keys bounded by the key domain of DS1).  ``DS1a``: DS1 drawn by the authors'
own procedure, ``data/synthetic_datasets/Uniform_generator.cpp`` (``run_uniform(1, 10000, ...)``
with ``IDgen(1, 100)``): ``std::default_random_engine`` (libstdc++'s ``minstd_rand0``, default
seed 1) and libstdc++'s ``uniform_int_distribution`` reproduced draw for draw
(``artifact_uniform_draws``), so its events are the artifact's DS1 file's; ``seed`` and
``v1_max`` do not apply (the generator has neither).  ``ts`` = position.

The queries are the artifact's (they produced the published numbers); Listing 2's Q1 with its two
remote predicates is ``Q1L2`` (``LISTING_2`` holds the paper's text; with Table 2's ranges its
equalities give almost no match, so non-greedy runs take the artifact's threshold form).
Greedy = skip-till-any-match, non-greedy = skip-till-next-match.  Count windows are exclusive
(an event joins when its position minus the first event's is below W), as cepsim's are.
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

TYPES = ("A", "B", "C", "D")
ATTRS = ("id", "v1", "v2")

LISTING_2 = {
    "Q1": "SEQ(A a, B b, C c, D d, B e, C f, A g, D h) WHERE SAME[ID] AND a.v1=REMOTE[d.v1] "
          "AND a.v2=h.v2 AND b.v1=REMOTE[h.v1] WITHIN 8min",
    "Q2": "SEQ(A a, (SEQ(B b, C d, D f) OR SEQ(C c, B e))) WHERE a.v1=b.v1 AND a.v2=e.v1 AND "
          "d.v1=REMOTE[a.v1] AND c.v2=REMOTE[a.v2] WITHIN 50K",
}


def _zipf_truncated(rng: np.random.Generator, n: int, s: float, vmax: int) -> np.ndarray:
    """``n`` draws of P(x) ~ x^-s on 1..vmax (inverse CDF on the finite support)."""
    w = np.arange(1, vmax + 1, dtype=np.float64) ** (-s)
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, rng.random(n), side="right").astype(np.float64) + 1.0


def _minstd_uniform(n_events: int, id_max: int) -> np.ndarray:
    """The draws of the authors' ``Uniform_generator.cpp`` for ``n_events`` events: per event
    the type (U{1..4}), v1 (U{1..10^4}) and ID (U{1..id_max}), in that order, from one
    ``minstd_rand0`` (x <- 16807 x mod 2^31 - 1, seed 1); each ``uniform_int_distribution<int>
    (a, b)`` draw as libstdc++ makes it for a generator of range 2^31 - 3: scaling = (2^31 - 3)
    // (b - a + 1), redraw while x - 1 >= (b - a + 1) * scaling, return a + (x - 1) // scaling.
    Returns int64[n, 3] (type 1..4, v1, ID)."""
    out = np.zeros((n_events, 3), dtype=np.int64)
    x = 1
    urng = 2147483645                         # max() - min() of minstd_rand0
    spans = ((1, 4), (1, 10_000), (1, id_max))
    scal = [urng // (b - a + 1) for a, b in spans]
    past = [(b - a + 1) * sc for (a, b), sc in zip(spans, scal)]
    for i in range(n_events):
        for j in range(3):
            while True:
                x = (16807 * x) % 2147483647
                r = x - 1
                if r < past[j]:
                    break
            out[i, j] = spans[j][0] + r // scal[j]
    return out


def artifact_uniform_draws(n_events: int, id_max: int = 100) -> np.ndarray:
    """``_minstd_uniform`` (numba-compiled when available: ~0.1 s for 500k events)."""
    try:
        from numba import njit
        fn = njit(cache=True)(_minstd_uniform)
    except ImportError:                      # pragma: no cover - numba is a dependency
        fn = _minstd_uniform
    return fn(int(n_events), int(id_max))


def write_artifact_csv(path, n_events: int = 500_000, id_max: int = 100) -> None:
    """Write DS1 as the authors' generator writes it (``name,ArrivalQTime,ID,v1,v2`` rows,
    ArrivalQTime = 1..n, v2 = 0): the file ``run/run_synthetic.sh`` reads
    (``Stream_uniform_500K.csv``; ``id_max = 10`` gives the generator's ``_ID1-10`` file)."""
    d = artifact_uniform_draws(n_events, id_max)
    with open(path, "w") as f:
        for i in range(n_events):
            f.write(f"{TYPES[d[i, 0] - 1]},{i + 1},{d[i, 2]},{d[i, 1]},0\n")


def generate(dataset: str, n_events: int, seed: int, v1_max: int = 10_000,
             zipf_s: float = 1.01) -> EventStream:
    """DS1, DS1a, DS2 or DS2t with ``n_events`` events (deterministic given the arguments)."""
    if dataset not in ("DS1", "DS1a", "DS2", "DS2t"):
        raise CepsimInputError(f"workload eires: dataset {dataset!r} is unknown; use DS1, DS1a "
                               "(the authors' generator), DS2 (unbounded Zipf) or DS2t (Zipf "
                               "truncated to 1..v1_max)")
    if n_events < 0 or v1_max < 1:
        raise CepsimInputError("workload eires: n_events must be >= 0 and v1_max >= 1")
    if dataset == "DS1a":
        d = artifact_uniform_draws(n_events, 100)
        attrs = np.stack([d[:, 2], d[:, 1], np.zeros(n_events)], axis=1).astype(np.float64)
        return EventStream.from_arrays((d[:, 0] - 1).astype(np.int32),
                                       np.arange(n_events, dtype=np.float64), attrs, TYPES,
                                       ATTRS, source="eires:DS1a")
    rng = np.random.default_rng([int(seed), 1 if dataset == "DS1" else 2])   # DS2t: DS2's seed
    types = rng.integers(0, 4, n_events).astype(np.int32)
    ids = rng.integers(1, 101, n_events).astype(np.float64)
    if dataset == "DS1":
        v1 = rng.integers(1, v1_max + 1, n_events).astype(np.float64)
        v2 = rng.integers(1, v1_max + 1, n_events).astype(np.float64)
    elif dataset == "DS2t":
        v1 = _zipf_truncated(rng, n_events, zipf_s, v1_max)
        v2 = _zipf_truncated(rng, n_events, zipf_s, v1_max)
    else:
        v1 = rng.zipf(zipf_s, n_events).astype(np.float64)
        v2 = rng.zipf(zipf_s, n_events).astype(np.float64)
    attrs = np.stack([ids, v1, v2], axis=1)
    return EventStream.from_arrays(types, np.arange(n_events, dtype=np.float64), attrs, TYPES,
                                   ATTRS, source=f"eires:{dataset}")


def load_artifact_csv(path, n_events: int) -> EventStream:
    """The first ``n_events`` events of a stream file in the authors' format (DS1 / DS2 CSVs).

    Rows are ``type,timestamp,id,v1,v2`` as the artifact's generators write them
    (data/synthetic_datasets/Uniform_generator.cpp, the ``ofs <<`` line of ``run_uniform``) and
    its ``readEventStreamFromFiles`` reads them (cep_match.cpp lines 1338-1375: name, timestamp,
    ID, v1, v2).  ``ts`` is the position, as for the generated streams (the artifact's timestamp
    column is the event counter 1..N, so its count window is the same).  Used to run cepsim on
    exactly the events the artifact reads (benchmarks/eires_crosscheck.py).
    """
    from pathlib import Path
    path = Path(path)
    if n_events < 0:
        raise CepsimInputError(f"{path}: n_events must be >= 0, got {n_events}")
    if not path.is_file():
        raise CepsimInputError(f"{path}: stream file not found (the artifact's DS1 is "
                               "data/synthetic_datasets/Stream_uniform_500K.csv, written by "
                               "its Uniform_generator.cpp)")
    types, vals = [], []
    with path.open() as fh:
        for lineno, line in enumerate(fh, 1):
            if len(types) >= n_events:
                break
            parts = line.strip().split(",")
            if parts == [""]:
                continue
            if len(parts) < 5 or parts[0] not in TYPES:
                raise CepsimInputError(f"{path}:{lineno}: expected 'type,timestamp,id,v1,v2' "
                                       f"with type in {TYPES}, got {line.strip()!r}")
            try:
                vals.append((float(parts[2]), float(parts[3]), float(parts[4])))
            except ValueError:
                raise CepsimInputError(f"{path}:{lineno}: id, v1 and v2 must be numbers, got "
                                       f"{line.strip()!r}") from None
            types.append(TYPES.index(parts[0]))
    if len(types) < n_events:
        raise CepsimInputError(f"{path}: has {len(types)} events, {n_events} asked for")
    attrs = np.asarray(vals, dtype=np.float64).reshape(len(types), 3)
    return EventStream.from_arrays(np.asarray(types, np.int32),
                                   np.arange(len(types), dtype=np.float64), attrs, TYPES, ATTRS,
                                   source=str(path))


def queries(query: str, greedy: bool, threshold: float = 5000.0) -> list[str]:
    """Pattern texts of a query (Q2 is two runs whose latencies are pooled).

    Variants for the sensitivity study of Fig. 12: ``Q1end`` (the remote predicate checked at
    the last event: PFetch can look ahead up to seven classes) and ``Q1begin`` (checked at the
    second event: LzEval can postpone across up to six classes; section 7.3's seventh needs the
    check at the first event: ``Q1first`` in ``sim/studies/eires/scenario.py``).  Both take the threshold
    form under either policy (the greedy equality moved to h finds no match on 20k events of
    DS1).  ``Q1L2``: Listing 2's Q1 as written, two remote predicates
    (non-greedy: each in the threshold form); ``Q1L2t``: the threshold form under both policies.
    """
    pol = "skip-till-any-match" if greedy else "skip-till-next-match"
    q1 = "SEQ(A a, B b, C c, D d, A e, B f, C g, D h)"
    if query == "Q1":
        rp = "d.v1 = REMOTE[a.v1]" if greedy else f"REMOTE[a.v1] <= {threshold:g} AT d"
        return [f"PATTERN {q1} WHERE SAME[id] AND {rp} WITHIN 4000 events POLICY {pol}"]
    if query == "Q1end":
        return [f"PATTERN {q1} WHERE SAME[id] AND REMOTE[a.v1] <= {threshold:g} AT h "
                f"WITHIN 4000 events POLICY {pol}"]
    if query == "Q1begin":
        return [f"PATTERN {q1} WHERE SAME[id] AND REMOTE[a.v1] <= {threshold:g} AT b "
                f"WITHIN 4000 events POLICY {pol}"]
    if query in ("Q1L2", "Q1L2t"):
        # Listing 2's Q1 as written (section 7.1): its own class order, two remote predicates,
        # keyed by d.v1 (checked at d) and by h.v1 (checked at h), and a.v2 = h.v2.  Greedy:
        # the equalities as written; non-greedy: each remote predicate in the threshold form
        # of the artifact's non-greedy Q1 (REMOTE[key] <= threshold), keys and check classes
        # as written.  Window: the artifact's Q1 window (4,000 events: its 4ms at one event
        # per microsecond, run/synthetic.eql query P2); Listing 2's 8min has no count reading.
        q = "SEQ(A a, B b, C c, D d, B e, C f, A g, D h)"
        if greedy and query == "Q1L2":
            rp = "a.v1 = REMOTE[d.v1] AND b.v1 = REMOTE[h.v1]"
        else:
            rp = (f"REMOTE[d.v1] <= {threshold:g} AT d AND REMOTE[h.v1] <= {threshold:g} "
                  "AT h")
        return [f"PATTERN {q} WHERE SAME[id] AND {rp} AND a.v2 = h.v2 "
                f"WITHIN 4000 events POLICY {pol}"]
    if query == "Q2":
        r1 = "REMOTE[a.v1] = c.v1 AT c" if greedy else f"REMOTE[a.v1] <= {threshold:g} AT c"
        r2 = "REMOTE[a.v1] = b.v1 AT b" if greedy else f"REMOTE[a.v1] <= {threshold:g} AT b"
        return [f"PATTERN SEQ(A a, B b, C c, D d) WHERE a.v1 = b.v1 AND {r1} "
                f"WITHIN 5000 events POLICY {pol}",
                f"PATTERN SEQ(A a, C b, B c) WHERE a.v1 = b.v1 AND {r2} "
                f"WITHIN 5000 events POLICY {pol}"]
    raise CepsimInputError(f"workload eires: query {query!r} is unknown; use Q1, Q2, Q1end, "
                           "Q1begin, Q1L2 or Q1L2t")
