"""`kg mine` and `kg train-recogniser`: regenerate the mined vocabulary tier and the phrase recogniser from a
corpus of abstracts (both deterministic; their outputs ship in the package)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kg.cli.common import app, err, fail
from ontology import VOCAB_DIR

# The shipped files (kg.extract.terms.TIER_FILE, corpus_words.WORDS_FILE, recogniser.MODEL_FILE), named here
# without importing spaCy, so every other command starts fast.
_EXTRACT = Path(__file__).resolve().parents[1] / "extract"
TIER_FILE = VOCAB_DIR / "mined.ttl.gz"
WORDS_FILE = _EXTRACT / "data" / "corpus_words.json.gz"
MODEL_FILE = _EXTRACT / "models" / "recogniser.npz"

CorpusArg = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Corpus files or folders of *.jsonl(.gz) abstracts [default: ../shared/data/corpus]."
    ),
]
ExcludeOpt = Annotated[
    list[Path] | None,
    typer.Option("--exclude", help="Gold or sample JSONL whose records never count (repeatable)."),
]


def _corpus(paths: list[Path] | None) -> list[Path]:
    from kg.mine.run import DEFAULT_CORPUS, corpus_files

    chosen = paths or [DEFAULT_CORPUS]
    missing = [str(p) for p in chosen if not p.exists()]
    if missing:
        fail(f"no corpus at {', '.join(missing)}")
    files = corpus_files(chosen)
    if not files:
        fail(f"no *.jsonl or *.jsonl.gz files in {', '.join(map(str, chosen))}")
    return files


@app.command()
def mine(
    corpus: CorpusArg = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="The mined tier (gzipped Turtle).")] = TIER_FILE,
    exclude: ExcludeOpt = None,
    min_support: Annotated[int, typer.Option(help="Fewest abstracts a term must occur in.")] = 3,
    workers: Annotated[int, typer.Option(help="Tagging processes.")] = 2,
    cache: Annotated[Path | None, typer.Option(help="Keep/reuse the corpus scan here (pickle).")] = None,
    words: Annotated[Path, typer.Option(help="Known names and common words of the corpus.")] = WORDS_FILE,
) -> None:
    """Mine typed ML terms and acronyms from a corpus into the second vocabulary tier."""
    from kg.mine.run import HELD_OUT_FILES
    from kg.mine.run import mine as run_mine

    files = _corpus(corpus)
    report = run_mine(
        files,
        out,
        held_out_paths=[*HELD_OUT_FILES, *(exclude or [])],
        workers=workers,
        min_support=min_support,
        cache=cache,
        words_out=words,
    )
    err.print(
        f"{report.abstracts} abstracts ({report.held_out} held-out ids never counted) → "
        f"{report.concepts} concepts {report.by_type} → {out}"
    )


@app.command("train-recogniser")
def train_recogniser(
    corpus: CorpusArg = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="Weights file (.npz).")] = MODEL_FILE,
    exclude: ExcludeOpt = None,
    documents: Annotated[int, typer.Option(help="Corpus abstracts to learn from.")] = 12_000,
    workers: Annotated[int, typer.Option(help="Extraction processes for the silver labels.")] = 2,
) -> None:
    """Train the phrase recogniser by distant supervision on corpus abstracts; print held-out silver P/R."""
    from kg.mine.corpus import corpus_records, held_out_from
    from kg.mine.run import HELD_OUT_FILES
    from kg.mine.train import train

    files = _corpus(corpus)
    held = held_out_from([p for p in (*HELD_OUT_FILES, *(exclude or [])) if p.is_file()])
    records = list(corpus_records(files, held))
    step = max(len(records) // max(documents, 1), 1)
    chosen = records[::step][:documents]
    report = train(chosen, out, workers=workers)
    print(json.dumps(report.as_json(), indent=1))


LINKER_FILE = _EXTRACT / "models" / "linker.npz"
VECTORS_FILE = _EXTRACT / "models" / "wordvecs.npz"


@app.command("train")
def train_linker(
    gold: Annotated[
        list[Path] | None,
        typer.Argument(help="Gold JSONL files [default: dev19, dev60, train340/360/350 in ../shared/data]."),
    ] = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="The linker's weights (.npz).")] = LINKER_FILE,
    curve: Annotated[bool, typer.Option(help="Also the learning curve (25 %, 50 % of training).")] = False,
    ablate: Annotated[
        list[str] | None, typer.Option(help="Cross-validate without this pipeline component (repeatable).")
    ] = None,
    ship: Annotated[bool, typer.Option(help="Train the shipped model on all the gold after the CV.")] = True,
    vectors: Annotated[bool, typer.Option(help="Retrain the corpus word vectors first.")] = False,
    corpus: Annotated[
        list[Path] | None, typer.Option(help="Corpus for --vectors [default: ../shared/data/corpus].")
    ] = None,
    report: Annotated[Path | None, typer.Option(help="Write every figure as JSON here.")] = None,
) -> None:
    """Learn the linker from the annotated gold: 5-fold cross-validation by document (data/cv_folds.json),
    per-category P/R/F1 as mean ± sd, then the shipped model trained on all of it (same config, seeded)."""
    import tempfile

    from kg.learn.linker_train import GOLD_FILES, run

    files = gold or list(GOLD_FILES)
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        fail(f"no gold file at {', '.join(missing)}")
    if vectors or not VECTORS_FILE.is_file():
        from kg.learn.vectors import train_vectors
        from kg.mine.corpus import held_out_from
        from kg.mine.run import HELD_OUT_FILES

        held = held_out_from([p for p in HELD_OUT_FILES if p.is_file()]).ids
        with tempfile.TemporaryDirectory() as work:
            n = train_vectors(_corpus(corpus), set(held), VECTORS_FILE, work=Path(work))
        err.print(f"word vectors: {n} words → {VECTORS_FILE}")
    result = run(files, out=out, curve=(0.25, 0.5) if curve else (), ablate=ablate or (), ship=ship,
                 log=err.print)
    for band, n, p in result.bands:
        err.print(f"  confidence {band:12s} {n:5d} links  precision {p:.3f}")
    if result.shipped:
        err.print(f"shipped model → {out}: {result.shipped}")
    if report:
        report.write_text(json.dumps(result.as_json(), indent=1) + "\n", encoding="utf-8")
