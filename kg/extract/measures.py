"""Measures an abstract states beside a value that the entity vocabularies rarely hold as metrics.

Shared by the results rules (`kg.extract.results`) and the learned re-scorer (`kg.extract.results_model`)."""

from __future__ import annotations

import re

# Measures an abstract states beside factors and deltas that the entity vocabularies rarely hold as
# metrics: (pattern, canonical name). Looked for only right beside a value.
EXTRA_METRICS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), name)
    for p, name in (
        (
            r"(?:training |inference |measured |wall-clock |end-to-end )?(?:speed[- ]?ups?|acceleration)|"
            r"faster|accelerat(?:e|es|ed|ing)",
            "speedup",
        ),
        (r"model size|number of parameters|parameter count", "model size"),
        (r"(?:computational |training |inference )?cost", "cost"),
        (r"area under the (?:receiver operating characteristic|ROC) curve", "area under the ROC curve"),
        (r"throughput", "throughput"),
        (r"(?:inference |end-to-end |decoding )?latency", "latency"),
        (r"(?:GPU |peak )?memory(?: usage| footprint| consumption| cost)?", "memory usage"),
        (r"FLOPs|compute|computation(?:al cost)?", "FLOPs"),
        (r"(?:inference|training|wall-clock|running|run) time", "running time"),
        (r"(?:task )?success rates?", "success rate"),
        (r"win[- ]rates?", "win rate"),
        (r"error(?: rates?)?", "error rate"),
        (r"accuracy|accuracies", "accuracy"),
        (r"perplexity", "perplexity"),
    )
)

EXTRA_NAMES: frozenset[str] = frozenset(name for _, name in EXTRA_METRICS)
