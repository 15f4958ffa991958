"""paperkg from Python: open a knowledge graph (a local store, or a running `kg serve` over HTTP), ask it the
GraphQL API's questions as typed methods, and take the answers as records, pandas DataFrames
(`.to_pandas()`), networkx graphs or an rdflib Dataset.

    import paperkg
    with paperkg.open("./kg-data") as kg:
        kg.papers(dataset="ImageNet", year=2024).to_pandas()
"""

from kg.query.model import EntityInfo, LinkInfo, PaperInfo, SearchHit, Stats
from kg.query.results import ResultInfo
from kg.query.trends import TrendingEntity, TrendPoint
from paperkg.build import Built, build
from paperkg.graph import Graph, QueryError, connect, open
from paperkg.results import Results, SparqlResult

__all__ = [
    "Built", "EntityInfo", "Graph", "LinkInfo", "PaperInfo", "QueryError", "ResultInfo", "Results",
    "SearchHit", "SparqlResult", "Stats", "TrendPoint", "TrendingEntity", "build", "connect", "open",
]
