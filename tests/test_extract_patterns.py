"""General writing patterns on invented abstracts: acronym types, specific threat names, coordinated and
listed attack kinds, generic agent domains, modelling tasks, dataset-word task cues, utility as a metric."""

from __future__ import annotations

import pytest

from kg.extract import Extractor
from kg.types import Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(with_linker=False)  # the rule components' own mentions, the linker's candidates


def found(extractor: Extractor, abstract: str, title: str | None = None, type_: str = "") -> set[str]:
    ex = extractor.extract_one(Paper(id="t", abstract=abstract, title=title))
    return {lk.entity.name for lk in ex.links if lk.entity.type == type_}


def test_acronym_takes_the_type_of_its_long_form(extractor: Extractor) -> None:
    text = (
        "Chatbots suffer from covert tool hijacking (CTH) attacks. "
        "On the CTH benchmark ZorbaSuite, our filter halves the damage."
    )
    ex = extractor.extract_one(Paper(id="t", abstract=text))
    got = {(lk.entity.type, lk.entity.name, lk.aliases) for lk in ex.links if "CTH" in lk.aliases}
    assert got == {("Threat", "covert tool hijacking", ("CTH",))}


def test_the_specific_threat_wins_over_the_generic_one(extractor: Extractor) -> None:
    title = "Blocking Indirect Prompt Injection Attacks in Mail Assistants"
    text = "Mail assistants read untrusted messages, which exposes them to indirect prompt injection."
    assert found(extractor, text, title, "Threat") == {"indirect prompt injection"}


def test_attack_after_a_threat_noun_is_dropped(extractor: Extractor) -> None:
    text = "We show that label-flip poisoning attacks corrupt federated clients."
    assert found(extractor, text, type_="Threat") == {"label-flip poisoning"}


def test_coordinated_attack_kinds_are_split(extractor: Extractor) -> None:
    text = "Our detector resists white-box, black-box and gray-box attacks on speech models."
    assert found(extractor, text, type_="Threat") == {
        "white-box attack",
        "black-box attack",
        "gray-box attack",
    }


def test_attack_kinds_listed_after_the_head_are_threats(extractor: Extractor) -> None:
    text = "We design two attack strategies—targeted and untargeted—against route planners."
    assert found(extractor, text, type_="Threat") == {"targeted attack", "untargeted attack"}


def test_defenses_against_an_acronym_do_not_make_it_a_baseline(extractor: Extractor) -> None:
    text = "Robots face covert sensor spoofing (CSS) attacks. Existing defenses against CSS are slow."
    ex = extractor.extract_one(Paper(id="t", abstract=text))
    assert [lk.relation for lk in ex.links if lk.entity.name == "covert sensor spoofing"] == ["studiesThreat"]


def test_a_generic_agent_domain_merges_into_the_specific_one(extractor: Extractor) -> None:
    title = "Safer Memory for AI Agents"
    text = "We study how shopping agents store memories and present a new memory layout for shopping agents."
    assert found(extractor, text, title, "Domain") == {"shopping agents"}


def test_a_noun_before_modeling_makes_a_task(extractor: Extractor) -> None:
    text = "We present a solver for river discharge modeling that runs on one GPU."
    assert found(extractor, text, type_="Task") == {"river discharge modeling"}


def test_an_adjective_before_modeling_is_no_task(extractor: Extractor) -> None:
    text = "Prior solvers rely on implicit modeling of contacts."
    assert found(extractor, text, type_="Task") == set()


def test_a_task_named_before_a_dataset_word(extractor: Extractor) -> None:
    text = "We release a large wildfire spread prediction dataset with daily satellite maps."
    assert found(extractor, text, type_="Task") == {"wildfire spread prediction"}


def test_utility_traded_against_privacy_is_a_metric(extractor: Extractor) -> None:
    text = "Our unlearning scheme removes the samples while preserving utility on held-out data."
    assert found(extractor, text, type_="Metric") == {"utility"}


def test_utility_as_usefulness_is_no_metric(extractor: Extractor) -> None:
    text = "We discuss the utility of sparse priors for planning."
    assert found(extractor, text, type_="Metric") == set()


def test_introducing_an_established_term_with_its_acronym_is_no_proposal() -> None:
    from kg.extract import Extractor
    from kg.types import Paper

    text = "Additionally, we introduce Test-Time Training (TTT) in the clinical domain for the first time."
    links = Extractor(with_linker=False).extract_one(Paper(id="t", abstract=text)).links
    assert [(lk.relation, lk.entity.name) for lk in links if lk.relation == "proposes"] == []


def test_an_acronym_long_form_never_reaches_into_the_title() -> None:
    from kg.extract.acronyms import find_definitions

    (row,) = find_definitions("Foundation Models\n\nTest-Time Training (TTT) adapts a network.")
    assert row[:2] == ("TTT", "Test-Time Training")


def test_a_capitalised_function_word_before_a_benchmark_list_is_no_dataset(extractor: Extractor) -> None:
    text = "While benchmarks such as ZetaQA stress facts, others such as OmegaBench stress plausibility."
    assert "While" not in found(extractor, text, type_="Dataset")


def test_a_size_after_a_dataset_names_a_distinct_release(extractor: Extractor) -> None:
    text = "We evaluate on the MovieLens 25M and MovieLens-1M datasets."
    assert found(extractor, text, type_="Dataset") == {"MovieLens 25M", "MovieLens-1M"}


def test_a_year_or_resolution_glued_to_a_dataset_is_that_dataset(extractor: Extractor) -> None:
    text = "We pretrain on ImageNet-2012 and report results on ImageNet32x32 and COCO2017."
    assert found(extractor, text, type_="Dataset") == {"ImageNet", "COCO"}


def test_a_risk_with_a_safety_qualifier_is_a_threat(extractor: Extractor) -> None:
    text = "Our sandbox shows that chat assistants exhibit safety risks when they call external tools."
    assert found(extractor, text, type_="Threat") == {"safety risk"}


def test_malicious_actors_are_a_threat_but_plain_users_are_not(extractor: Extractor) -> None:
    text = "Agents interact with users, and we study how malicious users steer them during tool use."
    assert found(extractor, text, type_="Threat") == {"malicious user"}


def test_a_title_verb_and_its_object_name_the_task(extractor: Extractor) -> None:
    title = "Modeling Opinion Dynamics on Graphs"
    got = found(extractor, "We fit a model to survey panels.", title, "Task")
    assert got == {"opinion dynamics modeling"}


def test_for_and_a_gerund_name_the_task_with_a_singular_object(extractor: Extractor) -> None:
    text = "Photometric stereo is a technique for estimating surface normals from images."
    assert "surface normal estimation" in found(extractor, text, type_="Task")


def test_solving_names_the_problem_itself(extractor: Extractor) -> None:
    title = "Exactly Solving Minimum Quokka Cover Problems"
    assert found(extractor, "We give an exact solver.", title, "Task") == {"minimum quokka cover"}
