// paperkg explorer: search → neighbourhood graph (vis-network) → side panel. Talks only to /graphql.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);

  // ---- GraphQL --------------------------------------------------------------------------------
  async function gql(query, variables = {}) {
    const res = await fetch("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json().catch(() => ({}));
    if (body.errors && body.errors.length) throw new Error(body.errors.map((e) => e.message).join("; "));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return body.data;
  }

  const SEARCH = `query Suggest($text: String!) { search(text: $text, first: 12) {
    score paper { id title } entity { id name type aliases paperCount } } }`;
  const NEIGHBORHOOD = `query Around($id: ID!, $depth: Int, $limit: Int) {
    neighborhood(id: $id, depth: $depth, limit: $limit) {
      nodes { id label type } edges { source target relation } truncated } }`;
  // Link confidences of up to 12 papers per request (aliases stay under the API's alias limit).
  const confidencesQuery = (n) => `query Confidences(${[...Array(n).keys()].map((i) => `$p${i}: ID!`).join(", ")}) {
    ${[...Array(n).keys()].map((i) => `p${i}: paper(id: $p${i}) { id links { relation confidence entity { id } } }`)
      .join("\n")} }`;
  const PAPER = `query Paper($id: ID!) { paper(id: $id) { id title abstract venue year codeUrls
    links { relation evidence confidence entity { id name type aliases } } } }`;
  const ENTITY = `query Entity($id: ID!, $type: EntityType) { entity(id: $id) {
    id name type kind aliases paperCount
    papers(first: 20) { totalCount edges { node { id title
      links(type: $type) { relation evidence confidence entity { id } } } } } } }`;

  // ---- state and the graph --------------------------------------------------------------------
  const state = { center: null, styles: {}, hiddenTypes: new Set(), minConfidence: 0, linked: null };
  const nodes = new vis.DataSet();
  const edges = new vis.DataSet();
  const confident = (e) => e.confidence == null || e.confidence >= state.minConfidence;
  // With a confidence threshold, nodes left without a visible link disappear too (the centre stays).
  const nodeView = new vis.DataView(nodes, {
    filter: (n) => !state.hiddenTypes.has(n.type) && (!state.linked || state.linked.has(n.id) || n.id === state.center),
  });
  const edgeView = new vis.DataView(edges, { filter: confident });
  function refreshFilters() {
    state.linked = state.minConfidence > 0
      ? new Set(edges.get({ filter: confident }).flatMap((e) => [e.from, e.to])) : null;
    nodeView.refresh();
    edgeView.refresh();
  }
  const network = new vis.Network($("graph"), { nodes: nodeView, edges: edgeView }, {
    nodes: { font: { size: 14, color: "#222" }, borderWidth: 1, margin: 8, widthConstraint: { maximum: 220 } },
    edges: {
      arrows: { to: { enabled: true, scaleFactor: 0.5 } },
      font: { size: 10, color: "#666", align: "middle", strokeWidth: 3 },
      color: { color: "#b8b8b8", highlight: "#333", hover: "#666" },
      smooth: { type: "continuous" },
    },
    physics: { solver: "forceAtlas2Based", forceAtlas2Based: { springLength: 140, avoidOverlap: 0.6 },
               minVelocity: 0.75, stabilization: { iterations: 250 } },
    interaction: { hover: true, tooltipDelay: 150, multiselect: false },
  });
  const api = { nodes, edges, nodeView, edgeView, network, stable: false, center: null };
  network.on("startStabilizing", () => { api.stable = false; });
  network.on("stabilized", () => { api.stable = true; });
  // Lay new data out off-screen, then let physics run a little and stop it, so the picture holds still.
  let settleTimer = 0;
  function settle(fit) {
    network.once("stabilizationIterationsDone", () => {
      if (fit) {
        network.fit({ maxZoomLevel: 1.2 });
        network.once("stabilized", () => network.fit({ maxZoomLevel: 1.2, animation: { duration: 300 } }));
      }
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => network.stopSimulation(), 2000);
    });
    network.stabilize(250);
  }
  network.on("click", (p) => { if (p.nodes.length) openPanel(p.nodes[0]); });
  network.on("doubleClick", (p) => { if (p.nodes.length) show(p.nodes[0], { expand: true }); });

  function typeOf(id) { return id.includes("/") ? id.split("/")[0] : "paper"; }
  function short(text, max = 48) { return text.length > max ? text.slice(0, max - 1) + "…" : text; }

  function toVisNode(n) {
    const style = state.styles[n.type] || { color: "#bab0ac", shape: "dot" };
    return {
      id: n.id, type: n.type, fullLabel: n.label, label: short(n.label), title: `${n.type}: ${n.label}`,
      shape: style.shape, size: 16,
      color: { background: style.color, border: "#444", highlight: { background: style.color, border: "#000" } },
      font: { color: style.shape === "box" ? "#fff" : "#222" }, // box labels sit inside the blue box
      borderWidth: n.id === state.center ? 4 : 1,
    };
  }
  function toVisEdge(e) {
    const conf = typeof e.confidence === "number" ? e.confidence : null;
    const title = conf == null ? e.relation : `${e.relation} (confidence ${conf.toFixed(2)})`;
    return { id: `${e.source}|${e.relation}|${e.target}`, from: e.source, to: e.target,
             label: e.relation, title, relation: e.relation, confidence: conf };
  }

  // ---- loading a neighbourhood ----------------------------------------------------------------
  async function show(id, { expand = false } = {}) {
    const depth = Number($("depth").value), limit = Number($("limit").value);
    setStatus(`Loading ${id}…`);
    try {
      const data = await gql(NEIGHBORHOOD, { id, depth, limit });
      const sub = data.neighborhood;
      if (!sub.nodes.length) { setStatus(`Nothing found for ${id}.`); return; }
      if (!expand) {
        state.center = api.center = id;
        nodes.clear(); edges.clear();
        writeHash();
      }
      nodes.update(sub.nodes.map(toVisNode));
      edges.update(sub.edges.map(toVisEdge));
      const note = $("truncated");
      note.hidden = sub.truncated === 0;
      note.textContent = `${sub.truncated} more not shown — raise the limit or expand a node`;
      setStatus(`${nodes.length} nodes, ${edges.length} links around ${nodes.get(id)?.fullLabel || id}`);
      settle(!expand);
      if (!expand) openPanel(id);
      await fillConfidences(sub.nodes.filter((n) => /^paper$/i.test(n.type)).map((n) => n.id));
    } catch (err) {
      setStatus(`Could not load ${id}: ${err.message}`);
      console.error(err);
    }
  }

  async function fillConfidences(paperIds) {
    for (let i = 0; i < paperIds.length; i += 12) {
      const chunk = paperIds.slice(i, i + 12);
      const vars = Object.fromEntries(chunk.map((pid, j) => [`p${j}`, pid]));
      const data = await gql(confidencesQuery(chunk.length), vars);
      const updates = [];
      for (const paper of Object.values(data)) {
        for (const l of paper ? paper.links : []) {
          const edge = edges.get(`${paper.id}|${l.relation}|${l.entity.id}`);
          if (edge && typeof l.confidence === "number") {
            updates.push({ id: edge.id, confidence: l.confidence,
                           title: `${l.relation} (confidence ${l.confidence.toFixed(2)})` });
          }
        }
      }
      edges.update(updates);
    }
    refreshFilters();
  }

  function writeHash() {
    const params = new URLSearchParams({ node: state.center, depth: $("depth").value });
    const hash = `#${params}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const depth = params.get("depth");
    if (depth && ["1", "2", "3"].includes(depth)) $("depth").value = depth;
    const id = params.get("node");
    if (id && id !== state.center) show(id);
  }

  function setStatus(text) { $("status").textContent = text; }

  // ---- search suggestions ---------------------------------------------------------------------
  const box = $("search"), list = $("suggestions");
  let searchSeq = 0, timer = 0, active = -1;

  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(suggest, 180);
  });
  box.addEventListener("keydown", (ev) => {
    const items = [...list.children];
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (!items.length) return;
      active = (active + (ev.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
      items.forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
    } else if (ev.key === "Enter" && items.length) {
      ev.preventDefault();
      choose(items[Math.max(active, 0)].dataset.id);
    } else if (ev.key === "Escape") {
      closeSuggestions();
    }
  });
  box.addEventListener("blur", () => setTimeout(closeSuggestions, 150));

  async function suggest() {
    const text = box.value.trim();
    const seq = ++searchSeq;
    if (text.length < 2) { closeSuggestions(); return; }
    try {
      const data = await gql(SEARCH, { text });
      if (seq === searchSeq) renderSuggestions(rank(data.search, text).slice(0, 8));
    } catch (err) {
      setStatus(`Search failed: ${err.message}`);
      console.error(err);
    }
  }
  // Exact name or alias matches first, then entities that some paper links to, then by score.
  function rank(hits, text) {
    const want = text.toLowerCase();
    const key = (h) => {
      const e = h.entity;
      const exact = e && [e.name, ...e.aliases].some((n) => n.toLowerCase() === want);
      return [exact ? 0 : 1, e && e.paperCount === 0 ? 1 : 0, -h.score];
    };
    const cmp = (a, b) => { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i]; return 0; };
    return hits.map((h) => [key(h), h]).sort((a, b) => cmp(a[0], b[0])).map(([, h]) => h);
  }
  function renderSuggestions(hits) {
    list.replaceChildren();
    active = -1;
    for (const hit of hits) {
      const item = hit.entity
        ? { id: hit.entity.id, label: hit.entity.name, type: hit.entity.type }
        : hit.paper && { id: hit.paper.id, label: hit.paper.title || hit.paper.id, type: "Paper" };
      if (!item) continue;
      const li = document.createElement("li");
      li.setAttribute("role", "option");
      li.dataset.id = item.id;
      li.append(badge(item.type), document.createTextNode(item.label));
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); choose(item.id); });
      list.append(li);
    }
    if (!list.children.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = "No matches";
      list.append(li);
    }
    list.hidden = false;
    box.setAttribute("aria-expanded", "true");
  }
  function closeSuggestions() {
    list.hidden = true;
    box.setAttribute("aria-expanded", "false");
  }
  function choose(id) {
    if (!id) return;
    closeSuggestions();
    show(id);
  }

  // ---- side panel -----------------------------------------------------------------------------
  const panel = $("panel"), body = $("panel-body");
  $("panel-close").addEventListener("click", () => { panel.hidden = true; });

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "onclick") node.addEventListener("click", v); else node.setAttribute(k, v);
    }
    node.append(...children.filter((c) => c != null));
    return node;
  }
  function badge(type) {
    const style = state.styles[titleCase(type)] || {};
    return el("span", { class: "badge", style: `background:${style.color || "#bab0ac"}` }, titleCase(type));
  }
  function titleCase(t) { return t ? t[0].toUpperCase() + t.slice(1).toLowerCase() : ""; }
  function nodeButton(id, label) {
    return el("button", { type: "button", class: "link", onclick: () => show(id) }, label);
  }
  function confidence(c) { return typeof c === "number" ? c.toFixed(2) : "–"; }
  function actions(id) {
    return el("p", { class: "actions" },
      el("button", { type: "button", onclick: () => show(id) }, "Centre here"),
      el("button", { type: "button", onclick: () => show(id, { expand: true }) }, "Expand neighbourhood"));
  }

  async function openPanel(id) {
    panel.hidden = false;
    body.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    try {
      const known = nodes.get(id)?.type;
      if (known ? /^paper$/i.test(known) : typeOf(id) === "paper") {
        const { paper } = await gql(PAPER, { id });
        if (paper) { renderPaper(paper); return; }
      }
      const { entity } = await gql(ENTITY, { id, type: typeOf(id).toUpperCase() });
      if (entity) renderEntity(entity); else body.replaceChildren(el("p", {}, `No details for ${id}.`));
    } catch (err) {
      body.replaceChildren(el("p", { class: "error" }, `Could not load ${id}: ${err.message}`));
      console.error(err);
    }
  }

  function renderPaper(p) {
    const meta = [p.venue, p.year, p.id].filter(Boolean).join(" · ");
    const code = p.codeUrls.filter((u) => /^https?:\/\//.test(u)).map((u) =>
      el("li", {}, el("a", { href: u, target: "_blank", rel: "noopener noreferrer" }, u)));
    const rows = p.links.map((l) => el("li", {},
      badge(l.entity.type), nodeButton(l.entity.id, l.entity.name),
      el("span", { class: "muted" }, ` ${l.relation} · ${confidence(l.confidence)}`)));
    body.replaceChildren(...[
      badge("Paper"), el("h2", {}, p.title || p.id), el("p", { class: "muted" }, meta), actions(p.id),
      el("h3", {}, "Abstract"), el("p", { class: "abstract" }, ...highlight(p.abstract || "", p.links)),
      code.length ? el("h3", {}, "Code") : null, code.length ? el("ul", {}, ...code) : null,
      el("h3", {}, `Links (${p.links.length})`), el("ul", { class: "links" }, ...rows)].filter(Boolean));
  }

  // The abstract as text nodes, with every mention of a linked entity (name or alias) in a <mark>.
  function highlight(text, links) {
    const byTerm = new Map();
    for (const l of links) {
      for (const term of [l.entity.name, ...(l.entity.aliases || [])]) {
        if (term && term.length > 1 && !byTerm.has(term.toLowerCase())) byTerm.set(term.toLowerCase(), l);
      }
    }
    if (!byTerm.size) return [text];
    const terms = [...byTerm.keys()].sort((a, b) => b.length - a.length)
      .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const re = new RegExp(`(?<![A-Za-z])(${terms.join("|")})(?![A-Za-z])`, "gi");
    const out = [];
    let last = 0;
    for (const m of text.matchAll(re)) {
      const link = byTerm.get(m[0].toLowerCase());
      out.push(text.slice(last, m.index));
      const mark = el("mark", { title: `${link.entity.type} · ${link.relation}`, "data-id": link.entity.id,
                                onclick: () => show(link.entity.id) }, m[0]);
      mark.style.background = `${(state.styles[titleCase(link.entity.type)] || {}).color || "#ddd"}55`;
      out.push(mark);
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  function renderEntity(e) {
    const papers = e.papers.edges.map(({ node }) => {
      const mine = node.links.filter((l) => l.entity.id === e.id);
      return el("li", {}, nodeButton(node.id, node.title || node.id),
        ...mine.map((l) => el("div", { class: "evidence" },
          el("span", { class: "muted" }, `${l.relation} · confidence ${confidence(l.confidence)}`),
          l.evidence ? el("blockquote", {}, l.evidence) : null)));
    });
    const more = e.papers.totalCount > papers.length ? `, first ${papers.length} shown` : "";
    body.replaceChildren(
      badge(e.type), el("h2", {}, e.name), actions(e.id),
      el("dl", {},
        el("dt", {}, "Kind"), el("dd", {}, e.kind || "–"),
        el("dt", {}, "Aliases"), el("dd", {}, e.aliases.length ? e.aliases.join(", ") : "–"),
        el("dt", {}, "Papers"), el("dd", {}, String(e.paperCount))),
      el("h3", {}, `Papers (${e.papers.totalCount}${more})`), el("ul", { class: "papers" }, ...papers));
  }

  // ---- filters and legend ---------------------------------------------------------------------
  $("confidence").addEventListener("input", (ev) => {
    state.minConfidence = Number(ev.target.value);
    $("confidence-value").textContent = state.minConfidence.toFixed(2);
    refreshFilters();
  });
  $("depth").addEventListener("change", () => { if (state.center) show(state.center); });
  $("limit").addEventListener("change", () => { if (state.center) show(state.center); });
  window.addEventListener("hashchange", readHash);

  function renderLegend() {
    const legend = $("legend");
    for (const [type, style] of Object.entries(state.styles)) {
      const box = el("input", { type: "checkbox", checked: "", "data-type": type });
      box.addEventListener("change", () => {
        if (box.checked) state.hiddenTypes.delete(type); else state.hiddenTypes.add(type);
        refreshFilters();
      });
      legend.append(el("label", {}, box, el("span", { class: `swatch shape-${style.shape}`,
                                                      style: `background:${style.color}` }), type));
    }
  }

  async function start() {
    state.styles = await (await fetch("/explore/types.json")).json();
    renderLegend();
    api.ready = true;
    if (location.hash) readHash(); else setStatus("Search for a paper, dataset, method, task…");
  }

  Object.assign(api, { show, openPanel, visibleNodeIds: () => nodeView.getIds() });
  window.kgExplorer = api;
  start();
})();
