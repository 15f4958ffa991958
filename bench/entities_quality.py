"""What the graph's entities mean, measured on corpus abstracts (issue 27, (a)-(c)).

    .venv/bin/python bench/entities_quality.py [--per-file 100 | --issue-set] [--corpus DIR] [--json OUT]
                                               [--sample OUT]

Reads the first N records (default 100) of each of ECCV 2022, NAACL 2024, COLM 2025 and WACV 2024 (with
`--issue-set`, issue 27's 3,000: the first 1,000, 800, 600 and 600 of them) from the read-only corpus
(`../shared/data/corpus`, or $KG_CORPUS; never copied), extracts them, and prints:

(a) acronym consistency: of the links whose mention, or one of whose aliases, is an acronym the same
    abstract defines ("Long Form (LF)"), the share whose entity's name shares a content word with that
    definition (also for the stricter set whose evidence mention is the acronym itself);
(b) entities whose acronym mentions carry in-paper definitions with no content word in common (two papers'
    definitions of the acronym, or a definition and the entity's name), listed;
(c) of the task/method/dataset entities whose name ends with another such entity's name of two or more
    words (same type), the share with a `skos:broader` path to it (the build's broader links plus the
    curated vocabulary's).

(e) fragments: of the links, how many are a piece of a longer name the paper writes: every place the
    abstract or title writes the link's name lies inside the mention of another link of the same type
    ("Adaptive Semantic Segmentation" where the paper only ever writes "Domain Adaptive Semantic
    Segmentation"); listed.

`--decode all_occurrences=0` sets the trained linker's decoding choices for this run (the
default extractor's own otherwise). `--sample OUT` writes 100 random (entity, alias) pairs and 100 random
(paper, entity) links as JSON Lines for judging by reading each against its abstract (the issue's (d);
nothing here judges them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.extract import Extractor  # noqa: E402
from kg.extract.acronyms import find_definitions  # noqa: E402
from kg.extract.canon import plain_long_form  # noqa: E402
from kg.extract.lexicon import load_lexicon  # noqa: E402
from kg.io import read_papers  # noqa: E402
from kg.names import fold, match_key, singular  # noqa: E402
from kg.settings import DEFAULT_BASE_IRI  # noqa: E402
from kg.types import Extraction, Paper  # noqa: E402

CORPUS = Path(os.environ.get("KG_CORPUS") or next(
    (p / "shared" / "data" / "corpus" for p in ROOT.parents if (p / "shared" / "data" / "corpus").is_dir()),
    ROOT.parent / "shared" / "data" / "corpus",
))  # beside the checkout (../shared), or beside a worktree's parent
FILES = ("eccv_eccv2022", "naacl_naacl2024", "colm_colm2025", "wacv_wacv2024")
_WORD = re.compile(r"[a-z0-9]+")
_FUNCTION = frozenset(["a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to",
                       "with", "via"])
Ref = tuple[str, str]  # (type, name)


def words(text: str) -> set[str]:
    """Content words (function words dropped, singular), the issue's sense of "shares a content word"."""
    return {singular(w) for w in _WORD.findall(fold(text)) if w not in _FUNCTION}


def papers(counts: list[int], corpus: Path) -> Iterator[Paper]:
    for name, per_file in zip(FILES, counts, strict=True):
        if not (corpus / f"{name}.jsonl.gz").is_file():
            raise SystemExit(f"no {name}.jsonl.gz in {corpus} (set KG_CORPUS)")
        n = 0
        for item in read_papers(corpus / f"{name}.jsonl.gz"):
            if isinstance(item, Paper) and item.abstract:
                yield item
                n += 1
                if n >= per_file:
                    break


def definitions(ex: Extraction) -> dict[str, str]:
    """Short form → long form of the acronyms the paper defines (title or abstract)."""
    out: dict[str, str] = {}
    for text in (ex.paper.title or "", ex.paper.abstract or ""):
        for a in find_definitions(text):
            out.setdefault(a.short, plain_long_form(a.long))  # "FI**nancial" is markdown for "Financial"
    return out


