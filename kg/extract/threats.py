"""Threat phrases: "backdoor attacks", "indirect prompt injection attacks" (→ indirect prompt injection),
coordinated kinds ("white-box and black-box attacks"), listed kinds ("attacks (targeted and untargeted)")."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from kg.extract.common import CONF_PATTERN, Mention, doc_text, mention

THREAT_HEADS = {
    "attack": "attack",
    "attacks": "attack",
    "adversary": "adversary",
    "adversaries": "adversary",
    "perturbation": "perturbation",
    "perturbations": "perturbation",
    "injection": "injection",
    "jailbreaks": "jailbreak",
    "jailbreak": "jailbreak",
    "backdoors": "backdoor",
    "poisoning": "poisoning",
}
THREAT_ADJ = frozenset(
    [
        "adversarial",
        "targeted",
        "untargeted",
        "adaptive",
        "oblivious",
        "universal",
        "physical",
        "black-box",
        "white-box",
        "gray-box",
        "grey-box",
        "byzantine",
        "transferable",
        "malicious",
        "indirect",
        "direct",
        "evasion",
        "poisoning",
    ]
)
# "prompt injection attacks" is prompt injection: the attack word adds nothing after these nouns
_THREAT_NOUNS = frozenset(
    ["injection", "injections", "poisoning", "jailbreak", "jailbreaking", "perturbation"]
)
# "attack strategies—untargeted and targeted—": nouns that may follow the head before a listed kind
_HEAD_AFTER = frozenset(
    [
        "strategy",
        "strategies",
        "method",
        "methods",
        "type",
        "types",
        "setting",
        "settings",
        "variant",
        "variants",
    ]
)
# Heads that are threats only after a qualifier: "safety risks", "malicious users", "Byzantine clients".
QUALIFIED_HEADS = {
    **{w: "risk" for w in ("risk", "risks")},
    **{
        w + s: w
        for w in ("user", "client", "actor", "participant", "node", "worker", "insider")
        for s in ("", "s")
    },
    "party": "party",
    "parties": "party",
}
_RISK_QUALIFIERS = frozenset(["safety", "security", "privacy", "misuse", "leakage"])
_ACTOR_QUALIFIERS = frozenset(
    ["malicious", "byzantine", "compromised", "adversarial", "dishonest", "untrusted"]
)
# words that make a plain "X perturbation" an attack's ("adversarial attacks like word perturbation")
_ATTACK_CONTEXT = frozenset(
    ["adversarial", "attack", "attacks", "attacker", "attackers", "adversary", "vulnerable", "vulnerability"]
)
_OPEN, _CLOSE = frozenset(["—", "–", "--", "(", ":"]), frozenset(["—", "–", "--", ")", ".", ";", ","])
_NOUNS = ("NN", "NNS", "NNP", "NNPS")
CONF_THREAT = CONF_PATTERN - 0.1


def _word(w: str) -> str:
    return w if w.isupper() else w.lower()


def threat_name(words: list[str], head: str) -> str:
    """Threat name from modifier words and head ("Prompt Injection" + attack → prompt injection)."""
    ws = [_word(w) for w in words]
    if head == "attack" and ws and ws[-1] in _THREAT_NOUNS:
        return " ".join(ws)
    return " ".join([*ws, head])


def _unit_start(doc: Doc, i: int) -> int:
    """First token of the hyphen-joined word ending at token `i` ("black - box" → "black")."""
    while i >= 2 and doc[i - 1].text == "-" and not doc[i - 2].whitespace_ and not doc[i - 1].whitespace_:
        i -= 2
    return i


def _kind(doc: Doc, i: int) -> tuple[int, int, str] | None:
    """The threat adjective (maybe hyphenated) ending at token `i`: (start char, end char, text)."""
    s = _unit_start(doc, i)
    start, end = doc[s].idx, doc[i].idx + len(doc[i])
    text = doc_text(doc)[start:end]
    return (start, end, text) if text.lower() in THREAT_ADJ else None


def _listed_after(head: Token, base: str) -> list[Mention]:
    """ "attacks (targeted and untargeted)", "attack strategies—untargeted and targeted—"."""
    doc, k = head.doc, head.i + 1
    if k < len(doc) and doc[k].lower_ in _HEAD_AFTER:
        k += 1
    if k >= len(doc) or doc[k].text not in _OPEN:
        return []
    found: list[Mention] = []
    k += 1
    while k < len(doc):
        e = k
        while e + 2 < len(doc) and doc[e + 1].text == "-" and not doc[e].whitespace_:
            e += 2
        kind = _kind(doc, e)
        if kind is None:
            break
        found.append(
            mention(kind[0], kind[1], "Threat", threat_name([kind[2]], base), confidence=CONF_THREAT)
        )
        k = e + 1
        while k < len(doc) and doc[k].lower_ in (",", "and", "or"):
            k += 1
    if k < len(doc) and doc[k].text not in _CLOSE:
        return []
    return found


def threat_mentions(head: Token, mods: list[Token]) -> list[Mention]:
    """Threat mentions headed by `head` (a THREAT_HEADS word) with its left modifiers `mods`."""
    doc, base = head.doc, THREAT_HEADS[head.lower_]
    if mods:  # a hyphenated first word is whole: "black-box attacks", not "box attacks"
        mods = [doc[j] for j in range(_unit_start(doc, mods[0].i), mods[0].i)] + list(mods)
    while mods and mods[0].tag_ not in _NOUNS and mods[0].lower_ not in THREAT_ADJ:
        kind = _kind(doc, mods[0].i + 2) if mods[0].i + 2 < len(doc) else None
        if kind is not None and kind[0] == mods[0].idx:
            break
        mods.pop(0)
    if base == "perturbation" and not (
        any(t.lower_ in THREAT_ADJ for t in mods) or any(t.lower_ in _ATTACK_CONTEXT for t in head.sent)
    ):
        return []  # "matrix perturbation analysis", "reward perturbation": a threat only among attacks
    out: list[Mention] = []
    if mods and mods[-1].tag_ != "CD":
        start, end = mods[0].idx, head.idx + len(head)
        words = doc_text(doc)[start:end].split()[:-1]
        out.append(mention(start, end, "Threat", threat_name(words, base), confidence=CONF_THREAT))
        j = mods[0].i - 1
        if _kind(doc, mods[-1].i) is not None:  # "white-box, black-box and gray-box attacks"
            while j >= 1 and doc[j].lower_ in (",", "and", "or"):
                j -= 1 if doc[j - 1].lower_ not in (",", "and", "or") else 2
                kind = _kind(doc, j) if j >= 0 else None
                if kind is None:
                    break
                out.append(
                    mention(kind[0], kind[1], "Threat", threat_name([kind[2]], base), confidence=CONF_THREAT)
                )
                j = _unit_start(doc, j) - 1
    out.extend(_listed_after(head, base))
    for m in out:
        m["rule"] = "threat-phrase"
    return out


def qualified_threat(head: Token) -> list[Mention]:
    """ "safety risks" → safety risk, "malicious users" → malicious user: a qualifier right before."""
    doc, base = head.doc, QUALIFIED_HEADS[head.lower_]
    if head.i == 0 or head.tag_ not in _NOUNS:
        return []
    mod = doc[head.i - 1]
    qualifiers = _RISK_QUALIFIERS if base == "risk" else _ACTOR_QUALIFIERS
    if mod.lower_ not in qualifiers:
        return []
    start, end = mod.idx, head.idx + len(head)
    return [
        mention(start, end, "Threat", f"{mod.lower_} {base}", confidence=CONF_THREAT, rule="threat-phrase")
    ]
