"""The questions users ask of a graph, as typed functions over a Store (the CLI and the API call these).

Each function takes a QueryContext (store + IRI scheme + full-text index) and returns frozen records;
batched variants (`*_by_iris`, `links_by_paper`, `broader`, `related`) answer many nodes in one query.
"""

from kg.query.context import QueryContext
from kg.query.cursor import BadCursor
from kg.query.entities import attacks, broader, defenses, entities, entities_by_iris, entity, related, resolve
from kg.query.graph import neighborhood, node_iri, ring
from kg.query.hits import search
from kg.query.links import links, links_by_paper
from kg.query.model import EntityInfo, LinkInfo, Page, PaperInfo, SearchHit, Stats, Subgraph
from kg.query.papers import BadOrder, paper, papers, papers_by_iris, papers_of_entities
from kg.query.stats import stats

__all__ = [
    "BadCursor",
    "BadOrder",
    "EntityInfo",
    "LinkInfo",
    "Page",
    "PaperInfo",
    "QueryContext",
    "SearchHit",
    "Stats",
    "Subgraph",
    "attacks",
    "broader",
    "defenses",
    "entities",
    "entities_by_iris",
    "entity",
    "links",
    "links_by_paper",
    "neighborhood",
    "node_iri",
    "paper",
    "papers",
    "papers_by_iris",
    "papers_of_entities",
    "related",
    "resolve",
    "ring",
    "search",
    "stats",
]
