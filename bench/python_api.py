"""The Python API on a corpus build: each question's first call and the next, opened locally and connected
to a running `kg serve` over HTTP, and the notebook run against the same store.

    .venv/bin/python bench/python_api.py [--files eccv_eccv2022 naacl_naacl2024 wacv_wacv2024] [--store DIR]

Builds the store with `paperkg.build` (once; kept under $KG_BENCH_DIR, default /tmp/paperkg-bench) from
corpus files read in place ($KG_CORPUS or ../shared/data/corpus). Each side gets a fresh `Graph` (nothing
cached: a notebook's first question), then asks everything once more. Writes bench/results/python_api.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import paperkg  # noqa: E402

CORPUS = Path(os.environ.get("KG_CORPUS", ROOT.parent / "shared" / "data" / "corpus"))
WORK = Path(os.environ.get("KG_BENCH_DIR", "/tmp/paperkg-bench"))

QUESTIONS: dict[str, Callable[[paperkg.Graph], object]] = {
    "papers(dataset=ImageNet)": lambda kg: kg.papers(dataset="ImageNet"),
    "papers(task=semantic segmentation, order=YEAR)": lambda kg: kg.papers(task="semantic segmentation",
                                                                           order="YEAR"),
    "papers(year=2024).to_pandas()": lambda kg: kg.papers(year=2024).to_pandas(),
    "entities(type=Task, first=50)": lambda kg: kg.entities(type="Task", first=50),
    "defenses(against=adversarial attack)": lambda kg: kg.defenses(against="adversarial attack"),
    "search(diffusion)": lambda kg: kg.search("diffusion"),
    "trending(type=Task, since=2024)": lambda kg: kg.trending(type="Task", since=2024),
    "trend(semantic segmentation)": lambda kg: kg.trend("semantic segmentation"),
    "leaderboard(ImageNet).to_pandas()": lambda kg: kg.leaderboard("ImageNet").to_pandas(),
    "cooccurrence(ImageNet) (networkx)": lambda kg: kg.cooccurrence("ImageNet"),
    "neighborhood(ImageNet, depth=1)": lambda kg: kg.neighborhood("ImageNet"),
    "sparql(papers per venue).to_pandas()": lambda kg: kg.sparql(
        "SELECT ?venue (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper ; kg:venue ?venue } GROUP BY ?venue"
    ).to_pandas(),
}


def size(answer: object) -> int:
    """Rows of a list or frame, nodes of a graph."""
    nodes = getattr(answer, "number_of_nodes", None)
    return int(nodes()) if nodes is not None else len(answer)  # type: ignore[arg-type]


def timed(open_graph: Callable[[], paperkg.Graph]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    kg = open_graph()
    out["open"] = {"first_ms": round((time.perf_counter() - t0) * 1000, 1)}
    with kg:
        for name, ask in QUESTIONS.items():
            t0 = time.perf_counter()
            answer = ask(kg)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            ask(kg)
            again = time.perf_counter() - t0
            out[name] = {"first_ms": round(first * 1000, 1), "again_ms": round(again * 1000, 1),
                         "rows": size(answer)}
    return out


def run_notebook(store: Path) -> float:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "docs" / "paperkg.ipynb", as_version=4)
    os.environ["PAPERKG_STORE"] = str(store)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "docs")}}).execute()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=["eccv_eccv2022", "naacl_naacl2024", "wacv_wacv2024"])
    ap.add_argument("--store", type=Path, default=WORK / "python_api")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    inputs = [CORPUS / f"{f}.jsonl.gz" for f in args.files]
    built: dict[str, Any] = {}
    if not args.store.exists():
        args.store.parent.mkdir(parents=True, exist_ok=True)
        b = paperkg.build(inputs, args.store, workers=args.workers)
        built = {"papers": b.papers, "problems": len(b.problems), "seconds": round(b.seconds, 1)}
    with paperkg.open(args.store) as kg:
        papers = kg.stats().papers
    local = timed(lambda: paperkg.open(args.store))
    from corpus_build import Server

    with Server(args.store) as server:
        connected = timed(lambda: paperkg.connect(server.url.removesuffix("/graphql")))
        notebook_s = run_notebook(args.store)
    result = {"files": args.files, "papers": papers, "build": built, "local": local, "connected": connected,
              "notebook_s": round(notebook_s, 1)}
    (ROOT / "bench" / "results" / "python_api.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"{papers} papers ({', '.join(args.files)}); notebook end to end {notebook_s:.1f} s")
    print("| question | rows | local first | local again | HTTP first | HTTP again |")
    print("|---|---|---|---|---|---|")
    for name in local:
        a, b = local[name], connected[name]
        print(f"| `{name}` | {a.get('rows', '')} | {a['first_ms']:.0f} ms | {a.get('again_ms', 0):.0f} ms"
              f" | {b['first_ms']:.0f} ms | {b.get('again_ms', 0):.0f} ms |")


if __name__ == "__main__":
    main()
