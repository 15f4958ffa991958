"""Judged precision of two extractors on the same fresh corpus abstracts, judged blind.

    .venv/bin/python bench/judged_compare.py sheet --per-file 4 --seed 20261202 FILE_STEM...
    .venv/bin/python bench/judged_compare.py score
    .venv/bin/python bench/judged_compare.py rejudge --per-file 5 FILE_STEM...   # after a change
    .venv/bin/python bench/judged_compare.py rescore

`sheet` draws a seeded sample of corpus abstracts that are in no gold file and not held out, extracts them
with the rules alone (`Extractor(with_linker=False)`) and with the default extractor (the trained linker),
and writes one judging sheet of the distinct (paper, category, entity) links of both, shuffled, with no
word of which extractor proposed which (the key is a separate file). The judge marks each link right or
wrong by GOLD_GUIDELINES.md, before either extractor is changed. `score` joins the judgements with the key
and prints each extractor's precision (and the links only one of them made) to
bench/results/judged_compare.md.
`rejudge` extracts the same abstracts again with both extractors as they are now; links judged before keep
the verdict bench/results/judged_compare.md records (its last table wins), the others go to a new blind sheet
(shuffled, no word of which extractor made them); `rescore` joins that sheet's judgements and prints the new
section for judged_compare.md (precision of each extractor over all its links, and the newly judged rows).
Sheet and key live in bench/results/tmp/ (git-ignored: they hold abstract text); the published table lists
ids, names and verdicts only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval.scoring import categories  # noqa: E402
from kg.extract import Extractor, to_json  # noqa: E402
from kg.types import Paper  # noqa: E402

CORPUS = Path(os.environ.get("KG_CORPUS", ROOT.parent / "shared" / "data" / "corpus"))
HELD_OUT = ROOT / "tests" / "data" / "heldout_corpus_ids.txt"
TMP = ROOT / "bench" / "results" / "tmp"
SHEET, KEY = TMP / "compare_sheet.json", TMP / "compare_key.json"
RESHEET, REKEY = TMP / "rejudge_sheet.json", TMP / "rejudge_key.json"
TABLE = ROOT / "bench" / "results" / "judged_compare.md"
SYSTEMS = ("rules", "linker")


def _draw(stems: list[str], per_file: int, seed: int) -> list[Paper]:
    held = {x.strip() for x in HELD_OUT.read_text().splitlines() if x.strip() and not x.startswith("#")}
    rng = random.Random(seed)
    papers = []
    for stem in stems:
        with gzip.open(CORPUS / f"{stem}.jsonl.gz", "rt", encoding="utf-8") as fh:
            pool = [json.loads(line) for line in fh]
        pool = [r for r in pool if len(r.get("abstract") or "") > 300 and str(r["id"]) not in held]
        for r in rng.sample(pool, per_file):
            papers.append(Paper(id=str(r["id"]), title=r.get("title"), abstract=r["abstract"]))
    return papers


def _links(extractor: Extractor, papers: list[Paper]) -> dict[tuple[str, str, str], dict[str, object]]:
    out: dict[tuple[str, str, str], dict[str, object]] = {}
    for ex in extractor.extract(papers):
        for e in to_json(ex)["entities"]:
            for cat in sorted(categories(e)):
                out.setdefault(
                    (ex.paper.id, cat, e["name"]), {"mention": e["mention"], "evidence": e["evidence"]}
                )
    return out


def sheet(args: argparse.Namespace) -> int:
    papers = _draw(args.files, args.per_file, args.seed)
    found = {name: _links(Extractor(with_linker=(name == "linker")), papers) for name in SYSTEMS}
    keys = sorted(set().union(*found.values()))
    random.Random(args.seed).shuffle(keys)
    by_paper = {p.id: p for p in papers}
    rows, key = [], []
    for i, k in enumerate(keys):
        seen = next(found[s][k] for s in SYSTEMS if k in found[s])
        rows.append({"n": i + 1, "paper": k[0], "category": k[1], "entity": k[2], **seen, "judgement": None})
        key.append({"n": i + 1, "systems": [s for s in SYSTEMS if k in found[s]]})
    TMP.mkdir(parents=True, exist_ok=True)
    texts = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in papers]
    SHEET.write_text(json.dumps({"abstracts": texts, "links": rows}, indent=1, ensure_ascii=False) + "\n")
    KEY.write_text(json.dumps(key) + "\n")
    print(
        f"{len(papers)} abstracts ({', '.join(sorted(by_paper)[:3])} …), {len(rows)} distinct links → {SHEET}"
    )
    return 0


def score(args: argparse.Namespace) -> int:
    rows = json.loads(SHEET.read_text())["links"]
    key = {k["n"]: k["systems"] for k in json.loads(KEY.read_text())}
    undecided = [r["n"] for r in rows if r["judgement"] not in ("right", "wrong")]
    if undecided:
        print(f"error: {len(undecided)} links not judged yet (first: #{undecided[0]})", file=sys.stderr)
        return 1
    lines = [
        "# Judged precision on fresh corpus abstracts: the rules alone vs the trained linker",
        "",
        f"{len({r['paper'] for r in rows})} abstracts (seeded sample, in no gold file, not held out); "
        f"{len(rows)} distinct (paper, category, entity) links of either extractor, judged blind "
        "(shuffled, no word of which extractor proposed a link) by GOLD_GUIDELINES.md.",
        "",
        "| extractor | links | right | precision |",
        "| --- | --- | --- | --- |",
    ]
    made = [(key[r["n"]], r["judgement"] == "right") for r in rows]
    lines += _precision_rows(made, {s: s for s in SYSTEMS})
    lines += [
        "",
        "| # | paper | category | entity | mention | extractors | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in sorted(rows, key=lambda r: (r["paper"], r["category"], r["entity"])):
        verdict = r["judgement"] + (f": {r['why']}" if r.get("why") else "")
        lines.append(
            f"| {r['n']} | {r['paper']} | {r['category']} | {r['entity']} | {r['mention']} | "
            f"{'+'.join(key[r['n']])} | {verdict} |"
        )
    out = ROOT / "bench" / "results" / "judged_compare.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))
    return 0


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["paper"], row["category"], row["entity"])


def _precision_rows(made: list[tuple[list[str], bool]], label: dict[str, str]) -> list[str]:
    """Table rows: each extractor's links and how many are right, then the links only it made; `made` holds
    (the extractors that made a link, whether it is right) per link."""
    rows = []
    for s in SYSTEMS:
        hits = [right for systems, right in made if s in systems]
        rows.append(f"| {label[s]} | {len(hits)} | {sum(hits)} | {sum(hits) / max(1, len(hits)):.3f} |")
    for s in SYSTEMS:
        hits = [right for systems, right in made if systems == [s]]
        rows.append(f"| only {s} | {len(hits)} | {sum(hits)} | {sum(hits) / max(1, len(hits)):.3f} |")
    return rows


def _recorded() -> dict[tuple[str, str, str], str]:
    """(paper, category, entity) → verdict ("right" or "wrong: why") of every link judged so far."""
    out: dict[tuple[str, str, str], str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 7 and cells[0].isdigit():
            out[(cells[1], cells[2], cells[3])] = cells[6]
    return out


def rejudge(args: argparse.Namespace) -> int:
    papers = _draw(args.files, args.per_file, args.seed)
    extractors = {name: Extractor(with_linker=(name == "linker")) for name in SYSTEMS}
    found = {name: _links(ex, papers) for name, ex in extractors.items()}
    versions = {name: ex.version for name, ex in extractors.items()}
    recorded = _recorded()
    keys = sorted(set().union(*found.values()))
    seen = {k: next(found[s][k] for s in SYSTEMS if k in found[s]) for k in keys}
    fresh = [k for k in keys if k not in recorded]
    random.Random(args.seed + 1).shuffle(fresh)
    rows = [
        {"n": i + 1, "paper": k[0], "category": k[1], "entity": k[2], **seen[k], "judgement": None}
        for i, k in enumerate(fresh)
    ]
    TMP.mkdir(parents=True, exist_ok=True)
    texts = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in papers]
    RESHEET.write_text(json.dumps({"abstracts": texts, "links": rows}, indent=1, ensure_ascii=False) + "\n")
    key = [
        {
            "paper": k[0],
            "category": k[1],
            "entity": k[2],
            "systems": [s for s in SYSTEMS if k in found[s]],
            "mention": seen[k]["mention"],
            "verdict": recorded.get(k),
        }
        for k in keys
    ]
    REKEY.write_text(json.dumps({"versions": versions, "links": key}, ensure_ascii=False) + "\n")
    print(f"{len(papers)} abstracts, {len(keys)} distinct links, {len(fresh)} not judged before → {RESHEET}")
    return 0


def rescore(args: argparse.Namespace) -> int:
    rows = json.loads(RESHEET.read_text())["links"]
    undecided = [r["n"] for r in rows if r["judgement"] not in ("right", "wrong")]
    if undecided:
        print(f"error: {len(undecided)} links not judged yet (first: #{undecided[0]})", file=sys.stderr)
        return 1
    new = {_key(r): r["judgement"] + (f": {r['why']}" if r.get("why") else "") for r in rows}
    data = json.loads(REKEY.read_text())
    versions, links = data["versions"], data["links"]
    verdict = {_key(k): k["verdict"] for k in links} | new
    lines = [
        "| extractor | links | right | precision |",
        "| --- | --- | --- | --- |",
    ]
    made = [(k["systems"], verdict[_key(k)].startswith("right")) for k in links]
    lines += _precision_rows(made, {s: f"{s} {versions[s]}" for s in SYSTEMS})
    lines += [
        "",
        f"Newly judged ({len(new)}):",
        "",
        "| # | paper | category | entity | mention | extractors | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    systems = {_key(k): k["systems"] for k in links}
    for r in sorted(rows, key=_key):
        k = _key(r)
        lines.append(
            f"| {r['n']} | {r['paper']} | {r['category']} | {r['entity']} | {r['mention']} | "
            f"{'+'.join(systems[k])} | {new[k]} |"
        )
    print("\n".join(lines))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sheet")
    s.add_argument("files", nargs="+", help="corpus file stems, e.g. icml_icml2019")
    s.add_argument("--seed", type=int, default=20261202)
    s.add_argument("--per-file", type=int, default=4)
    sub.add_parser("score")
    r = sub.add_parser("rejudge")
    r.add_argument("files", nargs="+", help="corpus file stems, as given to `sheet`")
    r.add_argument("--seed", type=int, default=20261202)
    r.add_argument("--per-file", type=int, default=4)
    sub.add_parser("rescore")
    args = ap.parse_args()
    return {"sheet": sheet, "score": score, "rejudge": rejudge, "rescore": rescore}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
