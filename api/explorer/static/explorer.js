// paperkg explorer: search → an entity's co-occurrence map (vis-network) → side panel. Talks to /graphql
// (and /explore/subgraph for the Turtle download). Readable at any corpus size: an entity is drawn with the
// entities sharing the most papers with it (strongest first, `Show` of them), its papers are listed and paged
// in the panel and drawn only when few, labels are placed by us so that no two ever overlap (a label that
// does not fit is left out until you zoom in), and "expand" adds the next ring around a node.
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

  const SEARCH = `query Suggest($text: String!) { search(text: $text, first: 40) {
    score paper { id title year } entity { id name type aliases paperCount } } }`;
  const RING = `query Ring($id: ID!, $first: Int, $types: [EntityType!], $conf: Float) {
    cooccurrence(id: $id, first: $first, types: $types, minConfidence: $conf) {
      center more paperCount papersDrawn counted
      nodes { id label type papers shared } edges { source target relation weight } } }`;
  // Link confidences of up to 12 papers per request (aliases stay under the API's alias limit).
  const confidencesQuery = (n) => `query Confidences(${[...Array(n).keys()].map((i) => `$p${i}: ID!`).join(", ")}) {
    ${[...Array(n).keys()].map((i) => `p${i}: paper(id: $p${i}) { id links { relation confidence entity { id } } }`)
      .join("\n")} }`;
  const PAPER = `query Paper($id: ID!) { paper(id: $id) { id title abstract venue year url doi authors codeUrls
    links { relation evidence confidence entity { id name type aliases } } } }`;
  const ENTITY = `query Entity($id: ID!) { entity(id: $id) {
    id name type kind aliases paperCount paperCountWithNarrower resultCount
    broader { id name paperCount } narrower { id name paperCount } } }`;
  // Every paper list: an entity's papers (`entity`) or a contract question's (`dataset` … `domain`), in the
  // order picked; /export/papers takes the same arguments, so its CSV/BibTeX is the same list.
  const LIST_FILTERS = ["entity", "dataset", "task", "method", "model", "domain"];
  const PAPER_LIST = `query PaperList($entity: ID, $dataset: String, $task: String, $method: String,
    $model: String, $domain: String, $order: PaperOrder!, $after: String, $type: EntityType) {
    papers(entity: $entity, dataset: $dataset, task: $task, method: $method, model: $model, domain: $domain,
           orderBy: $order, first: 20, after: $after) { totalCount pageInfo { hasNextPage endCursor }
      edges { node { id title year venue url links(type: $type) { relation evidence confidence entity { id } } } } } }`;
  const TREND = `query Trend($id: ID!) { entity(id: $id) { trend { year papers share } } }`;
  const TRENDING = `query Trending($type: EntityType, $since: Int) {
    trending(type: $type, since: $since, first: 10) { since rise recentPapers earlierPapers
      entity { id name type paperCount trend { year papers share } } } }`;
  const USING = { Dataset: "dataset", Method: "method", Task: "task", Model: "model", Domain: "domain" };
  const DEFENSES = `query Defenses($target: String, $against: String) {
    defenses(target: $target, against: $against) { id name type kind paperCount } }`;
  const ATTACKS = `query Attacks($target: String, $against: String) {
    attacks(target: $target, against: $against) { id name type kind paperCount } }`;
  // The role questions a panel asks: [field, argument, title]; "target"/"against" are defenses'.
  const ROLES = {
    target: ["defenses", "target", "Defenses for"], against: ["defenses", "against", "Defenses against"],
    "attacks-target": ["attacks", "target", "Attacks on"],
    "attacks-against": ["attacks", "against", "Attacks realising"],
  };

  // ---- state, kept whole in the URL -------------------------------------------------------------
  const TYPES = ["Task", "Dataset", "Method", "Metric", "Model", "Domain", "Threat"];
  const state = {
    center: null, limit: 30, minConfidence: 0, hidden: new Set(), expanded: [], panel: null, order: "ID",
    styles: {}, linked: null, more: 0, rings: new Map(),
  };
  const nodes = new vis.DataSet();
  const edges = new vis.DataSet();
  const confident = (e) => e.confidence == null || e.confidence >= state.minConfidence;
  // Paper nodes left without a link above the confidence threshold disappear too (the centre stays).
  const nodeView = new vis.DataView(nodes, {
    filter: (n) => !state.hidden.has(n.type) && (n.type !== "Paper" || !state.linked || state.linked.has(n.id)
      || n.id === state.center),
  });
  const edgeView = new vis.DataView(edges, { filter: confident });
  function refreshFilters() {
    const paperEdges = edges.get({ filter: (e) => e.relation !== "cooccurs" });
    state.linked = state.minConfidence > 0
      ? new Set(paperEdges.filter(confident).flatMap((e) => [e.from, e.to])) : null;
    nodeView.refresh();
    edgeView.refresh();
    updateStatus();
  }
  const network = new vis.Network($("graph"), { nodes: nodeView, edges: edgeView }, {
    nodes: { borderWidth: 1, font: { size: 0 }, label: undefined },
    edges: { color: { color: "#c4c4c4", highlight: "#333", hover: "#777" }, smooth: false,
             font: { size: 0 } },
    physics: { solver: "forceAtlas2Based",
               forceAtlas2Based: { gravitationalConstant: -60, springLength: 110, avoidOverlap: 0.8 },
               minVelocity: 0.75, stabilization: { iterations: 300 } },
    interaction: { hover: true, tooltipDelay: 150, multiselect: false },
  });
  const api = { nodes, edges, nodeView, edgeView, network, state, stable: false, center: null, labels: [],
                ready: false, panelHooks: [] };
  network.on("startStabilizing", () => { api.stable = false; });
  network.on("stabilized", () => { api.stable = true; });
  let settleTimer = 0;
  function settle(fit) {
    network.once("stabilizationIterationsDone", () => {
      if (fit) network.fit({ maxZoomLevel: 1.3 });
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => { network.stopSimulation(); api.stable = true; }, 1500);
    });
    network.stabilize(300);
  }
  network.on("click", (p) => { if (p.nodes.length) openPanel(p.nodes[0]); });
  network.on("doubleClick", (p) => { if (p.nodes.length) expand(p.nodes[0]); });

  function typeOf(id) { return id.includes("/") ? titleCase(id.split("/")[0]) : "Paper"; }
  function short(text, max = 42) { return text.length > max ? text.slice(0, max - 1) + "…" : text; }
  function plural(n, word) { return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`; }
  // Shapes whose label vis-network would draw inside them are swapped for ones we label outside.
  const OUTSIDE = { box: "square", ellipse: "dot", circle: "dot", text: "dot", database: "square" };

  function nodeSize(n) {
    if (n.id === state.center) return 18;
    const w = n.shared || 1;
    return Math.round(6 + 10 * Math.min(1, Math.log1p(w) / Math.log1p(state.maxShared || 1)));
  }
  function toVisNode(n, ring, near) {
    const style = state.styles[n.type] || { color: "#bab0ac", shape: "dot" };
    const old = nodes.get(n.id);
    const shared = old && old.shared != null && old.ring !== ring ? old.shared : n.shared;
    const what = n.type === "Paper" ? plural(n.papers, "link") : plural(n.papers, "paper");
    const title = `${n.type}: ${n.label}\n${what}` + (n.shared ? ` · ${plural(n.shared, "paper")} shared` : "");
    const v = {
      id: n.id, type: n.type, fullLabel: n.label, papers: n.papers, shared, ring: old ? old.ring : ring, title,
      shape: OUTSIDE[style.shape] || style.shape, size: nodeSize({ id: n.id, shared }),
      color: { background: style.color, border: "#444", highlight: { background: style.color, border: "#000" } },
      borderWidth: n.id === state.center ? 3 : 1,
    };
    if (!old && near) Object.assign(v, near);
    return v;
  }
  function toVisEdge(e) {
    const co = e.relation === "cooccurs";
    const width = co ? 0.5 + 3.5 * Math.min(1, Math.log1p(e.weight) / Math.log1p(state.maxShared || 1)) : 1;
    return { id: `${e.source}|${e.relation}|${e.target}`, from: e.source, to: e.target, relation: e.relation,
             weight: e.weight, width, dashes: !co, confidence: null,
             length: co ? 60 + 160 / Math.sqrt(e.weight) : 80,
             title: co ? `${plural(e.weight, "paper")} shared` : e.relation,
             arrows: co ? undefined : { to: { enabled: true, scaleFactor: 0.4 } } };
  }

  // ---- labels: placed by priority, never overlapping each other or a node ------------------------
  function priority(id) {
    const n = nodes.get(id);
    if (id === state.center) return [0, 0];
    if (state.expanded.includes(id)) return [1, state.expanded.indexOf(id)];
    return [2, -(n.shared || 0), -(n.papers || 0)];
  }
  const cmp = (a, b) => { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i]; return 0; };
  const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

  network.on("afterDrawing", (ctx) => {
    const ids = nodeView.getIds();
    const pos = network.getPositions(ids);
    const scale = network.getScale();
    const fs = 13 / scale, pad = 2 / scale;
    ctx.save();
    ctx.font = `${fs}px system-ui, "DejaVu Sans", sans-serif`;
    ctx.textBaseline = "top";
    const discs = ids.map((id) => {
      const body = network.body.nodes[id], p = pos[id], r = (body && body.options.size) || 10;
      return { id, x: p.x - r, y: p.y - r, w: 2 * r, h: 2 * r };
    });
    // the legend and the status lines sit over the canvas: labels keep out from under them too
    const stage = $("graph").getBoundingClientRect();
    const covers = ["legend", "status", "truncated"].map((x) => $(x)).filter((x) => x && !x.hidden)
      .map((x) => x.getBoundingClientRect()).filter((r) => r.width && r.height).map((r) => {
        const a = network.DOMtoCanvas({ x: r.left - stage.left, y: r.top - stage.top });
        const b = network.DOMtoCanvas({ x: r.right - stage.left, y: r.bottom - stage.top });
        return { x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y };
      });
    const view0 = network.DOMtoCanvas({ x: 0, y: 0 });
    const view1 = network.DOMtoCanvas({ x: stage.width, y: stage.height });
    const inside = (r) => r.x >= view0.x && r.y >= view0.y && r.x + r.w <= view1.x && r.y + r.h <= view1.y;
    const placed = [...covers], drawn = [];
    for (const id of [...ids].sort((a, b) => cmp(priority(a), priority(b)))) {
      const n = nodes.get(id), p = pos[id];
      const r = (network.body.nodes[id] && network.body.nodes[id].options.size) || 10;
      const text = short(n.fullLabel || id);
      const w = ctx.measureText(text).width + 2 * pad, h = fs * 1.25;
      const spots = [
        { x: p.x - w / 2, y: p.y + r + pad }, { x: p.x - w / 2, y: p.y - r - pad - h },
        { x: p.x + r + 2 * pad, y: p.y - h / 2 }, { x: p.x - r - 2 * pad - w, y: p.y - h / 2 },
      ].map((s) => ({ ...s, w, h }));
      const spot = spots.find((s) => inside(s) && !placed.some((q) => overlaps(s, q))
        && !discs.some((d) => d.id !== id && overlaps(s, d)));
      if (!spot) continue;
      placed.push(spot);
      ctx.lineWidth = 3 / scale;
      ctx.strokeStyle = "rgba(255,255,255,0.95)";
      ctx.fillStyle = id === state.center ? "#000" : "#222";
      ctx.strokeText(text, spot.x + pad, spot.y + pad / 2);
      ctx.fillText(text, spot.x + pad, spot.y + pad / 2);
      const a = network.canvasToDOM({ x: spot.x, y: spot.y });
      const b = network.canvasToDOM({ x: spot.x + spot.w, y: spot.y + spot.h });
      drawn.push({ id, text, x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y });
    }
    ctx.restore();
    api.labels = drawn;
  });

  // ---- loading the map -------------------------------------------------------------------------
  function wantedTypes() {
    const t = TYPES.filter((x) => !state.hidden.has(x));
    return t.length === TYPES.length ? null : t.map((x) => x.toUpperCase());
  }
  async function fetchRing(id, first) {
    const data = await gql(RING, { id, first, types: wantedTypes(), conf: state.minConfidence });
    return data.cooccurrence;
  }
  // Add a ring's nodes and edges; with `cap`, only its `cap` strongest nodes not drawn yet.
  function addRing(ring, near, cap = Infinity) {
    const fresh = ring.nodes.filter((n) => !nodes.get(n.id)).slice(0, cap);
    const keep = new Set([...ring.nodes.filter((n) => nodes.get(n.id)), ...fresh].map((n) => n.id));
    ring = { ...ring, nodes: ring.nodes.filter((n) => keep.has(n.id)),
             edges: ring.edges.filter((e) => keep.has(e.source) && keep.has(e.target)) };
    state.rings.set(ring.center, ring);
    state.maxShared = Math.max(state.maxShared || 1, ...ring.nodes.map((n) => n.shared || 0));
    const around = near ? network.getPositions([ring.center])[ring.center] : null;
    nodes.update(ring.nodes.map((n, i) => {
      const k = fresh.indexOf(n);
      const at = around && k >= 0
        ? { x: around.x + 140 * Math.cos((2 * Math.PI * k) / fresh.length),
            y: around.y + 140 * Math.sin((2 * Math.PI * k) / fresh.length) } : null;
      return toVisNode(n, ring.center, i === 0 ? null : at);
    }));
    edges.update(ring.edges.map(toVisEdge));
    return fresh.length;
  }

  // Draw `id`'s map from scratch (and the expansions in the state), then open its panel.
  async function show(id, { keepExpanded = false, panel = true } = {}) {
    setStatus(`Loading ${id}…`);
    try {
      const ring = await fetchRing(id, state.limit);
      state.center = api.center = ring.center;
      if (!keepExpanded) state.expanded = [];
      nodes.clear(); edges.clear(); state.rings.clear(); state.maxShared = 1;
      addRing(ring, false);
      state.more = ring.more;
      for (const x of [...state.expanded]) {
        try { addRing(await fetchRing(x, Math.min(100, expandSize() + nodes.length)), false, expandSize()); } catch (err) {
          state.expanded = state.expanded.filter((e) => e !== x);
        }
      }
      writeHash();
      refreshFilters();
      settle(true);
      if (panel) openPanel(state.panel || ring.center);
      await fillConfidences();
    } catch (err) {
      setStatus(`Could not load ${id}: ${err.message}`);
      console.error(err);
    }
  }
  function expandSize() { return Math.max(5, Math.round(state.limit / 2)); }

  // The next ring around `id`: the entities sharing most papers with it that are not drawn yet.
  async function expand(id) {
    if (!state.center) { show(id); return; }
    setStatus(`Expanding ${nodes.get(id)?.fullLabel || id}…`);
    try {
      const ring = await fetchRing(id, Math.min(100, expandSize() + nodes.length));
      if (!state.expanded.includes(id) && id !== state.center) state.expanded.push(id);
      const added = addRing(ring, true, expandSize());
      writeHash();
      refreshFilters();
      settle(false);
      updateStatus(added ? `added ${plural(added, "node")} around ${nodes.get(id)?.fullLabel || id}`
                         : `nothing new around ${nodes.get(id)?.fullLabel || id}`);
      await fillConfidences();
    } catch (err) {
      setStatus(`Could not expand ${id}: ${err.message}`);
      console.error(err);
    }
  }

  async function fillConfidences() {
    const paperIds = nodes.getIds({ filter: (n) => n.type === "Paper" });
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

  function updateStatus(extra) {
    if (!state.center) return;
    const center = nodes.get(state.center);
    const shown = nodeView.length, links = edgeView.length;
    const name = center ? center.fullLabel : state.center;
    const papers = state.rings.get(state.center)?.paperCount;
    let text = `${plural(shown, "node")}, ${plural(links, "link")} around ${name}`;
    if (papers != null && center && center.type !== "Paper") text += ` (${plural(papers, "paper")})`;
    const counted = state.rings.get(state.center)?.counted;
    if (counted && papers && counted < papers) text += ` · shared counts estimated from ${counted} of its papers`;
    if (extra) text += ` — ${extra}`;
    setStatus(text);
    const note = $("truncated");
    note.hidden = !state.more;
    note.textContent = `${state.more.toLocaleString("en")} more co-occurring not shown — raise “Show” or expand a node`;
  }
  function setStatus(text) { $("status").textContent = text; }

  // ---- the URL: node, show, confidence, hidden types, expansions, panel ---------------------------
  // A new centre pushes a history entry (Back returns to the previous node); other changes replace the
  // current one. While the page follows the URL (load, Back, a pasted URL) it only replaces.
  let restoring = false, lastHash = null;
  function writeHash() {
    const p = new URLSearchParams();
    if (state.center) p.set("node", state.center);
    p.set("show", String(state.limit));
    if (state.minConfidence > 0) p.set("conf", state.minConfidence.toFixed(2));
    if (state.hidden.size) p.set("hide", [...state.hidden].sort().join(","));
    for (const x of state.expanded) p.append("expand", x);
    if (state.panel && state.panel !== state.center) p.set("panel", state.panel);
    if (state.order !== "ID") p.set("order", state.order);
    const hash = `#${p}`;
    if (location.hash === hash) { lastHash = hash; return; }
    const was = new URLSearchParams(location.hash.slice(1)).get("node");
    if (!restoring && was !== state.center) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
    lastHash = location.hash;
  }
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const limit = Number(p.get("show"));
    if ([15, 30, 60, 100].includes(limit)) { state.limit = limit; $("limit").value = String(limit); }
    const conf = Number(p.get("conf") || 0);
    state.minConfidence = conf >= 0 && conf <= 1 ? conf : 0;
    $("confidence").value = String(state.minConfidence);
    $("confidence-value").textContent = state.minConfidence.toFixed(2);
    state.hidden = new Set((p.get("hide") || "").split(",").filter((t) => TYPES.includes(t)));
    for (const box of document.querySelectorAll("#legend input[data-type]")) {
      box.checked = !state.hidden.has(box.dataset.type);
    }
    state.expanded = p.getAll("expand");
    state.panel = p.get("panel");
    state.order = ORDERS.some(([o]) => o === p.get("order")) ? p.get("order") : "ID";
    const id = p.get("node");
    lastHash = location.hash;
    if (id) {
      restoring = true;
      return show(id, { keepExpanded: true }).finally(() => { restoring = false; });
    }
    clearView();
    return Promise.resolve();
  }
  // The URL changed under the page (Back/Forward, a pasted or edited URL): follow it, options included.
  function followUrl() {
    if (location.hash === lastHash) return;
    readHash();
  }
  function clearView() {
    state.center = api.center = null;
    nodes.clear(); edges.clear(); state.rings.clear();
    panel.hidden = true;
    $("truncated").hidden = true;
    setStatus("Search for a paper, dataset, method, task…");
  }

  // ---- search: suggestions ranked by papers, with counts; questions as one click -------------------
  const box = $("search"), list = $("suggestions");
  let searchSeq = 0, timer = 0, active = -1, pending = null;

  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(suggest, 150);
  });
  box.addEventListener("keydown", async (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      const items = [...list.querySelectorAll("li[data-id], li[data-ask]")];
      if (!items.length) return;
      active = (active + (ev.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
      items.forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      clearTimeout(timer);
      // Enter before the suggestions arrived: wait for them (or fetch them now), then take the first.
      if (list.hidden || box.dataset.for !== box.value.trim()) await (pending || suggest());
      const items = [...list.querySelectorAll("li[data-id], li[data-ask]")];
      if (items.length) items[Math.max(active, 0)].dispatchEvent(new Event("pick"));
    } else if (ev.key === "Escape") {
      closeSuggestions();
    }
  });
  box.addEventListener("blur", () => setTimeout(closeSuggestions, 150));

  function suggest() {
    const text = box.value.trim();
    const seq = ++searchSeq;
    if (text.length < 2) { closeSuggestions(); return Promise.resolve(); }
    pending = (async () => {
      try {
        const q = question(text);
        const data = await gql(SEARCH, { text: q ? q.name : text });
        if (seq === searchSeq) {
          box.dataset.for = text;
          renderSuggestions(rank(data.search, q ? q.name : text).slice(0, 8), q);
        }
      } catch (err) {
        setStatus(`Search failed: ${err.message}`);
        console.error(err);
      } finally {
        if (seq === searchSeq) pending = null;
      }
    })();
    return pending;
  }
  // "defenses for X", "defenses against X", "papers using X" typed in the box become one-click questions.
  function question(text) {
    let m = text.match(/^defen[cs]es?\s+(for|against|of)\s+(.+)$/i);
    if (m) return { kind: m[1].toLowerCase() === "against" ? "against" : "target", name: m[2].trim() };
    m = text.match(/^papers?\s+(using|on|with|about)\s+(.+)$/i);
    if (m) return { kind: "using", name: m[2].trim() };
    return null;
  }
  // Entities some paper links to, exact name/alias first, then by paper count; zero-paper vocabulary
  // entries are not offered (they appear as broader/narrower context in a panel); then papers.
  function rank(hits, text) {
    const want = text.toLowerCase();
    const ents = hits.filter((h) => h.entity && h.entity.paperCount > 0).map((h) => {
      const e = h.entity;
      const exact = [e.name, ...e.aliases].some((n) => n.toLowerCase() === want);
      return [[exact ? 0 : 1, -e.paperCount, -h.score], h];
    }).sort((a, b) => cmp(a[0], b[0])).map(([, h]) => h);
    const papers = hits.filter((h) => h.paper);
    return [...ents.slice(0, 6), ...papers.slice(0, 8 - Math.min(6, ents.length))];
  }
  function renderSuggestions(hits, q) {
    list.replaceChildren();
    active = -1;
    if (q) {
      const label = q.kind === "using" ? `Papers using ${q.name}`
        : q.kind === "against" ? `Defenses against ${q.name}` : `Defenses for ${q.name}`;
      const li = el("li", { role: "option", "data-ask": q.kind }, el("span", { class: "badge ask" }, "Ask"), label);
      li.addEventListener("pick", () => { closeSuggestions(); ask(q.kind, q.name); });
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); li.dispatchEvent(new Event("pick")); });
      list.append(li);
    }
    for (const hit of hits) {
      const item = hit.entity
        ? { id: hit.entity.id, label: hit.entity.name, type: hit.entity.type, count: hit.entity.paperCount }
        : { id: hit.paper.id, label: hit.paper.title || hit.paper.id, type: "Paper", count: null };
      const li = el("li", { role: "option", "data-id": item.id }, badge(item.type),
        el("span", { class: "label" }, item.label),
        item.count != null ? el("span", { class: "count", title: "papers" }, plural(item.count, "paper")) : null);
      li.addEventListener("pick", () => choose(item.id));
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); choose(item.id); });
      list.append(li);
    }
    if (!list.children.length) list.append(el("li", { class: "empty" }, "No matches"));
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
    state.panel = null;
    show(id);
  }

  // ---- side panel -----------------------------------------------------------------------------
  const panel = $("panel"), body = $("panel-body");
  $("panel-close").addEventListener("click", () => { panel.hidden = true; state.panel = null; writeHash(); });

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "onclick") node.addEventListener("click", v); else if (v != null) node.setAttribute(k, v);
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
    return el("button", { type: "button", class: "link", "data-id": id, onclick: () => openPanel(id) }, label);
  }
  function external(url, text) {
    return /^https?:\/\//i.test(url || "")
      ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, text || url) : null;
  }
  function confidence(c) { return typeof c === "number" ? c.toFixed(2) : "–"; }
  function actions(id) {
    return el("p", { class: "actions" },
      id !== state.center ? el("button", { type: "button", onclick: () => { state.panel = null; show(id); } },
        "Centre here") : null,
      el("button", { type: "button", class: "expand", onclick: () => expand(id) }, "Expand"));
  }

  let panelSeq = 0;
  async function openPanel(id) {
    const seq = ++panelSeq;
    panel.hidden = false;
    state.panel = id;
    writeHash();
    body.replaceChildren(el("p", { class: "muted" }, "Loading…"));
    try {
      const known = nodes.get(id)?.type;
      if ((known || typeOf(id)) === "Paper") {
        const { paper } = await gql(PAPER, { id });
        if (seq !== panelSeq) return;
        if (paper) { renderPaper(paper); return; }
      }
      const { entity } = await gql(ENTITY, { id });
      if (seq !== panelSeq) return;
      if (entity) renderEntity(entity); else body.replaceChildren(el("p", {}, `No details for ${id}.`));
    } catch (err) {
      body.replaceChildren(el("p", { class: "error" }, `Could not load ${id}: ${err.message}`));
      console.error(err);
    }
  }

  function renderPaper(p) {
    const meta = [p.venue, p.year].filter(Boolean).join(" · ");
    const code = p.codeUrls.map((u) => external(u)).filter(Boolean).map((a) => el("li", {}, a));
    const rows = p.links.map((l) => el("li", {},
      badge(l.entity.type), nodeButton(l.entity.id, l.entity.name),
      el("span", { class: "muted" }, ` ${l.relation} · ${confidence(l.confidence)}`)));
    const open = [external(p.url, "Open paper ↗"),
                  p.doi ? external(`https://doi.org/${encodeURIComponent(p.doi).replace(/%2F/g, "/")}`, `DOI ${p.doi}`) : null]
      .filter(Boolean);
    body.replaceChildren(...[
      badge("Paper"), el("h2", {}, p.title || p.id),
      p.authors.length ? el("p", { class: "authors" }, p.authors.join(", ")) : null,
      el("p", { class: "muted" }, [meta, p.id].filter(Boolean).join(" · ")),
      open.length ? el("p", { class: "open" }, ...open.flatMap((a, i) => (i ? [" · ", a] : [a]))) : null,
      actions(p.id),
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
                                onclick: () => openPanel(link.entity.id) }, m[0]);
      mark.style.background = `${(state.styles[titleCase(link.entity.type)] || {}).color || "#ddd"}55`;
      out.push(mark);
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  function entityList(items) {
    return el("ul", { class: "entities" }, ...items.map((x) => el("li", {}, nodeButton(x.id, x.name),
      el("span", { class: "count" }, plural(x.paperCount, "paper")))));
  }

  // "N papers link it · M with narrower · R results": GraphQL's paperCount, paperCountWithNarrower (shown
  // when it differs) and resultCount (datasets only), each saying what it counts.
  function counts(e) {
    const count = (key, title, text) => el("span", { "data-count": key, title }, text);
    const parts = [count("papers", "papers linking it directly",
      `${plural(e.paperCount, "paper")} link${e.paperCount === 1 ? "s" : ""} it`)];
    if (e.paperCountWithNarrower !== e.paperCount) {
      parts.push(" · ", count("narrower", "papers linking it, a narrower entity or a variant, each once",
        `${e.paperCountWithNarrower.toLocaleString("en")} with narrower`));
    }
    if (e.resultCount != null) {
      parts.push(" · ", count("results", "results reported on it, its variants and narrower datasets",
        plural(e.resultCount, "result")));
    }
    return el("dd", { class: "counts" }, ...parts);
  }

  function renderEntity(found) {
    const e = { ...found, type: titleCase(found.type) }; // the GraphQL enum is upper case ("DATASET")
    const ring = state.rings.get(e.id);
    const asks = [];
    if (USING[e.type]) {
      asks.push(el("button", { type: "button", class: "ask", "data-ask": "using",
                               onclick: () => ask("using", e.name, e.type) }, `Papers using ${e.name}`));
    }
    if (e.type === "Domain") {
      asks.push(el("button", { type: "button", class: "ask", "data-ask": "target",
                               onclick: () => ask("target", e.name) }, `Defenses for ${e.name}`));
      asks.push(el("button", { type: "button", class: "ask", "data-ask": "attacks-target",
                               onclick: () => ask("attacks-target", e.name) }, `Attacks on ${e.name}`));
    }
    if (e.type === "Threat") {
      asks.push(el("button", { type: "button", class: "ask", "data-ask": "against",
                               onclick: () => ask("against", e.name) }, `Defenses against ${e.name}`));
      asks.push(el("button", { type: "button", class: "ask", "data-ask": "attacks-against",
                               onclick: () => ask("attacks-against", e.name) }, `Attacks realising ${e.name}`));
    }
    const context = [];
    if (e.broader.length) context.push(el("dt", {}, "Broader"), el("dd", {}, entityList(e.broader)));
    if (e.narrower.length) context.push(el("dt", {}, "Narrower"), el("dd", {}, entityList(e.narrower)));
    const near = ring ? ring.nodes.slice(1).filter((n) => n.type !== "Paper").slice(0, 10) : [];
    const papers = el("div", { class: "paper-list" });
    const trend = el("div", { class: "trend" });
    body.replaceChildren(...[
      badge(e.type), el("h2", {}, e.name), actions(e.id),
      el("dl", {},
        el("dt", {}, "Kind"), el("dd", {}, e.kind || "–"),
        el("dt", {}, "Aliases"), el("dd", {}, e.aliases.length ? e.aliases.join(", ") : "–"),
        el("dt", {}, "Counts"), counts(e), ...context),
      asks.length ? el("p", { class: "asks" }, ...asks) : null,
      trend,
      near.length ? el("h3", {}, "Shares most papers with") : null,
      near.length ? el("ul", { class: "near" }, ...near.map((n) => el("li", {}, badge(n.type),
        nodeButton(n.id, n.label), el("span", { class: "count" },
          (ring.counted < ring.paperCount ? "≈ " : "") + plural(n.shared, "paper"))))) : null,
      el("h3", { class: "papers-head" }, `Papers (${e.paperCount.toLocaleString("en")})`), papers,
    ].filter(Boolean));
    paperList(papers, { entity: e.id }, e.name, { entityId: e.id, type: e.type.toUpperCase() });
    drawTrend(trend, e);
    for (const hook of api.panelHooks) {
      try { hook(e, body); } catch (err) { console.error(err); }
    }
  }

  // A list of papers 20 at a time, with a "More papers" button while the connection has more.
  async function pagedPapers(ul, page, entityId, after = null) {
    const conn = await page(after);
    for (const { node } of conn.edges) {
      const mine = entityId ? (node.links || []).filter((l) => l.entity.id === entityId) : [];
      ul.append(el("li", { "data-paper": node.id }, nodeButton(node.id, node.title || node.id),
        el("span", { class: "muted" }, ` ${[node.venue, node.year].filter(Boolean).join(" ")} `),
        external(node.url, "↗"),
        ...mine.slice(0, 1).map((l) => el("div", { class: "evidence" },
          el("span", { class: "muted" }, `${l.relation} · confidence ${confidence(l.confidence)}`),
          l.evidence ? el("blockquote", {}, l.evidence) : null))));
    }
    ul.parentNode?.querySelector(`button.more[data-for="${ul.dataset.key}"]`)?.remove();
    ul.dataset.key = ul.dataset.key || String(Math.random()).slice(2);
    const shown = ul.children.length;
    const info = el("p", { class: "muted paging", "data-for": ul.dataset.key },
      `${shown.toLocaleString("en")} of ${conn.totalCount.toLocaleString("en")} shown`);
    ul.parentNode?.querySelector(`p.paging[data-for="${ul.dataset.key}"]`)?.remove();
    ul.after(info);
    if (conn.pageInfo.hasNextPage) {
      const more = el("button", { type: "button", class: "more", "data-for": ul.dataset.key,
        onclick: () => { more.disabled = true; pagedPapers(ul, page, entityId, conn.pageInfo.endCursor); } },
      "More papers");
      info.after(more);
    }
  }

  // ---- paper lists: a sort (kept in the URL as `order`) and CSV/BibTeX of the same list -----------------
  const ORDERS = [["ID", "Identifier"], ["YEAR", "Newest first"], ["TITLE", "Title"],
                  ["CONFIDENCE", "Link confidence"], ["CITATIONS", "Most cited"]];
  // `filter` holds the list's arguments (one of LIST_FILTERS); `opts.entityId` shows that entity's evidence.
  function paperList(box, filter, label, opts = {}) {
    const args = Object.fromEntries(LIST_FILTERS.map((k) => [k, filter[k] ?? null]));
    const sort = el("select", { class: "paper-order", "aria-label": "Sort papers" },
      ...ORDERS.map(([o, text]) => el("option", o === state.order ? { value: o, selected: "" } : { value: o }, text)));
    sort.addEventListener("change", () => {
      state.order = sort.value;
      writeHash();
      paperList(box, filter, label, opts);
    });
    const query = new URLSearchParams({ ...filter, order: state.order });
    const name = `${String(label).replace(/[^A-Za-z0-9._-]+/g, "-")}-papers`;
    const exports = [["csv", "CSV", "csv"], ["bibtex", "BibTeX", "bib"]].map(([fmt, text, ext]) =>
      el("a", { class: "export", "data-format": fmt, href: `/export/papers?${query}&format=${fmt}`,
                download: `${name}.${ext}`, title: `This list as ${text} (at most 1,000 papers)` }, text));
    const ul = el("ul", { class: opts.listClass || "papers" });
    box.replaceChildren(el("p", { class: "list-tools" }, el("label", {}, "Sort ", sort), ...exports), ul);
    return pagedPapers(ul, async (after) => (await gql(PAPER_LIST, {
      ...args, order: state.order, after, type: opts.type || null })).papers, opts.entityId || null);
  }

  // One-click contract questions: papers(dataset|method|task|model|domain: X), defenses|attacks(target|against: X).
  async function ask(kind, name, type) {
    panel.hidden = false;
    const [field, arg, asked] = ROLES[kind] || ROLES.target;
    const title = kind === "using" ? `Papers using ${name}` : `${asked} ${name}`;
    body.replaceChildren(el("span", { class: "badge ask" }, "Answer"), el("h2", {}, title),
                         el("p", { class: "muted" }, "Loading…"));
    try {
      if (kind === "using") {
        const box = el("div", { class: "paper-list" });
        body.replaceChildren(el("span", { class: "badge ask" }, "Answer"), el("h2", {}, title), box);
        const arg = USING[type] || await guessArg(name);
        await paperList(box, { [arg]: name }, name, { listClass: "papers answer" });
        return;
      }
      const found = (await gql(field === "attacks" ? ATTACKS : DEFENSES, { [arg]: name }))[field];
      body.replaceChildren(el("span", { class: "badge ask" }, "Answer"), el("h2", {}, title),
        found.length ? entityList(found) : el("p", { class: "muted" }, `No ${field} found.`));
      body.querySelector("ul")?.classList.add("answer");
    } catch (err) {
      body.append(el("p", { class: "error" }, `Could not answer: ${err.message}`));
      console.error(err);
    }
  }
  async function guessArg(name) {
    const data = await gql(SEARCH, { text: name });
    const hit = rank(data.search, name).find((h) => h.entity && USING[h.entity.type]);
    return hit ? USING[hit.entity.type] : "dataset";
  }

  // Papers per year as a small bar chart (SVG), from `entity { trend }`; left out if the API has none.
  // Every year from the first to the last has its slot: a year without papers in the graph stays empty.
  async function drawTrend(box, e) {
    let rows;
    try { rows = (await gql(TREND, { id: e.id })).entity.trend; } catch (err) { return; }
    if (!rows || !rows.length) return;
    const W = 380, H = 110, left = 28, bottom = 18, top = 8;
    const max = Math.max(...rows.map((r) => r.papers), 1);
    const first = rows[0].year, slots = rows[rows.length - 1].year - first + 1;
    const bw = (W - left) / slots;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "trend-chart");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `Papers per year linked to ${e.name}`);
    const add = (tag, attrs, text) => {
      const n = document.createElementNS("http://www.w3.org/2000/svg", tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
      if (text != null) n.textContent = text;
      svg.append(n);
      return n;
    };
    add("text", { x: 0, y: top + 8, class: "axis" }, String(max));
    add("line", { x1: left - 2, y1: H - bottom, x2: W, y2: H - bottom, class: "axis" });
    rows.forEach((r) => {
      const i = r.year - first;
      const h = ((H - bottom - top) * r.papers) / max;
      const bar = add("rect", { x: left + i * bw + 1, y: H - bottom - h, width: Math.max(bw - 2, 1), height: h,
                                "data-year": r.year, "data-papers": r.papers,
                                fill: (state.styles[e.type] || {}).color || "#4e79a7" });
      const t = document.createElementNS("http://www.w3.org/2000/svg", "title");
      t.textContent = `${r.year}: ${plural(r.papers, "paper")} (${(100 * r.share).toFixed(1)}% of the year's papers)`;
      bar.append(t);
      if (slots <= 12 || i % Math.ceil(slots / 8) === 0) {
        add("text", { x: left + i * bw + bw / 2, y: H - 4, class: "axis", "text-anchor": "middle" }, String(r.year));
      }
    });
    box.replaceChildren(el("h3", {}, "Papers per year"), svg);
  }

  // ---- trending: the entities of a type whose share of papers rose most since a year ------------------
  async function showTrending(type = "Method", since = null) {
    panel.hidden = false;
    const kind = el("select", { class: "trending-type", "aria-label": "Type" },
      ...TYPES.map((t) => el("option", t === type ? { value: t, selected: "" } : { value: t }, t)));
    const year = el("input", { type: "number", class: "trending-since", "aria-label": "Since", min: "1900",
                               max: "2100", step: "1", value: since == null ? "" : String(since) });
    const list = el("ol", { class: "trending" });
    const redo = () => showTrending(kind.value, year.value ? Number(year.value) : null);
    kind.addEventListener("change", redo);
    year.addEventListener("change", redo);
    body.replaceChildren(el("span", { class: "badge ask" }, "Trending"), el("h2", {}, `Rising ${type}s`),
      el("p", { class: "asks" }, el("label", {}, "Type ", kind), el("label", {}, " since ", year)), list,
      el("p", { class: "muted" }, "Rise: share of the papers from that year on minus share of the earlier ones."));
    list.append(el("li", { class: "muted" }, "Loading…"));
    try {
      const { trending } = await gql(TRENDING, { type: type.toUpperCase(), since });
      list.replaceChildren(...trending.map((t) => el("li", { "data-id": t.entity.id },
        nodeButton(t.entity.id, t.entity.name),
        el("span", { class: "count" }, `${t.rise >= 0 ? "+" : ""}${(100 * t.rise).toFixed(1)} pts · `
          + `${plural(t.recentPapers, "paper")} since ${t.since}`),
        spark(t.entity))));
      if (!trending.length) list.replaceChildren(el("li", { class: "muted" }, "Nothing rising."));
      if (!year.value && trending.length) year.value = String(trending[0].since);
    } catch (err) {
      list.replaceChildren(el("li", { class: "error" }, `Could not load: ${err.message}`));
      console.error(err);
    }
  }
  // A small line of the entity's share per year; a year without papers breaks the line.
  function spark(e) {
    const rows = e.trend || [];
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    const W = 120, H = 26;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "spark");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `Share of papers per year linked to ${e.name}`);
    if (!rows.length) return svg;
    const first = rows[0].year, span = Math.max(rows[rows.length - 1].year - first, 1);
    const max = Math.max(...rows.map((r) => r.share), 1e-9);
    let piece = [], prev = null;
    const flush = () => {
      if (!piece.length) return;
      const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
      line.setAttribute("points", piece.join(" "));
      line.setAttribute("stroke", (state.styles[titleCase(e.type)] || {}).color || "#4e79a7");
      svg.append(line);
      piece = [];
    };
    for (const r of rows) {
      if (prev != null && r.year !== prev + 1) flush();
      piece.push(`${(2 + ((W - 4) * (r.year - first)) / span).toFixed(1)},${(H - 2 - ((H - 4) * r.share) / max).toFixed(1)}`);
      prev = r.year;
    }
    flush();
    return svg;
  }
  $("trending-open").addEventListener("click", () => showTrending());

  // ---- downloads: the view as PNG/SVG, its subgraph as Turtle (/explore/subgraph) or GraphML -------
  function save(blob, name) {
    const a = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  const slug = () => (state.center || "view").replace(/[^A-Za-z0-9._-]+/g, "-");
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  function svgOfView() {
    const canvas = $("graph").querySelector("canvas");
    const W = canvas.clientWidth, H = canvas.clientHeight;
    const ids = nodeView.getIds();
    const pos = Object.fromEntries(ids.map((id) => [id, network.canvasToDOM(network.getPositions([id])[id])]));
    const scale = network.getScale();
    const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`,
                 `<rect width="100%" height="100%" fill="#fff"/>`];
    for (const e of edgeView.get()) {
      const a = pos[e.from], b = pos[e.to];
      if (!a || !b) continue;
      out.push(`<line x1="${a.x.toFixed(1)}" y1="${a.y.toFixed(1)}" x2="${b.x.toFixed(1)}" y2="${b.y.toFixed(1)}" `
        + `stroke="#c4c4c4" stroke-width="${(e.width * scale).toFixed(2)}"${e.dashes ? ' stroke-dasharray="4 3"' : ""}>`
        + `<title>${esc(e.title)}</title></line>`);
    }
    for (const id of ids) {
      const n = nodes.get(id), p = pos[id], r = (network.body.nodes[id]?.options.size || 10) * scale;
      const color = (state.styles[n.type] || {}).color || "#bab0ac";
      const shape = n.type === "Paper"
        ? `<rect x="${(p.x - r).toFixed(1)}" y="${(p.y - r).toFixed(1)}" width="${(2 * r).toFixed(1)}" height="${(2 * r).toFixed(1)}"`
        : `<circle cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" r="${r.toFixed(1)}"`;
      out.push(`${shape} fill="${color}" stroke="#444" stroke-width="${id === state.center ? 3 : 1}">`
        + `<title>${esc(`${n.type}: ${n.fullLabel}`)}</title>${n.type === "Paper" ? "</rect>" : "</circle>"}`);
    }
    for (const l of api.labels) {
      out.push(`<text x="${(l.x + 2).toFixed(1)}" y="${(l.y + l.h * 0.8).toFixed(1)}" font-family="sans-serif" `
        + `font-size="13" fill="#222" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(l.text)}</text>`);
    }
    out.push("</svg>");
    return out.join("\n");
  }

  function graphmlOfView() {
    const x = (s) => esc(s);
    const out = ['<?xml version="1.0" encoding="UTF-8"?>',
      '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
      '<key id="label" for="node" attr.name="label" attr.type="string"/>',
      '<key id="type" for="node" attr.name="type" attr.type="string"/>',
      '<key id="papers" for="node" attr.name="papers" attr.type="int"/>',
      '<key id="shared" for="node" attr.name="shared" attr.type="int"/>',
      '<key id="relation" for="edge" attr.name="relation" attr.type="string"/>',
      '<key id="weight" for="edge" attr.name="weight" attr.type="double"/>',
      `<graph id="${x(state.center || "view")}" edgedefault="directed">`];
    for (const n of nodeView.get()) {
      out.push(`<node id="${x(n.id)}"><data key="label">${x(n.fullLabel)}</data><data key="type">${x(n.type)}</data>`
        + `<data key="papers">${n.papers || 0}</data>${n.shared ? `<data key="shared">${n.shared}</data>` : ""}</node>`);
    }
    for (const e of edgeView.get()) {
      out.push(`<edge source="${x(e.from)}" target="${x(e.to)}"><data key="relation">${x(e.relation)}</data>`
        + `<data key="weight">${e.weight}</data></edge>`);
    }
    out.push("</graph>", "</graphml>");
    return out.join("\n");
  }

  async function download(kind) {
    if (!state.center) return;
    if (kind === "png") {
      const src = $("graph").querySelector("canvas");
      const c = document.createElement("canvas");
      c.width = src.width; c.height = src.height;
      const g = c.getContext("2d");
      g.fillStyle = "#fff"; g.fillRect(0, 0, c.width, c.height);
      g.drawImage(src, 0, 0);
      c.toBlob((b) => save(b, `${slug()}.png`), "image/png");
    } else if (kind === "svg") {
      save(new Blob([svgOfView()], { type: "image/svg+xml" }), `${slug()}.svg`);
    } else if (kind === "graphml") {
      save(new Blob([graphmlOfView()], { type: "application/graphml+xml" }), `${slug()}.graphml`);
    } else if (kind === "turtle") {
      const p = new URLSearchParams({ format: "turtle" });
      for (const id of nodeView.getIds()) p.append("id", id);
      const res = await fetch(`/explore/subgraph?${p}`);
      if (!res.ok) { setStatus(`Turtle download failed: ${await res.text()}`); return; }
      save(await res.blob(), `${slug()}.ttl`);
    }
  }
  $("download").addEventListener("change", (ev) => {
    const kind = ev.target.value;
    ev.target.value = "";
    if (kind) download(kind);
  });

  // ---- controls and legend --------------------------------------------------------------------
  $("confidence").addEventListener("input", (ev) => {
    state.minConfidence = Number(ev.target.value);
    $("confidence-value").textContent = state.minConfidence.toFixed(2);
    refreshFilters();
    writeHash();
  });
  // once the slider is let go, the map is counted again from the links above the threshold only
  $("confidence").addEventListener("change", () => {
    if (state.center) show(state.center, { keepExpanded: true, panel: false });
  });
  $("limit").addEventListener("change", () => {
    state.limit = Number($("limit").value);
    if (state.center) show(state.center, { keepExpanded: true, panel: false }); else writeHash();
  });
  window.addEventListener("hashchange", followUrl);
  window.addEventListener("popstate", followUrl);

  function renderLegend() {
    const legend = $("legend");
    for (const [type, style] of Object.entries(state.styles)) {
      const cb = el("input", { type: "checkbox", checked: "", "data-type": type });
      cb.addEventListener("change", () => {
        if (cb.checked) state.hidden.delete(type); else state.hidden.add(type);
        // entity types refill the map from the server (the strongest of the wanted types); papers just hide
        if (state.center && type !== "Paper") show(state.center, { keepExpanded: true, panel: false });
        else { refreshFilters(); writeHash(); }
      });
      legend.append(el("label", {}, cb, el("span", {
        class: `swatch shape-${OUTSIDE[style.shape] || style.shape}`, style: `background:${style.color}` }), type));
    }
  }

  async function start() {
    state.styles = await (await fetch("/explore/types.json")).json();
    renderLegend();
    api.ready = true;
    if (location.hash) readHash(); else setStatus("Search for a paper, dataset, method, task…");
  }

  Object.assign(api, { show, expand, openPanel, ask, download, showTrending, svgOfView, graphmlOfView, gql,
                       visibleNodeIds: () => nodeView.getIds() });
  window.kgExplorer = api;
  start();
})();
