"""From corpus counts to typed concepts: termhood (C-value over nested candidates), generic-phrase filters,
and a type read from the head noun and from how papers use the phrase ("we study X" vs "using X").

Every rule here describes how ML papers are written in general; nothing names a particular paper.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from dataclasses import dataclass

from kg.extract.candidates import BREAK, GENERIC
from kg.extract.common import GENERIC_ACRONYMS, name_strength
from kg.extract.words import GENERIC_TERMS, METHOD_CUES_BEFORE, TASK_CUES_AFTER, TASK_CUES_BEFORE, words
from kg.mine.corpus import CorpusCounts, TermStats
from kg.names import match_key

# ---------------------------------------------------------------------------------------- head nouns
TASK_HEADS = words(
    "generation prediction detection forecasting classification recognition segmentation estimation "
    "recommendation retrieval translation summarization summarisation answering tracking captioning "
    "synthesis completion reconstruction localization localisation parsing navigation editing matching "
    "ranking reasoning grounding inpainting denoising restoration super-resolution discovery imputation "
    "unlearning manipulation verification extraction labeling labelling tagging understanding "
    "identification upsampling interpolation typing linking scheduling routing selection testing "
    "adaptation generalization generalisation locomotion registration alignment compression deblurring "
    "enhancement retargeting transfer attribution explanation diagnosis screening monitoring "
    "localization counting modeling modelling inference planning control exploration "
    "generalization recovery sensing coding synthesis correction resolution annotation "
    "clustering reduction regression optimization optimisation learning search sampling"
)
METHOD_HEADS = words(
    "network networks transformer transformers autoencoder autoencoders encoder encoders decoder decoders "
    "machine machines sampling attention decoding masking hashing aggregation pretraining pre-training "
    "fine-tuning finetuning tuning distillation regularization regularisation normalization normalisation "
    "augmentation splatting rendering passing programming relaxation test trick filter filtering descent "
    "carlo chain field fields tree trees forest forests embedding embeddings mechanism "
    "kernel kernels estimator estimators sampler samplers optimizer "
    "optimizers policy policies gradient gradients propagation backpropagation dropout pooling convolution "
    "convolutions pruning quantization decomposition factorization factorisation regression classifier "
    "classifiers detector detectors learning training weighting smoothing iteration prompting "
    "model models algorithm algorithms method methods bound bounds search heuristic heuristics "
    "architecture architectures "
    "approximation approximations inference optimization optimisation clustering reduction "
    "planning control exit casting checking matching estimation ensemble ensembles "
    "flow flows game games automaton automata lasso bootstrap bagging boosting perceptron "
    "perceptrons mixture mixtures rnn rnns cnn cnns gan gans lstm lstms vae vaes gnn gnns"
)
METRIC_HEADS = words(
    "accuracy error errors score scores cost costs time latency throughput runtime speed probability "
    "distance rate rates ratio precision recall f1 auc auroc perplexity regret divergence completeness "
    "fidelity efficiency utility bleu rouge fid similarity correlation mae mse rmse iou psnr ssim lpips "
    "coverage consumption usage overhead"
)
# Metric heads that are metrics on their own ("latency"), unlike "size" or "cost".
SINGLE_METRICS = words(
    "accuracy latency throughput runtime precision recall f1 auc auroc perplexity regret bleu rouge fid mae "
    "mse rmse iou psnr ssim lpips"
)
GENERIC_HEADS = words(
    "model models method methods algorithm algorithms approach approaches technique techniques"
)
DATASET_HEADS = words("dataset datasets benchmark benchmarks corpus corpora database treebank suite")
DOMAIN_HEADS = words("systems domain domains")

# Heads that name tasks and methods alike: their type comes from how papers use them.
AMBIGUOUS = (TASK_HEADS & METHOD_HEADS) | words("learning training")

# Words before a phrase that make it the problem addressed, or the means used.
# The runtime cues (kg.extract.words), counted a little more widely over a whole corpus.
TASK_BEFORE = TASK_CUES_BEFORE | words("consider considers improve improves")
METHOD_BEFORE = (METHOD_CUES_BEFORE - {"by"}) | words("used introduce introduces extend extends")
METRIC_BEFORE = words(
    "improve improves improving reduce reduces reducing achieve achieves achieving "
    "higher lower better increase increases decrease decreases terms measured"
)
TASK_AFTER = TASK_CUES_AFTER | words("challenge challenges")
METHOD_AFTER = words(
    "method methods algorithm algorithms approach approaches technique techniques model "
    "models framework module loss objective strategy strategies architecture procedure"
)
DATASET_AFTER = words("dataset datasets benchmark benchmarks corpus corpora")

# Modifiers that make a phrase an evaluation, a quantity or an instance, not a term of the field.
_BAD_FIRST = (
    BREAK
    | GENERIC
    | words(
        "high higher low lower large larger small smaller good bad best better worse short long deep shallow "
        "simple naive standard traditional conventional classical classic typical popular widely commonly "
        "recently often well previously given corresponding respective relevant additional original "
        "underlying resulting desired optimal sufficient necessary possible potential strong weak accurate "
        "precise noisy clean real true actual whole similar same available public open specific general "
        "individual single multiple initial final average overall empirical experimental theoretical "
        "practical human-level superior lightweight flexible powerful principled alternative typical "
        "significant key main major minor critical crucial fundamental "
        "one two three four five six seven eight nine ten many few several extensive unknown training "
        "learning building designing developing improving enabling making solving handling leveraging "
        "exploiting achieving providing generating capturing modeling modelling pre-trained pretrained "
    "future competing"
    "existing underlying"
    )
)
_BAD_ANY = words(
    "paper papers work works we our they this these which what approach approaches results performance "
    "experiments state-of-the-art sota art et al i.e. e.g. etc. proposed novel"
)
_INSTANCE_HEADS = words("network networks architecture architectures detector detectors model models module")
_DESCRIPTIVE = re.compile(
    r"-(based|driven|guided|aware|free|specific|level|wise|oriented|centric|like|agnostic|inspired|enhanced|"
    r"powered|assisted|augmented|dependent|invariant|conditioned|efficient|friendly)$"
)
_ADJECTIVE = re.compile(r"(ic|it|al|ive|ous|ary|ed|ful|less|able|ible|ent|ant)$")
_NUMBERISH = re.compile(r"^[\d.,%x×-]+$")


@dataclass(frozen=True, slots=True)
class MinedTerm:
    """A typed concept of the mined tier."""

    name: str  # the most frequent surface form, lower-cased unless it is a name
    type: str  # Task, Method, Metric, Dataset
    alt_type: str | None  # the other type an ambiguous phrase can take in context (Task ⇄ Method)
    aliases: tuple[str, ...]
    support: int  # abstracts it occurs in
    cvalue: float
    venues: int
    first_year: int | None
    last_year: int | None
    evidence: tuple[str, ...]  # corpus ids of abstracts it was read in
    source: str  # "term" or "acronym"


def _frac(c: Counter[str], vocab: frozenset[str], total: int) -> float:
    return sum(n for w, n in c.items() if w in vocab) / max(total, 1)


def cvalues(counts: CorpusCounts) -> dict[str, float]:
    """C-value (Frantzi et al. 2000) over nested candidates: log2(1 + words) × (f − mean f of nestings)."""
    nested_sum: Counter[str] = Counter()
    nested_n: Counter[str] = Counter()
    keys_by_words = {k: st.surfaces.most_common(1)[0][0].lower().split() for k, st in counts.terms.items()}
    for key, ws in keys_by_words.items():
        f = sum(counts.terms[key].surfaces.values())
        for a in range(len(ws)):
            for b in range(a + 1, len(ws) + 1):
                if (a, b) == (0, len(ws)):
                    continue
                sub = match_key(" ".join(ws[a:b]))
                if sub in counts.terms:
                    nested_sum[sub] += f
                    nested_n[sub] += 1
    out = {}
    for key, ws in keys_by_words.items():
        f = sum(counts.terms[key].surfaces.values())
        penalty = nested_sum[key] / nested_n[key] if nested_n[key] else 0.0
        out[key] = math.log2(1 + len(ws)) * max(f - penalty, 0.0)
    return out


def display_name(st: TermStats) -> str:
    """The usual surface form; lower case unless most writers keep capitals inside words."""
    form, _ = st.surfaces.most_common(1)[0]
    total = sum(st.surfaces.values())
    lower = sum(n for s, n in st.surfaces.items() if s == s.lower())
    word_caps = any(any(c.isupper() for c in w[1:]) or w.isupper() for w in form.split())
    if (
        word_caps
        or lower * 3 < total
        and sum(n for s, n in st.surfaces.items() if s[:1].isupper()) * 2 > total
    ):
        keep = [s for s, _ in st.surfaces.most_common() if s != s.lower()]
        return keep[0] if keep else form
    return form.lower()


def is_term_shaped(name: str) -> bool:
    """Two to five words, none generic at the start, no pronouns, numbers or evaluation words."""
    ws = name.lower().split()
    if not 2 <= len(ws) <= 5 or len(name) > 60:
        return False
    head = ws[-1]
    specific_head = head in (TASK_HEADS | METHOD_HEADS | METRIC_HEADS) and head not in GENERIC_HEADS
    if ws[0] in GENERIC and specific_head and ws[0] not in BREAK:
        pass  # "model selection", "data augmentation", "feature extraction"
    elif ws[0] in ("training", "inference") and head in METRIC_HEADS:
        pass  # "training time", "inference latency"
    elif ws[0] in _BAD_FIRST or head in GENERIC and head not in METHOD_HEADS | TASK_HEADS:
        return False
    if any(w in _BAD_ANY or _NUMBERISH.match(w) for w in ws):
        return False
    if all(w in GENERIC or w in BREAK for w in ws[:-1]) and not specific_head:
        return False
    if head in ("modeling", "modelling") and len(ws) == 2 and _ADJECTIVE.search(ws[0]):
        return False  # "implicit modeling" is a way of working; "language modeling" is a task
    if len(ws) == 2 and head in _INSTANCE_HEADS and ws[0] in TASK_HEADS | METHOD_HEADS:
        return False  # "segmentation network", "decoder network": some network for a purpose, not a term
    if _DESCRIPTIVE.search(ws[0]):
        return False  # "transformer-based encoder", "task-specific module": a description, not a term
    if head == "training" and len(ws) == 2 and "-" not in ws[0]:
        return False  # "unlabeled training", "model training": how, not a named technique
    return all(re.search(r"[a-z]", w) for w in ws)


# Heads that make a term only after a proper name: "Gaussian process", "Markov chain", "Poisson process".
NAMED_HEADS = words("process processes chain chains field fields distribution distributions equation")


def type_of(name: str, st: TermStats) -> tuple[str, str | None, float] | None:
    """(type, alternative type, how sure) from the head noun and the contexts, or None (not a term)."""
    ws = name.lower().split()
    head = ws[-1]
    total = sum(st.surfaces.values())
    before_task = _frac(st.before, TASK_BEFORE, total)
    before_method = _frac(st.before, METHOD_BEFORE, total)
    after_task = _frac(st.after, TASK_AFTER, total)
    after_method = _frac(st.after, METHOD_AFTER, total)
    if head in DATASET_HEADS:
        return None  # "the X dataset": the dataset is X (see `dataset_name`)
    if head in METRIC_HEADS and head not in TASK_HEADS | METHOD_HEADS:
        return "Metric", None, 0.6
    task_score = before_task + after_task + (0.15 if head in TASK_HEADS else 0.0)
    method_score = before_method + after_method + (0.15 if head in METHOD_HEADS else 0.0)
    if head in AMBIGUOUS or (head in TASK_HEADS and head in METHOD_HEADS):
        first, second = ("Task", "Method") if task_score >= method_score else ("Method", "Task")
        margin = abs(task_score - method_score)
        return first, second, min(0.5 + margin, 0.7)
    if head in TASK_HEADS:
        return "Task", None, 0.65
    if head in METHOD_HEADS or (head in NAMED_HEADS and name[:1].isupper() and len(ws) >= 2):
        return "Method", None, 0.65
    return None


def single_metric(name: str, st: TermStats) -> bool:
    """A one-word metric ("latency", "throughput"): a metric head written in measurement contexts."""
    total = sum(st.surfaces.values())
    return (
        name.lower() in SINGLE_METRICS
        and _frac(st.before, METRIC_BEFORE | words("and of"), total) + _frac(st.after, words("of and"), total)
        >= 0.3
    )


MAX_SUPPORT = 1500  # a phrase in more than 3% of all abstracts is background vocabulary, not a paper's link


def dataset_name(name: str, st: TermStats) -> bool:
    """A dataset: a name (capitals or digits inside, or several capitalised words) that papers write as a
    name, not a capitalised common word, and that is followed by "dataset(s)/benchmark/corpus" or ends a
    list that is, in at least a quarter of its uses."""
    total = sum(st.surfaces.values())
    lower_uses = sum(n for s, n in st.surfaces.items() if s == s.lower())
    ws = name.split()
    shaped = (len(ws) == 1 and name_strength(name) == 2) or (
        1 < len(ws) <= 4 and all(w[:1].isupper() or w[:1].isdigit() for w in ws)
    )
    after_data = _frac(st.after, DATASET_AFTER, total) + _frac(st.tails, DATASET_AFTER, total)
    return shaped and lower_uses * 10 < total and after_data >= 0.25 and len(name) >= 3


def mine_terms(
    counts: CorpusCounts, min_support: int = 3, known: frozenset[str] = frozenset()
) -> list[MinedTerm]:
    """Typed, term-shaped candidates with support in at least `min_support` abstracts and positive C-value.

    `known`: match keys of curated labels; a phrase that is a known term plus a generic head is left out.
    """
    cv = cvalues(counts)
    known = known | {k for k, st in counts.terms.items() if st.df >= min_support and cv.get(k, 0) >= 2.0}
    out = []
    for key, st in counts.terms.items():
        if st.df < min_support or cv.get(key, 0.0) < 2.0:
            continue
        name = display_name(st)
        if key in GENERIC_TERMS or st.df > MAX_SUPPORT:
            continue
        if dataset_name(name, st):
            typed: tuple[str, str | None, float] | None = ("Dataset", None, 0.6)
        elif " " not in name and single_metric(name, st):
            typed = ("Metric", None, 0.6)
        elif not is_term_shaped(name):
            continue
        else:
            typed = type_of(name, st)
        if typed is None:
            continue
        t, alt, _ = typed
        if name.split()[-1].lower() in GENERIC_HEADS and match_key(name.rsplit(" ", 1)[0]) in known:
            continue  # "policy gradient methods": the term is "policy gradient"
        aliases = tuple(
            sorted({s for s, n in st.surfaces.items() if n >= 2 and s.lower() != name.lower()})[:4]
        )
        years = sorted(st.years)
        out.append(
            MinedTerm(
                name=name,
                type=t,
                alt_type=alt,
                aliases=aliases,
                support=st.df,
                cvalue=round(cv[key], 1),
                venues=len(st.venues),
                first_year=years[0] if years else None,
                last_year=years[-1] if years else None,
                evidence=tuple(st.evidence),
                source="term",
            )
        )
    return out


def mine_acronyms(counts: CorpusCounts, terms: list[MinedTerm], min_support: int = 2) -> list[MinedTerm]:
    """Terms with their acronyms as aliases, plus concepts defined as "Long Form (LF)" in at least
    `min_support` abstracts whose long form types by its head ("Masked Autoencoder (MAE)")."""
    by_key = {match_key(t.name): t for t in terms}
    best: dict[str, tuple[int, str, str]] = {}  # long key → (support, short, long surface)
    for (short, long_key), n in counts.acronyms.items():
        if n < min_support or long_key in GENERIC_TERMS or short.upper() in GENERIC_ACRONYMS:
            continue
        if n > best.get(long_key, (0, "", ""))[0]:
            best[long_key] = (n, short, counts.long_forms[(short, long_key)].most_common(1)[0][0])
    out: dict[str, MinedTerm] = dict(by_key)
    for long_key, (n, short, surface) in best.items():
        short = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
        if long_key in out:
            t = out[long_key]
            out[long_key] = dataclasses.replace(t, aliases=tuple(sorted({*t.aliases, short})))
            continue
        st = counts.terms.get(long_key)
        name = (
            surface
            if any(c.isupper() for c in surface[1:]) and st is None
            else (display_name(st) if st is not None else surface.lower())
        )
        if not is_term_shaped(name) or (st is not None and st.df > MAX_SUPPORT):
            continue
        typed = type_of(name, st) if st is not None else type_of(name, TermStats(surfaces=Counter({name: 1})))
        if typed is None or typed[0] == "Dataset":
            continue
        out[long_key] = MinedTerm(
            name=name,
            type=typed[0],
            alt_type=typed[1],
            aliases=(short,),
            support=max(n, st.df if st else 0),
            cvalue=0.0,
            venues=len(st.venues) if st else 0,
            first_year=min(st.years) if st and st.years else None,
            last_year=max(st.years) if st and st.years else None,
            evidence=tuple(counts.acronym_evidence[(short, long_key)]),
            source="acronym",
        )
    return sorted(out.values(), key=lambda t: (t.type, match_key(t.name)))


def corpus_words(counts: CorpusCounts, min_names: int = 5, min_words: int = 20) -> dict[str, list[str]]:
    """Name-shaped words many abstracts use ("LiDAR", "GPT-4": not any one paper's invention) and common
    lower-case words ("model", "selector": a name in capitals is still that word)."""
    names, common = set(), set()
    for st in counts.terms.values():
        form, n = st.surfaces.most_common(1)[0]
        if " " in form:
            continue
        total = sum(st.surfaces.values())
        if st.df >= min_names and name_strength(form) == 2 and n * 2 >= total:
            names.add(form)
        lower = sum(k for s, k in st.surfaces.items() if s == s.lower())
        if st.df >= min_words and lower * 2 >= total and form.isalpha():
            common.add(form.lower())
    return {"names": sorted(names), "words": sorted(common)}