def _consistent(name: str, short: str, long: str) -> bool:
    """The entity's name shares a content word with the definition, or is the defined acronym itself (a
    proposal named "MAC" whose long form is its alias)."""
    return bool(words(name) & words(long)) or match_key(name) == match_key(short)


def measure(exs: list[Extraction]) -> dict[str, object]:
    # (a)
    a_all = a_all_ok = a_strict = a_strict_ok = 0
    defs_of: dict[Ref, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # entity → short → longs
    for ex in exs:
        defs = definitions(ex)
        for lk in ex.links:
            ref = (str(lk.entity.type), lk.entity.name)
            forms = {lk.evidence.mention, *lk.aliases}
            shorts = [s for s in defs if s in forms or s + "s" in forms]
            if not shorts:
                continue
            ok = any(_consistent(lk.entity.name, s, defs[s]) for s in shorts)
            a_all += 1
            a_all_ok += ok
            if lk.evidence.mention in shorts or lk.evidence.mention.rstrip("s") in shorts:
                a_strict += 1
                a_strict_ok += ok
            for s in shorts:
                defs_of[ref][s].add(defs[s])
    # (b)
    clashing = []
    for ref, by_short in sorted(defs_of.items()):
        longs = sorted({x for v in by_short.values() for x in v})
        named = [*([] if any(_consistent(ref[1], s, "") for s in by_short) else [ref[1]]), *longs]
        if any(not (words(x) & words(y)) for i, x in enumerate(named) for y in named[i + 1 :]):
            clashing.append({"entity": f"{ref[0]}: {ref[1]}", "definitions": longs})
    # (c)
    ents: set[Ref] = {(str(lk.entity.type), lk.entity.name) for ex in exs for lk in ex.links}
    ents = {e for e in ents if e[0] in ("Task", "Method", "Dataset")}
    by_key = {(t, match_key(n)): (t, match_key(n)) for t, n in ents}
    edges: dict[Ref, set[Ref]] = defaultdict(set)
    for ex in exs:
        for lk in ex.links:
            for b in (*lk.broader, *((lk.variant_of,) if lk.variant_of else ())):
                edges[(lk.entity.type, match_key(lk.entity.name))].add((b.type, match_key(b.name)))
    for e in load_lexicon(DEFAULT_BASE_IRI).entries:
        for b in e.broader:
            edges[(e.ref.type, match_key(e.ref.name))].add((b.type, match_key(b.name)))
    names = {(t, match_key(n)): n for t, n in ents}
    pairs: list[tuple[Ref, Ref]] = []
    for t, name in sorted(ents):
        ws = name.split()
        for k in range(1, len(ws) - 1):
            other = by_key.get((t, match_key(" ".join(ws[k:]))))
            if other is not None and other != (t, match_key(name)):
                pairs.append(((t, name), other))
    reached = [p for p in pairs if _reaches(edges, (p[0][0], match_key(p[0][1])), p[1])]
    fragments = [f for ex in exs for f in _fragments(ex)]
    return {
        "papers": len(exs),
        "links": sum(len(ex.links) for ex in exs),
        "a_links": a_all,
        "a_consistent": a_all_ok,
        "a_share": round(a_all_ok / a_all, 4) if a_all else None,
        "a_strict_links": a_strict,
        "a_strict_consistent": a_strict_ok,
        "a_strict_share": round(a_strict_ok / a_strict, 4) if a_strict else None,
        "b_entities": len(clashing),
        "b_list": clashing,
        "c_pairs": len(pairs),
        "c_with_broader": len(reached),
        "c_share": round(len(reached) / len(pairs), 4) if pairs else None,
        "c_missing": [f"{a[1]} -> {names[b]}" for a, b in pairs if (a, b) not in reached][:40],
        "e_fragments": len(fragments),
        "e_share": round(len(fragments) / max(1, sum(len(ex.links) for ex in exs)), 4),
        "e_list": fragments[:40],
    }


def _fragments(ex: Extraction) -> list[str]:
    """The links of one paper whose name, wherever the paper writes it, is inside another same-type link's
    mention (a piece of a longer name)."""
    texts = {"title": ex.paper.title or "", "abstract": ex.paper.abstract or ""}
    out = []
    for lk in ex.links:
        form = lk.evidence.mention
        if len(form) < 3:
            continue
        longer = [
            o.evidence.mention
            for o in ex.links
            if o.entity.type == lk.entity.type
            and o.entity != lk.entity
            and len(o.evidence.mention) > len(form)
            and form.lower() in o.evidence.mention.lower()
        ]
        if not longer:
            continue
        alone = 0
        for text in texts.values():
            low = text.lower()
            at = [m.start() for m in re.finditer(re.escape(form.lower()), low)]
            inside = {
                i for lg in longer for m in re.finditer(re.escape(lg.lower()), low) for i in at
                if m.start() <= i and i + len(form) <= m.end()
            }
            alone += len(at) - len(inside)
        if alone == 0:
            out.append(f"{ex.paper.id}: {lk.entity.type} {form!r} in {longer[0]!r}")
    return out


def _reaches(edges: dict[Ref, set[Ref]], start: Ref, goal: Ref) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def sample(exs: list[Extraction], out: Path, seed: int = 27) -> None:
    rng = random.Random(seed)
    alias_pairs = sorted({(lk.entity.type, lk.entity.name, a, ex.paper.id)
                          for ex in exs for lk in ex.links for a in lk.aliases if a != lk.entity.name})
    links = [(ex.paper.id, lk) for ex in exs for lk in ex.links]
    with out.open("w", encoding="utf-8") as fh:
        for t, n, a, pid in rng.sample(alias_pairs, min(100, len(alias_pairs))):
            fh.write(json.dumps({"kind": "alias", "paper": pid, "type": t, "entity": n, "alias": a}) + "\n")
        for pid, lk in rng.sample(links, min(100, len(links))):
            row = {"kind": "link", "paper": pid, "relation": lk.relation, "type": lk.entity.type,
                   "entity": lk.entity.name, "mention": lk.evidence.mention, "sentence": lk.evidence.sentence}
            fh.write(json.dumps(row) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-file", type=int, default=100, help="records read from each file")
    ap.add_argument("--issue-set", action="store_true",
                    help="issue 27's set instead: the first 1,000 of ECCV 2022, 800 of NAACL 2024, 600 of "
                    "COLM 2025 and 600 of WACV 2024")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    ap.add_argument("--sample", type=Path, help="write 100 alias pairs and 100 links for judging here")
    ap.add_argument("--decode", default="", help="the linker's decoding choices, as name=0|1,…")
    args = ap.parse_args()
    t0 = time.perf_counter()
    counts = [1000, 800, 600, 600] if args.issue_set else [args.per_file] * len(FILES)
    extractor = Extractor()
    if args.decode and "paperkg_linker" in extractor.nlp.pipe_names:
        info = extractor.nlp.get_pipe("paperkg_linker").model.info
        info.update(dict(kv.split("=", 1) for kv in args.decode.split(",")))
    exs = list(extractor.extract(papers(counts, args.corpus)))
    figures = measure(exs)
    figures["seconds"] = round(time.perf_counter() - t0, 1)
    read = ", ".join(f"{n} of {f}" for n, f in zip(counts, FILES, strict=True))
    print(f"{figures['papers']} abstracts (first {read}), "
          f"{figures['links']} links, {figures['seconds']} s")
    print(f"(a) acronym consistency: {figures['a_consistent']}/{figures['a_links']} = {figures['a_share']} "
          f"(evidence mention is the acronym: {figures['a_strict_consistent']}/{figures['a_strict_links']} "
          f"= {figures['a_strict_share']})")
    print(f"(b) entities with clashing definitions: {figures['b_entities']}")
    for row in figures["b_list"]:  # type: ignore[attr-defined]
        print(f"    {row['entity']}: {row['definitions']}")
    print(f"(c) variants with a broader path: {figures['c_with_broader']}/{figures['c_pairs']} = "
          f"{figures['c_share']}")
    for row in figures["c_missing"]:  # type: ignore[attr-defined]
        print(f"    missing: {row}")
    print(f"(e) fragments: {figures['e_fragments']} of {figures['links']} links = {figures['e_share']}")
    for row in figures["e_list"]:  # type: ignore[attr-defined]
        print(f"    {row}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    if args.sample:
        sample(exs, args.sample)


if __name__ == "__main__":
    main()
