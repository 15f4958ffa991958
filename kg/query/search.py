"""Full-text index over paper titles/abstracts and entity names/aliases: SQLite FTS5, ranked by BM25.

The index is derived data. It lives in a SQLite file beside an embedded store directory (in memory for
remote and in-memory stores) and records the `store.generation()` it was built from; when the store's
generation moves on (checked at most every `recheck_s` seconds), only documents whose text changed are
rewritten. Every API process reads the same file, so nothing is kept per process but a timestamp.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.sparql import prefixes, text, values
from kg.rdf.iris import DCTERMS, RDF, SKOS, Iris
from kg.store.types import Store

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL,
                                sig TEXT NOT NULL,
                                UNIQUE(kind, key));
CREATE VIRTUAL TABLE IF NOT EXISTS fts
    USING fts5(name, body, tokenize='porter unicode61 remove_diacritics 2');
"""
_WORD = re.compile(r"\w+")
_MAX_TERMS = 32
_HITS, _HIT_TEXT = 256, 500  # remembered searches, and the longest text remembered
Doc = tuple[str, str]  # (kind, key): kind "paper" (key = paper id) or "entity" (key = entity id)


def _signature(content: tuple[str, str]) -> str:
    """What tells a document's text changed."""
    return hashlib.sha1("\0".join(content).encode()).hexdigest()


def _insert(db: sqlite3.Connection, doc: Doc, sig: str, content: tuple[str, str]) -> None:
    """A document the index does not hold yet: its row and its text."""
    rowid = db.execute("INSERT INTO docs(kind, key, sig) VALUES (?, ?, ?)", (*doc, sig)).lastrowid
    db.execute("INSERT INTO fts(rowid, name, body) VALUES (?, ?, ?)", (rowid, *content))


def fts_query(text_: str, any_term: bool = False) -> str | None:
    """An FTS5 query from free text: quoted words (AND, or OR), the last one as a prefix; None if no words."""
    words = _WORD.findall(text_.lower())[:_MAX_TERMS]
    if not words:
        return None
    terms = [f'"{w}"' for w in words]
    terms[-1] += "*"
    return (" OR " if any_term else " ").join(terms)


_PAPER_FIELDS = {DCTERMS + "identifier": "id", DCTERMS + "title": "title", DCTERMS + "abstract": "abstract"}


class NewDocs:
    """The documents `SearchIndex` reads from a store (a kg:Paper's identifier, title and abstract; an
    entity's prefLabel and altLabels), gathered from the quads as a new store's spool is written."""

    def __init__(self, iris: Iris) -> None:
        self.iris = iris
        self._paper_class = iris.term("Paper")
        self._papers: dict[str, dict[str, str]] = defaultdict(dict)  # paper IRI -> field -> value
        self._labels: dict[str, str] = {}
        self._alts: dict[str, set[str]] = defaultdict(set)

    # the only predicates `see` keeps: a caller may skip the others without calling it
    predicates = frozenset(NamedNode(p) for p in (SKOS + "prefLabel", SKOS + "altLabel", RDF + "type",
                                                    *_PAPER_FIELDS))

    def see(self, quad: Quad) -> None:
        s, p, term = quad.subject, quad.predicate.value, quad.object
        if not isinstance(s, NamedNode) or not isinstance(term, NamedNode | Literal):
            return
        o = term.value
        if p == SKOS + "prefLabel":
            self._labels[s.value] = o
        elif p == SKOS + "altLabel":
            self._alts[s.value].add(o)
        elif p in _PAPER_FIELDS:
            self._papers[s.value][_PAPER_FIELDS[p]] = o
        elif p == RDF + "type" and o == self._paper_class:
            self._papers[s.value]["typed"] = ""

    def take_papers(self) -> dict[Doc, tuple[str, str]]:
        """The papers seen since the last call (a paper's quads come together, in one record)."""
        out = {("paper", f["id"]): (f.get("title", ""), f.get("abstract", ""))
               for f in self._papers.values() if "typed" in f and "id" in f}
        self._papers.clear()
        return out

    def entities(self) -> dict[Doc, tuple[str, str]]:
        """Every entity seen with a prefLabel: its label and its sorted altLabels."""
        out: dict[Doc, tuple[str, str]] = {}
        for iri, label in self._labels.items():
            if eid := self.iris.entity_id_of(iri):
                out[("entity", eid)] = (label, " ; ".join(sorted(self._alts.get(iri, ()))))
        return out



