"""Pictures of an entity's co-occurrence map (the explorer's) or a paper's neighbourhood: a standalone
vis-network HTML page, or an SVG/PNG drawn with matplotlib.

The graph library (vis-network) comes from the pyvis package, which ships its built files; nothing is
fetched from a CDN, so the HTML works when opened from disk and the explorer page works offline.
"""

from __future__ import annotations

import html
import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.query.graph import Ring, WeightedEdge
from kg.query.model import Edge, Node, Subgraph

if TYPE_CHECKING:
    from kg.query import QueryContext

VIS_VERSION = "9.1.2"
IMAGE_SUFFIXES = (".svg", ".png")
HTML_SUFFIXES = (".html", ".htm")


@dataclass(frozen=True, slots=True)
class NodeStyle:
    """How one node type is drawn: fill colour, vis-network shape, matplotlib marker."""

    color: str
    shape: str
    marker: str


# One table for the explorer page, `kg viz` HTML and the static pictures.
TYPE_STYLES: dict[str, NodeStyle] = {
    "Paper": NodeStyle("#4e79a7", "box", "s"),
    "Task": NodeStyle("#f28e2b", "ellipse", "o"),
    "Dataset": NodeStyle("#59a14f", "diamond", "D"),
    "Method": NodeStyle("#e15759", "dot", "o"),
    "Metric": NodeStyle("#b07aa1", "triangleDown", "v"),
    "Model": NodeStyle("#76b7b2", "hexagon", "h"),
    "Domain": NodeStyle("#edc948", "triangle", "^"),
    "Threat": NodeStyle("#9c755f", "star", "*"),
}
UNKNOWN_STYLE = NodeStyle("#bab0ac", "dot", "o")


def style_of(node_type: str) -> NodeStyle:
    """The style for a node type, case-insensitively ("DATASET" and "Dataset" look the same)."""
    return TYPE_STYLES.get(node_type.capitalize(), UNKNOWN_STYLE)


@dataclass(frozen=True, slots=True)
class VizGraph:
    """A neighbourhood or co-occurrence map to draw (the query layer's nodes and edges; a co-occurrence edge
    carries its weight, papers shared) and the node it is centred on."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge | WeightedEdge, ...]
    truncated: int = 0
    center: str | None = None


def from_subgraph(sub: Subgraph, center: str | None = None) -> VizGraph:
    """The query layer's neighbourhood, centred on `center`."""
    return VizGraph(sub.nodes, sub.edges, sub.truncated, center)


def from_ring(ring: Ring) -> VizGraph:
    """An entity's co-occurrence map (`kg.query.ring`, as the explorer draws it), centred on the entity."""
    return VizGraph(ring.nodes, ring.edges, ring.more, ring.nodes[0].id if ring.nodes else None)


def edge_label(e: Edge | WeightedEdge) -> str:
    """A co-occurrence edge's papers shared ("3 papers"); any other edge's relation."""
    if is_cooccurrence(e):
        weight = getattr(e, "weight", 1)
        return f"{weight} paper{'' if weight == 1 else 's'}"
    return e.relation


def is_cooccurrence(e: Edge | WeightedEdge) -> bool:
    return isinstance(e, WeightedEdge) and e.relation == "cooccurs"


# --- vis-network, as shipped by pyvis ---------------------------------------------------------------
def vis_dir() -> Traversable:
    """The folder of vis-network's built files inside the installed pyvis package."""
    return files("pyvis").joinpath("lib", f"vis-{VIS_VERSION}")


def vis_asset(name: str) -> Traversable:
    """`vis-network.min.js` or `vis-network.css` from pyvis; FileNotFoundError when pyvis lacks it."""
    path = vis_dir().joinpath(name)
    if not path.is_file():
        raise FileNotFoundError(f"pyvis does not ship {name}; install pyvis==0.3.2")
    return path


