"""Each entity's papers kept at write time, in the order the API pages them (store format 4).

`papers(dataset: X)` pages the ids of the papers linked to X in identifier order. Read from the graph,
the first page of a popular entity reads every linked paper's IRI (one RocksDB lookup each: 1.8 s for
74k papers at 100k) and sorts them. `kg.write` keeps the sorted list instead, in the same transaction as
the papers, cut into blocks of at most `CAP` entries so that a write rewrites only the blocks it changes
and a page reads only the blocks it reaches:

    graph/meta/entity/{id}        <{base}stats/{id}> kg:paperBlocks "[[k, from, size], ...]"   (the index)
    graph/meta/papers/{id}/{k}    <{base}stats/{id}/block{k}> kg:papers "[[paper id, "rel rel"], ...]"

Block k holds the ids from `from` (inclusive) up to the next block's `from`; the first block's `from`
is "". An entry names the relations (local names) linking the paper to the entity, so a relation filter
reads the same blocks.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.counts import Layout
from kg.query.sparql import text, values
from kg.store.types import Store

CAP = 1_000  # entries per block before it is split
FILL = 500  # entries per block when blocks are cut afresh (a split leaves halves)
Entry = tuple[str, str]  # (paper id, space-separated relation local names)
Block = tuple[int, str, int]  # (k, first id it may hold, entries)


def index_node(layout: Layout, eid: str) -> NamedNode:
    return NamedNode(layout.years_node(eid))


def block_graph(layout: Layout, eid: str, k: int) -> str:
    return f"{layout.meta}/papers/{eid}/{k}"


def block_node(layout: Layout, eid: str, k: int) -> NamedNode:
    return NamedNode(f"{layout.years_node(eid)}/block{k}")


def encode_index(blocks: Sequence[Block]) -> str:
    return json.dumps([list(b) for b in blocks], separators=(",", ":"))


def decode_index(raw: str) -> list[Block]:
    try:
        return [(int(k), str(f), int(n)) for k, f, n in json.loads(raw)]
    except (ValueError, TypeError):
        return []


def encode_block(entries: Sequence[Entry]) -> str:
    return json.dumps([list(e) for e in entries], separators=(",", ":"), ensure_ascii=False)


def decode_block(raw: str) -> list[Entry]:
    try:
        return [(str(i), str(r)) for i, r in json.loads(raw)]
    except (ValueError, TypeError):
        return []


def index_quad(layout: Layout, eid: str, blocks: Sequence[Block]) -> Quad:
    graph = NamedNode(layout.entity_graph(eid))
    return Quad(index_node(layout, eid), layout.term("paperBlocks"), Literal(encode_index(blocks)), graph)


def block_quads(layout: Layout, eid: str, k: int, entries: Sequence[Entry]) -> list[Quad]:
    if not entries:
        return []
    graph = NamedNode(block_graph(layout, eid, k))
    return [Quad(block_node(layout, eid, k), layout.term("papers"), Literal(encode_block(entries)), graph)]


def cut(entries: Sequence[Entry]) -> tuple[list[Block], list[list[Entry]]]:
    """Sorted entries cut afresh into blocks of FILL, numbered from 0 (none for no entries)."""
    parts = [list(entries[i : i + FILL]) for i in range(0, len(entries), FILL)]
    return [(j, "" if j == 0 else part[0][0], len(part)) for j, part in enumerate(parts)], parts


def update(index: Sequence[Block], stored: Mapping[int, Sequence[Entry]],
           delta: Mapping[str, str | None]) -> tuple[list[Block], dict[int, list[Entry]]]:
    """Apply `delta` (paper id -> relations, None: unlinked) to an entity's blocks. `stored` holds the
    entries of every block the delta reaches. Returns the new index and the new content of each block
    that changed (an empty list: the block is gone)."""
    blocks = list(index) or [(0, "", 0)]
    froms = [f for _, f, _ in blocks]
    reached: dict[int, dict[str, str]] = {}
    for pid, rels in delta.items():
        j = max(bisect.bisect_right(froms, pid) - 1, 0)
        k = blocks[j][0]
        if k not in reached:
            reached[k] = dict(stored.get(k, ()))
        if rels:
            reached[k][pid] = rels
        else:
            reached[k].pop(pid, None)
    changed: dict[int, list[Entry]] = {}
    next_k = max(k for k, _, _ in blocks) + 1
    out: list[Block] = []
    for k, start, _n in blocks:
        if k not in reached:
            out.append((k, start, _n))
            continue
        entries = sorted(reached[k].items())
        if len(entries) > CAP:  # split into about-equal parts of at most FILL
            n = -(-len(entries) // FILL)
            size = -(-len(entries) // n)
            parts = [entries[i : i + size] for i in range(0, len(entries), size)]
            new = [(k, start, len(parts[0]))]
            new += [(next_k + j, part[0][0], len(part)) for j, part in enumerate(parts[1:])]
            next_k += len(parts) - 1
            out.extend(new)
            changed.update({b[0]: part for b, part in zip(new, parts, strict=True)})
        elif entries:
            out.append((k, start, len(entries)))
            changed[k] = entries
        else:
            changed[k] = []
    if out and out[0][1] != "":
        out[0] = (out[0][0], "", out[0][2])  # the first block covers everything below the second
    return out, changed


# --- reading --------------------------------------------------------------------------------------
def stored_indexes(store: Store, layout: Layout, eids: Sequence[str]) -> dict[str, list[Block]]:
    """The block index of each entity id (entities linked from no paper are left out)."""
    out: dict[str, list[Block]] = {}
    pred = layout.term("paperBlocks")
    for i in range(0, len(eids), 2_000):
        part = eids[i : i + 2_000]
        by_node = {layout.years_node(e): e for e in part}
        scope = values("c", [NamedNode(n) for n in by_node])
        rows = store.select(f"SELECT ?c ?x WHERE {{ {scope} ?c {pred} ?x }}")
        for r in rows:
            if (eid := by_node.get(text(r, "c") or "")) is not None:
                out[eid] = decode_index(text(r, "x") or "")
    return out


def stored_blocks(store: Store, layout: Layout,
                  wanted: Iterable[tuple[str, int]]) -> dict[tuple[str, int], list[Entry]]:
    """The entries of these (entity id, k) blocks (an absent block has none)."""
    keys = list(dict.fromkeys(wanted))
    by_graph = {block_graph(layout, e, k): (e, k) for e, k in keys}
    out: dict[tuple[str, int], list[Entry]] = {key: [] for key in keys}
    pred = layout.term("papers")
    ox_store = getattr(store, "oxigraph", None)
    if ox_store is not None:  # embedded: one index lookup per block
        for g, key in by_graph.items():
            for q in ox_store.quads_for_pattern(None, pred, None, NamedNode(g)):
                out[key] = decode_block(q.object.value)
        return out
    graphs = list(by_graph)
    for i in range(0, len(graphs), 500):
        scope = values("g", [NamedNode(g) for g in graphs[i : i + 500]])
        for r in store.select(f"SELECT ?g ?v WHERE {{ {scope} GRAPH ?g {{ ?b {pred} ?v }} }}"):
            if (found := by_graph.get(text(r, "g") or "")) is not None:
                out[found] = decode_block(text(r, "v") or "")
    return out


def full_lists(store: Store, layout: Layout, eids: Sequence[str]) -> dict[str, list[Entry]]:
    """Every entry of each entity, in id order."""
    indexes = stored_indexes(store, layout, list(eids))
    found = stored_blocks(store, layout, [(e, k) for e, ix in indexes.items() for k, _, _ in ix])
    return {e: [x for k, _, _ in indexes.get(e, []) for x in found.get((e, k), [])] for e in eids}


def page_of(index: Sequence[Block], read: Callable[[list[int]], Mapping[int, Sequence[Entry]]],
            last: str | None, first: int) -> tuple[int, int, list[str]]:
    """(total, position of the page's first id, the page's ids) after the id `last`, reading only the
    blocks the page reaches through `read(ks)`."""
    total = sum(n for _, _, n in index)
    froms = [f for _, f, _ in index]
    j = max(bisect.bisect_right(froms, last) - 1, 0) if last is not None else 0
    position = sum(n for _, _, n in index[:j])
    ids: list[str] = []
    skip_done = last is None
    while j < len(index) and len(ids) < first:
        want = [index[j][0]]
        entries = read(want).get(index[j][0], ())
        chunk = [i for i, _ in entries]
        if not skip_done:
            skip = bisect.bisect_right(chunk, last or "")
            position += skip
            chunk = chunk[skip:]
            skip_done = True
        ids.extend(chunk[: first - len(ids)])
        j += 1
    return total, position, ids
