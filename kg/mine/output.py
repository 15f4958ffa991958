"""Writing the mined tier: a SKOS concept scheme of its own (`<vocab/mined>`), gzipped Turtle with relative
IRIs like the curated files, each concept with its support, termhood and the abstracts it was read in."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from kg.mine.terms import MinedTerm
from kg.names import match_key, slug

SCHEME = "vocab/mined"
HEADER = """# Mined vocabulary tier: ML terminology found automatically in a corpus of conference abstracts by
# `kg mine` (C-value termhood over noun-phrase candidates, acronym definitions, head-noun and context typing).
# Generated: do not edit by hand; regenerate with `kg mine`. Curated concepts win over these on conflict.
# Relative IRIs: parse with the deployment's base IRI.

@prefix kg: <ontology#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

<vocab/mined> a skos:ConceptScheme ; skos:prefLabel "Mined terminology" ;
    rdfs:comment "Second-tier concepts mined from conference abstracts; lower prior confidence" .
"""


def turtle_string(s: str) -> str:
    """A Turtle string literal (JSON escaping is a valid subset of Turtle's ECHAR/UCHAR escapes)."""
    return json.dumps(s, ensure_ascii=False)


def concept_iri(t: MinedTerm) -> str:
    return f"{t.type.lower()}/{slug(t.name)}"


def turtle(terms: Iterable[MinedTerm], meta: Mapping[str, object]) -> str:
    out = io.StringIO()
    out.write(HEADER)
    out.write(f"# {turtle_string(json.dumps(meta, sort_keys=True))[1:-1]}\n\n")
    for t in terms:
        lines = [
            f"<{concept_iri(t)}> a skos:Concept, kg:{t.type} ; skos:inScheme <{SCHEME}> ;",
            f"    skos:prefLabel {turtle_string(t.name)} ;",
        ]
        for a in t.aliases:
            lines.append(f"    skos:altLabel {turtle_string(a)} ;")
        if t.alt_type:
            lines.append(f"    kg:altType kg:{t.alt_type} ;")
        lines.append(f"    kg:support {t.support} ; kg:termhood {t.cvalue} ; kg:venues {t.venues} ;")
        if t.first_year and t.last_year:
            lines.append(f"    kg:firstYear {t.first_year} ; kg:lastYear {t.last_year} ;")
        lines.append(f"    kg:minedFrom {turtle_string(' '.join(t.evidence))} ;")
        lines.append(f"    kg:minedBy {turtle_string(t.source)} .")
        out.write("\n".join(lines) + "\n")
    return out.getvalue()


def write_tier(path: Path, terms: list[MinedTerm], meta: Mapping[str, object]) -> None:
    """Write the tier deterministically (sorted, fixed gzip mtime) and atomically."""
    seen: set[str] = set()
    unique = []
    for t in sorted(terms, key=lambda t: (t.type, slug(t.name), t.name)):
        if (iri := concept_iri(t)) not in seen:
            seen.add(iri)
            unique.append(t)
    data = turtle(unique, {**meta, "concepts": len(unique)}).encode("utf-8")
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(data)
    tmp.replace(path)


def drop_curated(terms: list[MinedTerm], curated_keys: set[str]) -> list[MinedTerm]:
    """The curated tier wins: mined concepts any of whose labels is a curated label are left out."""
    return [
        t
        for t in terms
        if match_key(t.name) not in curated_keys
        and not any(match_key(a) in curated_keys for a in t.aliases if len(a) > 4)
    ]
