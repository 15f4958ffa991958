"""Link scoring against gold (annotation guidelines of the gold sets, summarised in README "Matching rule"):
the categories and matching rule of the shared reference scorer, so project figures equal the reference's."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kg.names import singular

CATS = ("proposed", "tasks", "datasets", "methods", "metrics", "domains", "threats")
MAIN = ("proposed", "tasks", "datasets", "methods", "metrics")
LOOSE = frozenset({"tasks", "domains", "threats"})
PROPOSE_RELS = frozenset({"proposes", "introduces", "introducesdataset", "introducesmethod", "proposed"})
STOP = frozenset(
    {"the", "a", "an", "of", "for", "and", "in", "on", "with", "to", "via", "based", "using", "from", "by"}
)
_LATEX = [
    (r"\$\\times\$", "x"),
    (r"\\times", "x"),
    (r"\\%", "%"),
    (r"\$", ""),
    (r"\\[a-zA-Z]+\{([^}]*)\}", r"\1"),
]


def norm(s: str | None) -> str:
    s = unicodedata.normalize("NFKC", s or "")
    for pat, rep in _LATEX:
        s = re.sub(pat, rep, s)
    s = re.sub(r"[^a-z0-9]+", " ", s.replace("×", "x").lower()).strip()
    return " ".join(singular(t) for t in s.split())


def squash(s: str | None) -> str:
    return norm(s).replace(" ", "")


def content(s: str) -> frozenset[str]:
    return frozenset(t for t in norm(s).split() if t not in STOP)


def forms(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    return [item.get("name", "")] + list(item.get("aliases") or [])


def matches(pred_forms: Iterable[str], gold_item: Any, loose: bool) -> bool:
    gold = forms(gold_item)
    gs = {squash(g) for g in gold if g}
    pf = [p for p in pred_forms if p]
    if any(squash(p) in gs for p in pf):
        return True
    if loose:
        for p in pf:
            pc = content(p)
            for g in gold:
                gc = content(g)
                if min(len(pc), len(gc)) >= 2 and (pc <= gc or gc <= pc):
                    return True
    return False


def categories(ent: Mapping[str, Any]) -> set[str]:
    """The gold categories a predicted entity can answer for."""
    t = (ent.get("type") or "").lower()
    kind = (ent.get("kind") or "").lower()
    rel = re.sub(r"[^a-z]", "", (ent.get("relation") or "").lower())
    out = set()
    proposed = ent.get("proposed") is True or rel in PROPOSE_RELS
    if proposed:
        out.add("proposed")
    if t in {"dataset", "benchmark"} or kind in {"dataset", "benchmark"}:
        out.add("datasets")
    elif t == "task":
        out.add("tasks")
    elif t == "metric":
        out.add("metrics")
    elif t == "model" or kind == "model":
        if not proposed:
            out.add("methods")
    elif t == "domain":
        out.add("domains")
    elif t in {"threat", "attack"} and not proposed:
        out.add("threats")
    elif (
        t in {"method", "algorithm", "architecture", "framework", "defense", "attack", "loss"}
        and not proposed
    ):
        out.add("methods")
    return out


@dataclass
class Tally:
    tp_p: int = 0
    np: int = 0
    tp_g: int = 0
    ng: int = 0


@dataclass
class Score:
    rows: dict[str, dict[str, float]]  # category (and "micro") → p, r, f1, pred, gold
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (paper id, category, gold name)
    extras: list[tuple[str, str, str]] = field(default_factory=list)  # (paper id, category, predicted name)
    # every distinct prediction of the five main categories: (paper id, category, name, confidence, right)
    judged: list[tuple[str, str, str, float, bool]] = field(default_factory=list)


def score(gold: Mapping[str, Mapping[str, Any]], pred: Mapping[str, Mapping[str, Any]]) -> Score:
    """Score prediction lines (`to_json` shape) against gold records, both keyed by paper id."""
    tally = {c: Tally() for c in CATS}
    misses: list[tuple[str, str, str]] = []
    extras: list[tuple[str, str, str]] = []
    judged: list[tuple[str, str, str, float, bool]] = []
    for pid, g in gold.items():
        ents = (pred.get(pid) or {}).get("entities") or []
        for c in CATS:
            loose = c in LOOSE
            gitems = list(g.get(c) or []) + (list(g.get("models") or []) if c == "methods" else [])
            seen: dict[str, list[str]] = {}
            conf: dict[str, float] = {}
            for e in ents:
                if c in categories(e):
                    key = squash(e.get("name", ""))
                    seen.setdefault(key, [e.get("name", ""), e.get("mention", "")])
                    conf[key] = max(conf.get(key, 0.0), float(e.get("confidence") or 0.0))
            preds = list(seen.values())
            t = tally[c]
            t.np += len(preds)
            for key, pf in seen.items():
                right = any(matches(pf, gi, loose) for gi in gitems)
                if right:
                    t.tp_p += 1
                else:
                    extras.append((pid, c, pf[0]))
                if c in MAIN:
                    judged.append((pid, c, pf[0], conf[key], right))
            t.ng += len(gitems)
            for gi in gitems:
                if any(matches(pf, gi, loose) for pf in preds):
                    t.tp_g += 1
                else:
                    misses.append((pid, c, forms(gi)[0]))
    rows: dict[str, dict[str, float]] = {}
    for c in (*CATS, "micro"):
        if c == "micro":
            agg = Tally(*(sum(getattr(tally[x], k) for x in MAIN) for k in ("tp_p", "np", "tp_g", "ng")))
        else:
            agg = tally[c]
        p = agg.tp_p / agg.np if agg.np else 0.0
        r = agg.tp_g / agg.ng if agg.ng else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        rows[c] = {"p": round(p, 3), "r": round(r, 3), "f1": round(f, 3), "pred": agg.np, "gold": agg.ng}
    return Score(rows, misses, extras, judged)
