"""HTTP content negotiation (RFC 9110 §12.5.1): the offered media type a client's Accept header prefers.

q-values decide; among equal q the more specific range wins (`text/csv` over `text/*` over `*/*`), then the
server's order of preference. A range with q=0 refuses that type; no acceptable type means 406.
"""

from __future__ import annotations

from collections.abc import Sequence


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    """(type, subtype, q) for each media range of an Accept header; malformed q-values count as 1."""
    out = []
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        kind, _, sub = media.partition("/")
        q = 1.0
        for f in fields[1:]:
            name, _, value = f.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(1.0, max(0.0, float(value.strip())))
                except ValueError:
                    q = 1.0
        out.append((kind, sub or "*", q))
    return out


def _match(kind: str, sub: str, offered: str) -> int:
    """How specifically the range (kind/sub) matches `offered`: 3 exact, 2 type/*, 1 */*, 0 no match."""
    o_kind, _, o_sub = offered.partition("/")
    if kind == o_kind and sub == o_sub:
        return 3
    if kind == o_kind and sub == "*":
        return 2
    return 1 if kind == "*" and sub == "*" else 0


def choose(accept: str | None, offered: Sequence[str]) -> str | None:
    """The offered media type the Accept header prefers; the first offered when the header is absent or
    empty; None when every offered type is unacceptable (answer 406)."""
    if not offered:
        return None
    if accept is None or not accept.strip():
        return offered[0]
    ranges = _ranges(accept)
    best: tuple[float, int, int] | None = None
    chosen: str | None = None
    for rank, media in enumerate(offered):
        # the most specific range matching this type sets its q (RFC 9110: specific ranges override)
        spec, q = max(((m, r_q) for k, s, r_q in ranges if (m := _match(k, s, media))), default=(0, 0.0))
        if spec == 0 or q <= 0.0:
            continue
        key = (q, spec, -rank)
        if best is None or key > best:
            best, chosen = key, media
    return chosen
