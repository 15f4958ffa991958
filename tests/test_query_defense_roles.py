"""Defenses by role, not kind: what a paper proposes to defend against a threat is a defense whatever its
kind, and an attack that evades defenses is none (real extractor, real store)."""

from __future__ import annotations

import pytest
from fixtures_api import BASE, store_from

import kg.query as q
from kg.extract import Extractor
from kg.query import QueryContext
from kg.types import Paper

ABSTRACTS = {
    "gan": "Deep networks are vulnerable to adversarial examples. We propose Defense-GAN, a new framework "
    "leveraging generative models to protect classifiers against adversarial attacks.",
    "pixel": "Adversarial examples fool image classifiers. We present PixelDefend, a model that purifies "
    "adversarial images before classification.",
    "stealth": "Backdoor attacks threaten deep neural networks. We propose BadNet-X, a stealthy backdoor "
    "that evades existing defenses.",
    "zoo": "Backdoor attacks threaten deep neural networks. We propose TrojanScope, a framework to detect "
    "backdoor attacks in pretrained models.",
}


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    papers = [Paper(id=k, abstract=v) for k, v in ABSTRACTS.items()]
    return QueryContext.open(store_from(list(Extractor(BASE, with_linker=False).extract(papers))), BASE)


def test_a_framework_and_a_model_proposed_to_defend_are_defenses(ctx: QueryContext) -> None:
    found = {(d.name, d.kind) for d in q.defenses(ctx, against="adversarial examples")}
    assert found == {("Defense-GAN", "Framework"), ("PixelDefend", "Model")}


def test_a_detector_of_backdoors_is_a_defense_and_a_stealthy_backdoor_is_not(ctx: QueryContext) -> None:
    assert [d.name for d in q.defenses(ctx, against="backdoor attacks")] == ["TrojanScope"]