def vis_data(graph: VizGraph) -> dict[str, list[dict[str, Any]]]:
    """vis-network DataSet items for the graph: styled nodes and relation-labelled arrows."""
    nodes = []
    for n in graph.nodes:
        st = style_of(n.type)
        nodes.append({
            "id": n.id, "label": short_label(n.label, 28), "title": f"{n.type}: {n.label}",
            "shape": st.shape, "color": st.color, "group": n.type,
            "font": {"color": "#ffffff" if st.shape == "box" else "#222222"},
            "borderWidth": 3 if n.id == graph.center else 1,
        })
    edges = [
        {"id": f"{e.source}|{e.relation}|{e.target}", "from": e.source, "to": e.target,
         "label": edge_label(e), "title": edge_label(e), "arrows": "" if is_cooccurrence(e) else "to",
         **({"value": e.weight} if is_cooccurrence(e) and isinstance(e, WeightedEdge) else {})}
        for e in graph.edges
    ]
    return {"nodes": nodes, "edges": edges}


_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>{vis_css}</style>
<style>
body {{ margin: 0; font: 14px system-ui, sans-serif; }}
header {{ padding: 6px 12px; border-bottom: 1px solid #ddd; }}
#graph {{ position: absolute; top: 64px; bottom: 0; left: 0; right: 0; }}
.key {{ display: inline-block; margin-right: 12px; }}
.swatch {{ display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }}
</style></head>
<body><header><strong>{title}</strong> {note}<div>{legend}</div></header><div id="graph"></div>
<script>{vis_js}</script>
<script id="kg-data" type="application/json">{data}</script>
<script>
const data = JSON.parse(document.getElementById("kg-data").textContent);
const network = new vis.Network(document.getElementById("graph"),
  {{ nodes: new vis.DataSet(data.nodes), edges: new vis.DataSet(data.edges) }},
  {{ edges: {{ font: {{ size: 10, align: "middle" }}, smooth: {{ type: "dynamic" }} }},
    nodes: {{ font: {{ size: 14 }} }}, physics: {{ stabilization: {{ iterations: 300 }} }},
    interaction: {{ hover: true, tooltipDelay: 100 }} }});
</script></body></html>
"""


def to_html(graph: VizGraph, title: str = "paperkg neighbourhood") -> str:
    """A self-contained HTML page (vis-network inlined) that works when opened from disk."""
    data = json.dumps(vis_data(graph), ensure_ascii=False).replace("</", "<\\/")
    types = sorted({n.type for n in graph.nodes})
    legend = "".join(
        f'<span class="key"><span class="swatch" style="background:{style_of(t).color}"></span>'
        f"{html.escape(t)}</span>" for t in types
    )
    note = f"({graph.truncated} more not shown)" if graph.truncated else ""
    return _HTML.format(
        title=html.escape(title), note=note, legend=legend, data=data,
        vis_css=vis_asset("vis-network.css").read_text(encoding="utf-8"),
        vis_js=vis_asset("vis-network.min.js").read_text(encoding="utf-8").replace("</script", "<\\/script"),
    )


# --- static pictures --------------------------------------------------------------------------------
def short_label(text: str, width: int = 22, lines: int = 2) -> str:
    """Wrap a label to at most `lines` lines of `width` characters, ending in … when cut."""
    wrapped = textwrap.wrap(text, width=width) or [text]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1].rstrip() + "…"
    return "\n".join(wrapped)


def draw(graph: VizGraph, out: Path, title: str | None = None, keep: dict[str, Any] | None = None) -> None:
    """Draw the graph with a networkx layout and matplotlib; the format follows `out`'s suffix. With `keep`,
    nothing is written: the figure, its axes and the node positions are left in it (tests measure them)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx
    from matplotlib.lines import Line2D

    g = nx.DiGraph()
    for n in graph.nodes:
        g.add_node(n.id)
    for e in graph.edges:
        if e.source in g and e.target in g:
            g.add_edge(e.source, e.target, relation=edge_label(e), together=is_cooccurrence(e),
                       weight=getattr(e, "weight", 1))
    count = max(1, g.number_of_nodes())
    side = min(24.0, 6.0 + 1.6 * count ** 0.5 * 1.5)
    if count == 1:
        pos = {n: (0.0, 0.0) for n in g}
    elif nx.is_weakly_connected(g):  # ForceAtlas2 gathers each paper's entities around it
        pos = nx.forceatlas2_layout(g.to_undirected(), seed=7, max_iter=300, scaling_ratio=3.0)
    else:  # it drifts components far apart; springs keep them together
        pos = nx.spring_layout(g, seed=7, k=1.8 / count ** 0.5, iterations=200)
    with plt.rc_context({"svg.fonttype": "none", "font.family": "DejaVu Sans"}):
        fig, ax = plt.subplots(figsize=(side, side * 0.75))
        links = [(a, b) for a, b, d in g.edges(data=True) if not d["together"]]
        shared = [(a, b, d["weight"]) for a, b, d in g.edges(data=True) if d["together"]]
        nx.draw_networkx_edges(g, pos, edgelist=links, ax=ax, edge_color="#999999", arrows=True, arrowsize=10,
                               node_size=900, width=1.0)
        if shared:  # co-occurrence: no direction, wider for more papers shared
            top = max(w for _, _, w in shared)
            nx.draw_networkx_edges(g, pos, edgelist=[(a, b) for a, b, _ in shared], ax=ax, arrows=False,
                                   edge_color="#bbbbbb", node_size=900,
                                   width=[1.0 + 5.0 * w / top for _, _, w in shared])
        if g.number_of_edges() <= 60:
            nx.draw_networkx_edge_labels(g, pos, ax=ax, font_size=7, font_color="#555555",
                                         edge_labels=nx.get_edge_attributes(g, "relation"),
                                         bbox={"alpha": 0.0})
        types = sorted({n.type for n in graph.nodes})
        for t in types:
            ids = [n.id for n in graph.nodes if n.type == t]
            st = style_of(t)
            nx.draw_networkx_nodes(g, pos, nodelist=ids, ax=ax, node_color=st.color, node_shape=st.marker,
                                   node_size=[1400 if i == graph.center else 700 for i in ids],
                                   edgecolors="#333333", linewidths=0.8)
        labels = {n.id: short_label(n.label) for n in graph.nodes}
        ys = [float(y) for _, y in pos.values()]
        drop = 0.03 * ((max(ys) - min(ys)) or 1.0)  # labels sit under their node, not on it
        label_pos = {n: (float(x), float(y) - drop) for n, (x, y) in pos.items()}
        nx.draw_networkx_labels(g, label_pos, labels=labels, ax=ax, font_size=9, verticalalignment="top",
                                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.7})
        handles = [Line2D([], [], marker=style_of(t).marker, linestyle="", markersize=10,
                          markerfacecolor=style_of(t).color, markeredgecolor="#333333", label=t)
                   for t in types]
        # outside the drawing, on the right: a legend inside the axes covered the centre node
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize=9, frameon=True)
        heading = title or "paperkg neighbourhood"
        if graph.truncated:
            heading += f"  ({graph.truncated} more not shown)"
        ax.set_title(heading, fontsize=12)
        ax.axis("off")
        fig.tight_layout()
        if keep is not None:
            keep.update(figure=fig, axes=ax, pos=pos)
            return
        fig.savefig(out, dpi=120, bbox_inches="tight")
        plt.close(fig)


