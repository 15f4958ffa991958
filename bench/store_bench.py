"""Store benchmark: replace_graphs throughput (papers/s) by batch size on disk, and dump seconds.

    .venv/bin/python bench/store_bench.py [--papers 2000] [--quads 60]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.store.embedded import EmbeddedStore  # noqa: E402

BASE = "https://w3id.org/paperkg/"


def paper(i: int, n: int, tag: str) -> tuple[str, list[ox.Quad]]:
    """A paper-like graph: paper facts, link nodes with evidence, entity labels (n quads)."""
    g = ox.NamedNode(f"{BASE}graph/paper/p{i}")
    p = ox.NamedNode(f"{BASE}paper/p{i}")
    quads = []
    for j in range(n):
        s = p if j % 3 == 0 else ox.NamedNode(f"{BASE}paper/p{i}/link/{j // 3}")
        o: ox.NamedNode | ox.Literal = (ox.NamedNode(f"{BASE}dataset/d{(i * 31 + j) % 3000}") if j % 4 == 0
                                        else ox.Literal(f"{tag} evidence sentence {j} of paper {i}"))
        quads.append(ox.Quad(s, ox.NamedNode(f"{BASE}ontology#p{j % 17}"), o, g))
    return g.value, quads


def run(batch: int, papers: int, quads: int) -> tuple[float, float]:
    """(insert papers/s, replace papers/s) for `papers` papers in batches of `batch`, fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddedStore(tmp + "/kg", base_iri=BASE)
        rates = []
        for tag in ("v1", "v2"):  # v1 inserts into empty graphs, v2 replaces every graph
            t0 = time.perf_counter()
            for start in range(0, papers, batch):
                ids = range(start, min(start + batch, papers))
                store.replace_graphs(dict(paper(i, quads, tag) for i in ids))
            rates.append(papers / (time.perf_counter() - t0))
        assert store.triple_count() == papers * quads
        store.close()
        return rates[0], rates[1]


def dumps(papers: int, quads: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddedStore(tmp + "/kg", base_iri=BASE)
        for start in range(0, papers, 200):
            store.replace_graphs(dict(paper(i, quads, "v1") for i in range(start, min(start + 200, papers))))
        out = {}
        for fmt in ("nquads", "trig", "turtle", "nt", "jsonld", "xml"):
            t0 = time.perf_counter()
            store.dump(io.BytesIO(), fmt)
            out[fmt] = time.perf_counter() - t0
        store.close()
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--quads", type=int, default=60)
    a = ap.parse_args()
    print(f"replace_graphs on disk, {a.papers} papers x {a.quads} quads")
    print(f"{'batch':>6} {'insert papers/s':>16} {'replace papers/s':>17}")
    for batch in (1, 50, 500):
        n = min(a.papers, 500) if batch == 1 else a.papers
        ins, rep = run(batch, n, a.quads)
        print(f"{batch:>6} {ins:>16,.0f} {rep:>17,.0f}")
    d = dumps(a.papers * 5, a.quads)
    print(f"\ndump of {a.papers * 5 * a.quads:,} quads (s): "
          + "  ".join(f"{k} {v:.2f}" for k, v in d.items()))


if __name__ == "__main__":
    main()
