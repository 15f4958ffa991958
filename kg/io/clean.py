"""Text cleaning for titles, abstracts and names: LaTeX fragments and odd unicode become plain text.

`clean_text` is a pure function. Steps, in order:

1. control characters (NUL included), unpaired surrogates and invisible format characters (zero-width
   space, soft hyphen, BOM) are removed; tabs and newlines become spaces;
2. URLs (``http(s)://…``, ``www.…``) are kept verbatim apart from LaTeX escapes (``\\_`` → ``_``), so
   ``~user`` paths and ``--`` survive;
3. in the rest: ``\\$`` → ``$`` and ``\\%`` → ``%`` (also ``\\& \\# \\_ \\{ \\}``); inline math ``$…$``
   loses its delimiters and its bare braces (a ``$`` pair counts as math only if the content neither
   starts nor ends with whitespace, so "costs $5 and $10" is left alone); ``\\textit{x}``, ``\\emph{x}``,
   ``\\textbf{x}``, ``\\mathcal{x}`` and friends → ``x``; symbol commands (``\\times`` → ×, ``\\alpha`` →
   α, ``\\leq`` → ≤ …) become their character; accents (``\\"o`` → ö); ``---`` → —, ``--`` → –,
   ``~`` → space; other commands inside math lose their backslash (``\\log`` → log);
4. NFKC normalisation, then every whitespace run collapses to one space and the ends are stripped.
"""

from __future__ import annotations

import re
import unicodedata

# Characters of these categories are dropped: Cc control (whitespace controls are turned into spaces first),
# Cf format (zero-width space, soft hyphen, BOM, bidi marks), Cs lone surrogates (unencodable as UTF-8).
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
_WS_CONTROLS = re.compile("[\t\n\r\v\f\x1c-\x1f\x85\u2028\u2029]")

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'{}]+", re.IGNORECASE)

_ESCAPES = {"%": "%", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}"}
_ESCAPE = re.compile(r"\\([%&#_{}])")
_DOLLAR_PLACEHOLDER = "\x00"  # never survives step 1, so it cannot clash with input
_MATH = re.compile(r"\$\$?([^$\s](?:[^$]{0,498}[^$\s])?)\$?\$")

_WRAPPERS = (
    "textit|textbf|textsc|texttt|textrm|textsf|textup|textmd|textnormal|text|emph|underline|mbox|hbox"
    "|mathcal|mathbb|mathbf|mathrm|mathit|mathsf|mathtt|mathfrak|mathscr|boldsymbol|bm|operatorname"
)
_WRAPPED = re.compile(r"\\(?:" + _WRAPPERS + r")\s*\{([^{}]*)\}")
_FONT_SWITCH = re.compile(r"\{\\(?:it|bf|em|sc|tt|rm|sf)\s+([^{}]*)\}")

_SYMBOLS = {
    "times": "×", "pm": "±", "mp": "∓", "cdot": "·", "div": "÷", "approx": "≈", "sim": "∼",
    "simeq": "≃", "propto": "∝", "neq": "≠", "ne": "≠", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥",
    "ll": "≪", "gg": "≫", "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "Rightarrow": "⇒", "leftrightarrow": "↔", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆",
    "cup": "∪", "cap": "∩", "forall": "∀", "exists": "∃", "nabla": "∇", "partial": "∂", "sum": "∑",
    "prod": "∏", "int": "∫", "sqrt": "√", "ell": "ℓ", "dots": "…", "ldots": "…", "cdots": "⋯",
    "circ": "∘", "star": "⋆", "ast": "∗", "dagger": "†", "textasciitilde": "~", "textendash": "–",
    "textemdash": "—", "textregistered": "®", "texttrademark": "™", "copyright": "©", "degree": "°",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ",
    "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ",
    "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ",
    "Omega": "Ω",
}  # fmt: skip
_SYMBOL = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])")
_ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "k": "\u0328",
}  # fmt: skip
_ACCENT = re.compile(
    r"(\{)?\\(?P<a>[\"'`^~=.]|[cvuHk](?=[\s{]))\s*(?:\{(?P<b>[A-Za-z]|\\i)\}|(?P<c>[A-Za-z]|\\i))(?(1)\})"
)
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_WS = re.compile(r"\s+")


def drop_invisible(text: str) -> str:
    """Remove control, format and surrogate characters; whitespace controls become spaces."""
    if text.isprintable():
        return text
    text = _WS_CONTROLS.sub(" ", text)
    if text.isprintable():
        return text
    return "".join(ch for ch in text if ch == " " or unicodedata.category(ch) not in _DROP_CATEGORIES)


def _accent(m: re.Match[str]) -> str:
    letter = m.group("b") or m.group("c")
    base = "i" if letter == "\\i" else letter
    return unicodedata.normalize("NFC", base + _ACCENTS[m.group("a")])


def _symbol(m: re.Match[str]) -> str:
    return _SYMBOLS.get(m.group(1), m.group(0))


def _unwrap(text: str) -> str:
    """Replace ``\\emph{x}``-style wrappers innermost first, so nesting resolves; bounded by depth."""
    for _ in range(8):
        new = _FONT_SWITCH.sub(r"\1", _WRAPPED.sub(r"\1", text))
        if new == text:
            break
        text = new
    return text


def _math(m: re.Match[str]) -> str:
    inner = _SYMBOL.sub(_symbol, _unwrap(m.group(1)))
    inner = _COMMAND.sub(r"\1", inner)  # \log → log, \mathcal without braces → mathcal…
    return re.sub(r"(?<!\\)[{}]", "", inner)


def _clean_prose(text: str) -> str:
    """LaTeX → text for a stretch that contains no URL."""
    if "\\" not in text and "$" not in text and "~" not in text and "--" not in text:
        return text
    text = text.replace("\\$", _DOLLAR_PLACEHOLDER)
    text = _ACCENT.sub(_accent, text)
    text = _MATH.sub(_math, text)
    text = _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], text)
    text = _unwrap(text)
    text = text.replace("---", "—").replace("--", "–").replace("~", " ")
    text = _SYMBOL.sub(_symbol, text)
    return text.replace(_DOLLAR_PLACEHOLDER, "$")


def _clean_url(url: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], url).replace("\\textasciitilde", "~")


def clean_text(text: str) -> str:
    """Plain, single-spaced, NFKC text from a title/abstract that may hold LaTeX and stray bytes."""
    text = drop_invisible(text)
    parts: list[str] = []
    last = 0
    for m in _URL.finditer(text):
        parts.append(_clean_prose(text[last : m.start()]))
        parts.append(_clean_url(m.group(0)))
        last = m.end()
    parts.append(_clean_prose(text[last:]))
    text = unicodedata.normalize("NFKC", "".join(parts))
    return _WS.sub(" ", text).strip()


def collapse_whitespace(text: str) -> str:
    """Every whitespace run → one space, ends stripped (no other change)."""
    return _WS.sub(" ", text).strip()
