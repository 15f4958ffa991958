"""Attacks by role, the mirror of defenses: what a paper proposes to attack with (to jailbreak, poison, evade,
fool, hijack or extract) is an attack on its domains and realises its threats whatever its kind, and a
defense is none (real extractor, real store, real HTTP server, `kg attacks` and the explorer in Chromium)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixtures_api import BASE, Server, run_kg, serve, store_from
from test_explorer_browser import _new_page, browser  # noqa: F401  (the shared Chromium fixture)

import kg.query as q
from kg.build import schema_graphs
from kg.extract import Extractor
from kg.query import QueryContext
from kg.store.embedded import EmbeddedStore
from kg.types import Extraction, Paper

ABSTRACTS = {
    "jail": "Jailbreak attacks threaten LLM agents. We propose ChainBreaker, a framework that jailbreaks LLM "
    "agents with a few queries.",
    "inject": "LLM agents read untrusted web pages. We present PageTrap, a method that hijacks LLM agents "
    "through prompt injection.",
    "poison": "Backdoor attacks threaten deep neural networks. We introduce ShadowMark, a model that poisons "
    "the training data to implant a backdoor.",
    "stealth": "Backdoor attacks threaten deep neural networks. We propose BadNet-X, a stealthy backdoor "
    "that evades existing defenses.",
    "guard": "Jailbreak prompts bypass the safety of LLM agents. We propose AgentShield, a defense that "
    "detects jailbreak prompts before they reach the agent.",
    "copy": "Model extraction threatens deployed machine learning APIs. We present CopyCat-Q, an algorithm "
    "that extracts a functional copy of a black-box model from its predictions.",
    "robust": "Adversarial examples fool image classifiers. We propose SmoothNet, an architecture robust to "
    "adversarial attacks.",
    "uni": "Universal adversarial perturbations threaten image classifiers. We propose UniFool, an algorithm "
    "that crafts one universal adversarial perturbation to fool any input.",
    "pba": "Attackers poison the data of federated clients to implant a backdoor. We propose Prompt-Based "
    "Aggregation (PBA) to defend against the backdoor attack.",
    "read": "Adversarial attacks expose how relation extraction models rely on entities. We propose READ-X, "
    "an adversarial training method for relation extraction.",
    "embed": "Adversarial attacks threaten sentence encoders. We introduce RobustEmb, a framework that "
    "improves the robustness of sentence embeddings against adversarial attacks.",
    "sticker": "Autonomous driving relies on object detectors. We propose StickerFool, a method that fools "
    "the detectors with adversarial examples printed on road signs.",
}


@pytest.fixture(scope="module")
def extractions() -> list[Extraction]:
    papers = [Paper(id=k, abstract=v) for k, v in ABSTRACTS.items()]
    return list(Extractor(BASE, with_linker=False).extract(papers))


def built(extractions: list[Extraction], path: str | None = None) -> EmbeddedStore:
    """The papers with the vocabulary graphs, as `kg build` stores them (LLM agents broader large language
    model comes from the vocabulary)."""
    store = store_from(extractions, path)
    store.replace_graphs(schema_graphs(BASE))
    return store


@pytest.fixture(scope="module")
def ctx(extractions: list[Extraction]) -> QueryContext:
    return QueryContext.open(built(extractions), BASE)


def names(found: list[q.EntityInfo]) -> list[str]:
    return [e.name for e in found]


def test_the_extractor_writes_an_attacks_threat_and_domain(extractions: list[Extraction]) -> None:
    jail = next(x for x in extractions if x.paper.id == "jail")
    assert sorted((r.subject.name, r.relation, r.object.name) for r in jail.relations) == [
        ("ChainBreaker", "attacksDomain", "LLM agents"),
        ("ChainBreaker", "realizesThreat", "jailbreak"),
    ]


def test_a_framework_and_a_method_proposed_to_attack_llm_agents_are_attacks_on_them(
    ctx: QueryContext,
) -> None:
    found = {(e.name, e.kind) for e in q.attacks(ctx, target="LLM agents")}
    assert found == {("ChainBreaker", "Framework"), ("PageTrap", "Method")}


def test_attacks_realising_a_broader_threat_include_those_realising_a_narrower_one(ctx: QueryContext) -> None:
    # universal adversarial perturbation skos:broader adversarial example (the vocabulary)
    assert names(q.attacks(ctx, against="universal adversarial perturbation")) == ["UniFool"]
    assert names(q.attacks(ctx, against="adversarial example")) == ["StickerFool", "UniFool"]


def test_a_stealthy_backdoor_that_evades_defenses_is_an_attack(ctx: QueryContext) -> None:
    assert names(q.attacks(ctx, against="backdoor attack")) == ["BadNet-X", "ShadowMark"]


def test_a_defense_against_a_threat_is_no_attack_realising_it(ctx: QueryContext) -> None:
    assert names(q.attacks(ctx, against="jailbreak")) == ["ChainBreaker"]
    assert names(q.defenses(ctx, against="jailbreak")) == ["AgentShield"]


def test_a_defense_whose_head_noun_says_attack_is_a_defense_and_no_attack(ctx: QueryContext) -> None:
    # "(PBA) to defend against the backdoor attack": the head noun makes its kind Attack, its purpose defends
    assert [(e.name, e.kind) for e in q.defenses(ctx, against="backdoor attack")] == [
        ("PBA (Prompt-Based Aggregation)", "Attack")
    ]
    assert "PBA (Prompt-Based Aggregation)" not in names(q.attacks(ctx))


def test_a_method_for_relation_extraction_or_improving_robustness_is_no_attack(ctx: QueryContext) -> None:
    found = names(q.attacks(ctx))
    assert "READ-X" not in found and "RobustEmb" not in found


def test_an_architecture_robust_to_attacks_is_no_attack(ctx: QueryContext) -> None:
    assert "SmoothNet" not in names(q.attacks(ctx, against="adversarial examples"))
    assert "SmoothNet" not in names(q.attacks(ctx))


def test_extracting_a_copy_of_a_model_realises_model_extraction(ctx: QueryContext) -> None:
    assert names(q.attacks(ctx, against="model extraction")) == ["CopyCat-Q"]


def test_a_domain_and_a_threat_together_narrow_the_attacks(ctx: QueryContext) -> None:
    assert names(q.attacks(ctx, target="LLM agents", against="prompt injection")) == ["PageTrap"]


def test_every_attack_and_no_defense(ctx: QueryContext) -> None:
    assert names(q.attacks(ctx)) == [
        "BadNet-X", "ChainBreaker", "CopyCat-Q", "PageTrap", "ShadowMark", "StickerFool", "UniFool"
    ]


@pytest.fixture(scope="module")
def server(extractions: list[Extraction]) -> Iterator[Server]:
    yield from serve(built(extractions))


def test_graphql_attacks_list_each_attack_with_its_papers(server: Server) -> None:
    query = '{ attacks(target: "LLM agents") { id name kind papers { edges { node { id } } } } }'
    body = httpx.post(server.url + "/graphql", json={"query": query}, timeout=30).json()
    assert body["data"]["attacks"] == [
        {"id": "method/chainbreaker", "name": "ChainBreaker", "kind": "Framework",
         "papers": {"edges": [{"node": {"id": "jail"}}]}},
        {"id": "method/pagetrap", "name": "PageTrap", "kind": "Method",
         "papers": {"edges": [{"node": {"id": "inject"}}]}},
    ]


def test_kg_attacks_against_a_threat_as_csv(extractions: list[Extraction], tmp_path: Path) -> None:
    store = tmp_path / "store"
    built(extractions, str(store)).close()
    out = run_kg("attacks", "--against", "backdoor attack", "--format", "csv", "--store", store).stdout
    assert list(csv.reader(io.StringIO(out))) == [
        ["id", "name", "type", "papers"], ["method/badnet-x", "BadNet-X", "Method", "1"],
        ["method/shadowmark", "ShadowMark", "Method", "1"],
    ]


def test_a_threats_panel_asks_for_the_attacks_realising_it_in_one_click(
    server: Server, browser: Any  # noqa: F811
) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server.url}/explore#node=threat/backdoor-attack")
    page.click("#panel button[data-ask='attacks-against']")
    page.wait_for_selector("#panel ul.answer")
    shown = page.eval_on_selector_all("#panel ul.answer button.link", "els => els.map(e => e.textContent)")
    title = page.inner_text("#panel h2")
    page.context.close()
    assert (title, shown, errors) == ("Attacks realising backdoor attack", ["BadNet-X", "ShadowMark"], [])