def render(graph: VizGraph, out: str | Path, title: str | None = None) -> Path:
    """Write the graph to `out` as .html, .svg or .png (chosen by suffix) and return the path."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix in HTML_SUFFIXES:
        path.write_text(to_html(graph, title or "paperkg neighbourhood"), encoding="utf-8")
    elif suffix in IMAGE_SUFFIXES:
        draw(graph, path, title)
    else:
        raise ValueError(f"unsupported output {path.name!r}: use .html, .svg or .png")
    return path


# --- from the store ---------------------------------------------------------------------------------
def neighborhood_graph(ctx: QueryContext, name_or_id: str, depth: int = 1, limit: int = 50) -> VizGraph:
    """The neighbourhood of a node id, else of the entity so named, else of the best search hit."""
    from kg.query import entity, neighborhood, search

    center: str | None = name_or_id
    sub = neighborhood(ctx, name_or_id, depth, limit)
    if sub is None:
        found = entity(ctx, name=name_or_id)
        if found is not None:
            center = found.id
        else:
            hit = next(iter(search(ctx, name_or_id, 1)), None)
            center = hit.entity.id if hit and hit.entity else hit.paper.id if hit and hit.paper else None
        sub = neighborhood(ctx, center, depth, limit) if center else None
    if sub is None:
        raise LookupError(f"no paper or entity matches {name_or_id!r}")
    return from_subgraph(sub, center)


def map_graph(
    ctx: QueryContext, name_or_id: str, first: int = 30, types: Sequence[str] | None = None
) -> VizGraph | None:
    """The co-occurrence map of the entity with this id, else so named, else of the best search hit when it
    is an entity: the explorer's map (`kg.query.ring` with its defaults). None when it names a paper."""
    from kg.query import entity, paper, ring, search

    found = entity(ctx, id=name_or_id) or entity(ctx, name=name_or_id)
    if found is None and paper(ctx, name_or_id) is None:
        hit = next(iter(search(ctx, name_or_id, 1)), None)
        found = hit.entity if hit is not None else None
    drawn = ring(ctx, found.id, first, types) if found is not None else None
    return from_ring(drawn) if drawn is not None else None


