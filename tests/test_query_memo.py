"""Per-generation caching in kg.query: answers follow writes, keyset cursors survive inserts, name ties."""

from __future__ import annotations

from fixtures_api import BASE, gold_extractions

import kg.query as q
from kg.build import write_extractions
from kg.query import QueryContext
from kg.query.memo import GenerationCache
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper


class FakeStore:
    """Just enough of a Store for the cache: a generation token the test moves on."""

    location = "memory:"

    def __init__(self) -> None:
        self.gen = "1"

    def generation(self) -> str:
        return self.gen


def _paper(pid: str, dataset: str, name: str = "") -> Extraction:
    ds = EntityRef("Dataset", dataset)
    ev = Evidence(f"We evaluate on {dataset}.", dataset, 15, 15 + len(dataset), 0.9)
    return Extraction(Paper(pid, f"We evaluate on {dataset}.", name or pid), (Link("usesDataset", ds, ev),))


def _ctx(extractions: list[Extraction]) -> QueryContext:
    store = EmbeddedStore(None, base_iri=BASE)
    write_extractions(store, extractions, GraphMapper(Iris(BASE)))
    return QueryContext.open(store, BASE)


def _add(ctx: QueryContext, extractions: list[Extraction]) -> None:
    write_extractions(ctx.store, extractions, GraphMapper(Iris(BASE)))


def test_cache_recomputes_after_generation_change() -> None:
    store, cache, calls = FakeStore(), GenerationCache(), []

    def compute() -> list[int]:
        calls.append(1)
        return [len(calls)]

    assert cache.get(store, "k", compute, len) == [1]  # type: ignore[arg-type]
    assert cache.get(store, "k", compute, len) == [1]  # type: ignore[arg-type]
    assert cache.counts(store, ["a"], lambda m: {"a": 5}) == {"a": 5}  # type: ignore[arg-type]
    store.gen = "2"
    assert cache.get(store, "k", compute, len) == [2]  # type: ignore[arg-type]
    assert cache.counts(store, ["a"], lambda m: {"a": 6}) == {"a": 6}  # type: ignore[arg-type]


def test_cache_is_bounded() -> None:
    store, cache = FakeStore(), GenerationCache(max_entries=2, max_weight=10)
    for k in range(5):
        cache.get(store, k, lambda k=k: [k] * 4, len)  # type: ignore[arg-type, misc]
    assert cache.peek(store, 0) is None and cache.peek(store, 4) == [4] * 4  # type: ignore[arg-type]


def test_answers_follow_writes() -> None:
    ctx = _ctx([_paper(f"p-{i}", "MemoSet") for i in range(3)])
    assert q.papers(ctx, dataset="memoset").total == 3
    assert q.entity(ctx, name="MemoSet").paper_count == 3  # type: ignore[union-attr]
    top = q.entities(ctx, "Dataset", first=1).items[0]
    assert (top.name, top.paper_count) == ("MemoSet", 3)
    _add(ctx, [_paper("p-9", "MemoSet"), _paper("p-8", "OtherSet")])
    assert q.papers(ctx, dataset="memoset").total == 4
    assert q.entity(ctx, name="MemoSet").paper_count == 4  # type: ignore[union-attr]
    assert q.entities(ctx, "Dataset", first=5).total == 2
    ctx.store.drop_graphs([ctx.iris.paper_graph("p-9")])
    assert [p.id for p in q.papers(ctx, dataset="memoset").items] == ["p-0", "p-1", "p-2"]


def test_keyset_cursor_is_stable_under_inserts() -> None:
    ctx = _ctx([_paper(f"p-{i:02d}", "KeySet") for i in range(0, 20, 2)])  # p-00, p-02 ... p-18
    first = q.papers(ctx, dataset="KeySet", first=4)
    assert [p.id for p in first.items] == ["p-00", "p-02", "p-04", "p-06"]
    _add(ctx, [_paper("p-01", "KeySet"), _paper("p-07", "KeySet")])  # one before the cursor, one after
    rest, after = [], first.end_cursor
    while after is not None:
        page = q.papers(ctx, dataset="KeySet", first=4, after=after)
        rest += [p.id for p in page.items]
        after = page.end_cursor if page.has_next else None
    assert rest == ["p-07", "p-08", "p-10", "p-12", "p-14", "p-16", "p-18"]
    keyset = ctx.iris.entity_from_id("dataset/keyset")
    by_entity = q.papers_of_entities(ctx, [keyset], None, 3, first.end_cursor)
    assert [p.id for p in next(iter(by_entity.values())).items] == ["p-07", "p-08", "p-10"]


def test_name_prefers_exact_canonical_name_then_most_papers() -> None:
    alias = EntityRef("Threat", "indirect prompt injection")
    ev = Evidence("IPI attacks agents.", "IPI", 0, 3, 0.9)
    many = [
        Extraction(Paper(f"t-{i}", "IPI attacks agents.", "t"), (Link("studiesThreat", alias, ev, ("IPI",)),))
        for i in range(3)
    ]
    ctx = _ctx([*many, _paper("d-1", "IPI")])
    for _ in range(2):  # cold, then cached: the same answer
        found = q.entity(ctx, name="ipi")
        assert found is not None and (found.id, found.paper_count) == ("dataset/ipi", 1)
    assert q.entity(ctx, name="ipi", type_="Threat").id == "threat/indirect-prompt-injection"  # type: ignore[union-attr]


def test_gold_counts_match_uncached_ranking() -> None:
    ctx = _ctx(gold_extractions())
    page = q.entities(ctx, "Method", first=2)
    assert [(e.name, e.paper_count) for e in page.items] == [("Transformer", 4), ("contrastive learning", 1)]
    assert all(e.paper_count == q.entity(ctx, id=e.id).paper_count for e in page.items)  # type: ignore[union-attr]