class SearchIndex:
    """A BM25 index of papers and entities kept in step with a store."""

    def __init__(self, path: str, iris: Iris, recheck_s: float = 2.0) -> None:
        self.path, self.iris, self.recheck_s = path, iris, recheck_s
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()
        self._checked = float("-inf")
        self._hits: OrderedDict[tuple[str | None, str, int, str | None], list[tuple[Doc, float]]]
        self._hits = OrderedDict()

    @classmethod
    def for_store(cls, store: Store, iris: Iris) -> SearchIndex:
        """The index beside a local store directory ("kg-data" → "kg-data.search.sqlite"), else in memory."""
        if store.directory is None or not Path(store.directory).is_dir():  # in memory, or over the network
            return cls(":memory:", iris)
        path = Path(store.directory).resolve()
        return cls(str(path.with_name(path.name + ".search.sqlite")), iris)

    # --- reading ------------------------------------------------------------------------------------
    def search(
        self, store: Store, text_: str, first: int = 10, kind: str | None = None
    ) -> list[tuple[Doc, float]]:
        """Best `first` documents for `text_` (all words; any word when none has them all), best first;
        remembered per index generation (ranking thousands of matches by BM25 takes milliseconds)."""
        self.sync(store)
        with self._lock:
            key = (self._meta("generation"), text_, first, kind)
            if (hit := self._hits.get(key)) is not None:
                self._hits.move_to_end(key)
                return hit
        found = self._search(text_, first, kind)
        if len(text_) > _HIT_TEXT:
            return found
        with self._lock:
            if self._hits and next(iter(self._hits))[0] != key[0]:
                self._hits.clear()  # the index moved on
            self._hits[key] = found
            if len(self._hits) > _HITS:
                self._hits.popitem(last=False)
        return found

    def forget(self) -> None:
        """Drop the remembered searches (benchmarks measuring a cold search)."""
        with self._lock:
            self._hits.clear()

    def _search(self, text_: str, first: int, kind: str | None) -> list[tuple[Doc, float]]:
        for any_term in (False, True):
            q = fts_query(text_, any_term)
            if q is None:
                return []
            sql = (
                "SELECT d.kind, d.key, -bm25(fts, 10.0, 1.0) FROM fts JOIN docs d ON d.id = fts.rowid "
                "WHERE fts MATCH ?"
                + (" AND d.kind = ?" if kind else "")
                + " ORDER BY bm25(fts, 10.0, 1.0) LIMIT ?"
            )
            args: tuple[object, ...] = (q, kind, first) if kind else (q, first)
            with self._lock:
                rows = self._db.execute(sql, args).fetchall()
            if rows:
                return [((k, key), float(score)) for k, key, score in rows]
        return []

    def paper_ids(self, store: Store, text_: str, limit: int = 10_000) -> list[str]:
        return [key for (_, key), _ in self.search(store, text_, limit, kind="paper")]

    def entity_ids(self, store: Store, text_: str, limit: int = 10_000) -> list[str]:
        return [key for (_, key), _ in self.search(store, text_, limit, kind="entity")]

    # --- keeping in step ------------------------------------------------------------------------------
    def sync(self, store: Store, force: bool = False) -> None:
        """Bring the index up to the store's generation, rewriting only documents whose text changed."""
        now = time.monotonic()
        if not force and now - self._checked < self.recheck_s:
            return
        with self._lock:
            gen = store.generation()
            if self._meta("generation") == gen and self._meta("base") == self.iris.base:
                self._checked = now
                return
            docs = self._read(store)
            self._write(docs, gen, full=True)
            self._checked = now

    def refresh(self, store: Store, before: str, papers: Iterable[str], entities: Iterable[str]) -> None:
        """After this process wrote the store (generation `before` → now): reindex just these documents."""
        with self._lock:
            if self._meta("generation") != before or self._meta("base") != self.iris.base:
                self._checked = float("-inf")
                self.sync(store)
                return
            wanted = {("paper", p) for p in papers} | {("entity", e) for e in entities}
            docs = self._read(store, wanted)
            self._write({d: docs.get(d) for d in wanted}, store.generation(), full=False)

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _read(self, store: Store, only: set[Doc] | None = None) -> dict[Doc, tuple[str, str]]:
        pre = prefixes(self.iris)
        scope_p = scope_e = ""
        if only is not None:
            scope_p = values("p", [NamedNode(self.iris.paper(k)) for kind, k in only if kind == "paper"])
            scope_e = values(
                "e", [NamedNode(self.iris.entity_from_id(k)) for kind, k in only if kind == "entity"]
            )
        out: dict[Doc, tuple[str, str]] = {}
        for r in store.select(
            pre + f"SELECT ?id ?t ?a WHERE {{ {scope_p} ?p a kg:Paper ; dcterms:identifier ?id . "
            "OPTIONAL { ?p dcterms:title ?t } OPTIONAL { ?p dcterms:abstract ?a } }"
        ):
            out[("paper", text(r, "id") or "")] = (text(r, "t") or "", text(r, "a") or "")
        alts: dict[Doc, set[str]] = {}
        for r in store.select(
            pre + f"SELECT ?e ?l ?alt WHERE {{ {scope_e} ?e skos:prefLabel ?l . "
            "OPTIONAL { ?e skos:altLabel ?alt } }"
        ):
            eid = self.iris.entity_id_of(text(r, "e") or "")
            if eid:
                doc = ("entity", eid)
                alts.setdefault(doc, set())
                if (alt := text(r, "alt")) is not None:
                    alts[doc].add(alt)
                out[doc] = (text(r, "l") or "", "")
        for doc, forms in alts.items():
            out[doc] = (out[doc][0], " ; ".join(sorted(forms)))
        return out

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """The index connection inside one write transaction, rolled back if anything fails."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _write(self, docs: Mapping[Doc, tuple[str, str] | None], gen: str, full: bool) -> None:
        with self._transaction() as db:
            if full:
                rows = db.execute("SELECT id, kind, key, sig FROM docs").fetchall()
            else:  # only the documents asked for: a refresh costs what it touches, not the index size
                one = "SELECT id, kind, key, sig FROM docs WHERE kind = ? AND key = ?"
                rows = [r for d in docs for r in db.execute(one, d).fetchall()]
            have = {(k, key): (i, sig) for i, k, key, sig in rows}
            gone = [have[d][0] for d in have if (full and d not in docs) or (d in docs and docs[d] is None)]
            for i in gone:
                db.execute("DELETE FROM fts WHERE rowid = ?", (i,))
                db.execute("DELETE FROM docs WHERE id = ?", (i,))
            for doc, content in docs.items():
                if content is None:
                    continue
                sig = _signature(content)
                old = have.get(doc)
                if old is None:
                    _insert(db, doc, sig, content)
                elif old[1] != sig:
                    db.execute("DELETE FROM fts WHERE rowid = ?", (old[0],))
                    db.execute("UPDATE docs SET sig = ? WHERE id = ?", (sig, old[0]))
                    db.execute("INSERT INTO fts(rowid, name, body) VALUES (?, ?, ?)", (old[0], *content))
            self._set_generation(db, gen)

    def fill(self, docs: Mapping[Doc, tuple[str, str]]) -> None:
        """Add documents to a new index in one transaction, reading nothing back: what a fresh build does
        while it spools, so no read of the whole store is left for after its load."""
        with self._lock, self._transaction() as db:
            for doc, content in docs.items():
                _insert(db, doc, _signature(content), content)

    def stamp(self, generation: str) -> None:
        """Record that the index is in step with this store generation (after `fill`)."""
        with self._lock:
            self._set_generation(self._db, generation)

    def _set_generation(self, db: sqlite3.Connection, generation: str) -> None:
        db.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)",
                       [("generation", generation), ("base", self.iris.base)])

    def close(self) -> None:
        with self._lock:
            self._db.close()