def viz(
    ctx: QueryContext, name_or_id: str, out: str | Path, depth: int = 1, limit: int = 50, first: int = 30,
    types: Sequence[str] | None = None,
) -> Path:
    """`kg viz NAME_OR_ID -o out.html|svg|png`: an entity's co-occurrence map (its `first` strongest
    co-occurring entities of `types`), a paper's neighbourhood (`depth`, `limit`); the file written."""
    graph = map_graph(ctx, name_or_id, first, types)
    if graph is not None:
        label = graph.nodes[0].label
        return render(graph, out, title=f"{label} — the entities sharing most papers with it")
    graph = neighborhood_graph(ctx, name_or_id, depth, limit)
    label = next((n.label for n in graph.nodes if n.id == graph.center), name_or_id)
    return render(graph, out, title=f"{label} — depth {depth}")


# --- trends ----------------------------------------------------------------------------------------------
def draw_trend(series: list[tuple[str, list[tuple[int, int, float]]]], out: str | Path, share: bool = False,
               title: str | None = None) -> Path:
    """`kg trend`: one line per entity, papers per year (or share of the year's papers), as .png or .svg.

    `series` holds (label, [(year, papers, share), ...]) with the same years for every entity; a year
    between the first and the last without a point is drawn as a gap (NaN), not a zero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    path = Path(out)
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise ValueError(f"unsupported output {path.name!r}: use .png or .svg")
    palette = [s.color for s in TYPE_STYLES.values()]
    with plt.rc_context({"svg.fonttype": "none", "font.family": "DejaVu Sans"}):
        fig, ax = plt.subplots(figsize=(8.0, 4.5))
        for i, (label, points) in enumerate(series):
            at = {p[0]: 100 * p[2] if share else float(p[1]) for p in points}
            years = list(range(min(at), max(at) + 1)) if at else []
            ys = [at.get(y, math.nan) for y in years]
            ax.plot(years, ys, marker="o", markersize=4, linewidth=2, color=palette[i % len(palette)],
                    label=label)
        ax.set_xlabel("year")
        ax.set_ylabel("share of the year's papers (%)" if share else "papers")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if not share:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(bottom=0)
        ax.grid(True, color="#e5e5e5")
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
        ax.set_title(title or ("Share of papers per year" if share else "Papers per year"))
        fig.tight_layout()
        fig.savefig(path, dpi=120, bbox_inches="tight")
        plt.close(fig)
    return path
