"""kg.query on hand-made Extractions of the 19 sample papers (gold annotations, no extractor)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_api import BASE, gold_extractions, store_from

import kg.query as q
from kg.query import BadCursor, QueryContext


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    return QueryContext.open(store_from(gold_extractions()), BASE)


def ids(page: q.Page[q.PaperInfo]) -> list[str]:
    return [p.id for p in page.items]


def test_dataset_alias_matches_case_insensitively(ctx: QueryContext) -> None:
    assert ids(q.papers(ctx, dataset="imagenet 256X256")) == ["seed-01"]


def test_dataset_filter_includes_variants(ctx: QueryContext) -> None:
    assert ids(q.papers(ctx, dataset="CIFAR-10")) == ["seed-06"]


def test_filters_combine(ctx: QueryContext) -> None:
    assert ids(q.papers(ctx, method="Transformer", task="visual generation")) == ["seed-01"]


def test_unknown_name_finds_nothing(ctx: QueryContext) -> None:
    page = q.papers(ctx, dataset="no such dataset")
    assert (page.items, page.total, page.has_next, page.end_cursor) == ((), 0, False, None)


def test_pagination_walks_every_paper_once(ctx: QueryContext) -> None:
    seen, after = [], None
    while True:
        page = q.papers(ctx, first=4, after=after)
        seen += ids(page)
        if not page.has_next:
            break
        after = page.end_cursor
    assert seen == [f"seed-{i:02d}" for i in range(1, 20)]


def test_forged_cursor_is_refused(ctx: QueryContext) -> None:
    with pytest.raises(BadCursor):
        q.papers(ctx, after="eyJ4IjoxfQ")


def test_papers_search_filter(ctx: QueryContext) -> None:
    assert ids(q.papers(ctx, search="prompt injection")) == ["seed-12"]


def test_entity_by_alias(ctx: QueryContext) -> None:
    found = q.entity(ctx, name="ipi")
    assert found is not None and (found.id, found.name) == (
        "threat/indirect-prompt-injection",
        "indirect prompt injection",
    )


def test_entity_by_id_and_wrong_type(ctx: QueryContext) -> None:
    found = q.entity(ctx, id="dataset/agentdojo")
    assert found is not None and (found.name, found.paper_count) == ("AgentDojo", 1)
    assert q.entity(ctx, id="dataset/agentdojo", type_="Task") is None


def test_entities_ranked_by_paper_count(ctx: QueryContext) -> None:
    page = q.entities(ctx, type_="Method", first=2)
    assert [(e.name, e.paper_count) for e in page.items] == [("Transformer", 4), ("contrastive learning", 1)]
    assert page.total == 32


def test_defenses_for_narrower_domain(ctx: QueryContext) -> None:
    # by role: the gold extractions say MELON defends (MELON-Aug, also proposed, has no such relation)
    assert [d.name for d in q.defenses(ctx, target="large language models")] == ["MELON"]


def test_defenses_against_threat_alias(ctx: QueryContext) -> None:
    assert [d.name for d in q.defenses(ctx, target="LLM agents", against="IPI")] == ["MELON"]
    assert q.defenses(ctx, against="adversarial perturbation") == []


def test_neighborhood_two_hops(ctx: QueryContext) -> None:
    g = q.neighborhood(ctx, "dataset/agentdojo", depth=2)
    assert g is not None and {"seed-12", "method/melon"} <= {n.id for n in g.nodes} and g.truncated == 0


def test_neighborhood_limit_counts_truncated(ctx: QueryContext) -> None:
    g = q.neighborhood(ctx, "seed-12", depth=1, limit=3)
    assert g is not None and (len(g.nodes), g.truncated) == (3, 7)


def test_related_by_co_occurrence(ctx: QueryContext) -> None:
    iri = ctx.iris.entity_from_id("dataset/imagenet")
    assert [e.name for e in q.related(ctx, [iri], 3)[iri]] == ["Kinetics-600", "UCF101", "Transformer"]


def test_links_filtered_by_type(ctx: QueryContext) -> None:
    assert [(x.relation, x.entity.name) for x in q.links(ctx, "seed-12", type_="Dataset")] == [
        ("usesDataset", "AgentDojo")
    ]


def test_stats(ctx: QueryContext) -> None:
    st = q.stats(ctx)
    assert (st.papers, st.links_per_relation["usesDataset"], st.entities_per_type["Threat"]) == (19, 13, 6)


def test_injection_strings_are_data(ctx: QueryContext) -> None:
    before = ctx.store.triple_count()
    for hostile in ['"} ; DROP ALL ; {', "' OR 1=1 --", "x> } DELETE WHERE { ?s ?p ?o } #", "\\u0022"]:
        assert q.papers(ctx, dataset=hostile, search=hostile).total == 0
        assert q.entity(ctx, id="dataset/" + hostile) is None
        assert q.neighborhood(ctx, hostile) is None
    assert ctx.store.triple_count() == before


def test_search_index_file_follows_deletes(tmp_path: Path) -> None:
    store = store_from(gold_extractions(), str(tmp_path / "kg"))
    ctx = QueryContext.open(store, BASE)
    assert [h.paper.id for h in q.search(ctx, "coastal") if h.paper] == ["seed-03"]
    assert (tmp_path / "kg.search.sqlite").exists()
    store.drop_graphs([ctx.iris.paper_graph("seed-03")])
    ctx.index.sync(store, force=True)
    assert [h.paper.id for h in q.search(ctx, "coastal") if h.paper] == []


def test_an_entitys_degree_is_its_papers_plus_its_entity_links(ctx: QueryContext) -> None:
    g = q.neighborhood(ctx, "seed-12", depth=1)
    assert g is not None
    degrees = {n.id: n.degree for n in g.nodes}
    assert degrees["dataset/agentdojo"] == 1  # one paper
    assert degrees["method/melon"] == 2  # one paper; MELON defends against indirect prompt injection
    assert degrees["threat/indirect-prompt-injection"] == 2  # one paper; the defence pointing at it
    assert degrees["domain/llm-agents"] == 2  # one paper; its broader domain, large language models
