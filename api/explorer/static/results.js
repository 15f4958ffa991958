// paperkg explorer: leaderboards and comparison. A dataset's panel gets its leaderboard (metric picker, top
// rows, each value's evidence sentence on hover and on click); papers ticked on leaderboards are compared side
// by side (tasks, datasets, methods, models, metrics, results, with evidence) in a table that exports to CSV.
// Loaded after explorer.js; talks to /graphql only. window.kgResults exposes its state for tests.
"use strict";
(() => {
  const TOP = 20;  // rows a page of the leaderboard; "More results" appends the next page
  const METRICS = `query DatasetMetrics($id: ID!) { entity(id: $id) { id name type
    metrics { metric { id name } results papers higherIsBetter } } }`;
  const ROW = `id value unit kind rank board improvement higherIsBetter evidence mention confidence
      metric { id name } dataset { id name } method { id name } baseline { id name } paper { id title year }`;
  // a board ranks absolute results of one metric on one dataset (and split); improvements come apart
  const BOARD = `query Board($d: String!, $m: String, $first: Int!, $low: Boolean!) {
    ranked: results(dataset: $d, metric: $m, first: $first, section: "absolute", includeLowConfidence: $low) {
      totalCount hiddenCount pageInfo { hasNextPage endCursor } edges { node { ${ROW} } } }
    improvements: results(dataset: $d, metric: $m, first: $first, section: "improvement",
                          includeLowConfidence: $low) {
      totalCount hiddenCount edges { node { ${ROW} } } } }`;
  const MORE = `query BoardPage($d: String!, $m: String, $first: Int!, $low: Boolean!, $after: String) {
    ranked: results(dataset: $d, metric: $m, first: $first, after: $after, section: "absolute",
                    includeLowConfidence: $low) {
      totalCount pageInfo { hasNextPage endCursor } edges { node { ${ROW} } } } }`;
  const LINK = "relation evidence confidence entity { id name }";
  const COMPARE = `query Compare($ids: [ID!]!) { compare(papers: $ids) { paper { id title year venue }
    tasks { ${LINK} } datasets { ${LINK} } methods { ${LINK} } models { ${LINK} } metrics { ${LINK} }
    results { value unit kind improvement evidence metric { name } dataset { name } } } }`;
  const ROWS = ["tasks", "datasets", "methods", "models", "metrics"];

  const gql = (query, variables) => window.kgExplorer.gql(query, variables);  // the explorer's one client

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v != null && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    node.append(...children.filter((c) => c != null));
    return node;
  }

  const state = { selected: new Map(), board: null, comparison: null, showLow: false };

  function fmt(r) {
    const v = Number.isInteger(r.value) ? String(r.value) : String(+r.value.toPrecision(6));
    const unit = r.unit === "%" || r.unit === "x" ? r.unit : r.unit ? ` ${r.unit}` : "";
    const sign = r.kind === "delta" && r.value > 0 ? "+" : "";
    return sign + v + unit;
  }

  // The evidence sentence with the value marked.
  function evidence(r) {
    const at = r.mention ? r.evidence.indexOf(r.mention) : -1;
    if (at < 0) return el("blockquote", { class: "lb-evidence" }, r.evidence);
    return el("blockquote", { class: "lb-evidence" }, r.evidence.slice(0, at), el("mark", {}, r.mention),
      r.evidence.slice(at + r.mention.length));
  }

  function tickBox(paper) {
    const box = el("input", { type: "checkbox", class: "lb-tick", "data-paper": paper.id,
                              "aria-label": `Compare ${paper.title || paper.id}`,
                              checked: state.selected.has(paper.id) });
    box.addEventListener("change", () => {
      if (box.checked) state.selected.set(paper.id, paper.title || paper.id);
      else state.selected.delete(paper.id);
      document.querySelectorAll(`input.lb-tick[data-paper="${CSS.escape(paper.id)}"]`)
        .forEach((b) => { b.checked = box.checked; });
      renderTray();
    });
    return box;
  }

  function detailRow(r) {
    return el("tr", { class: "lb-detail", hidden: true },
      el("td", { colspan: "5" }, evidence(r),
        el("span", { class: "muted" }, [r.kind, r.baseline ? `vs ${r.baseline.name}` : null,
          r.dataset ? `on ${r.dataset.name}` : null, `confidence ${r.confidence.toFixed(2)}`]
          .filter(Boolean).join(" · "))));
  }

  function boardRow(r, cells) {
    const value = el("button", { type: "button", class: "link lb-value", title: r.evidence,
                                 "aria-expanded": "false" }, cells.value);
    const detail = detailRow(r);
    value.addEventListener("click", () => {
      detail.hidden = !detail.hidden;
      value.setAttribute("aria-expanded", String(!detail.hidden));
    });
    const open = window.kgExplorer
      ? el("button", { type: "button", class: "link", onclick: () => window.kgExplorer.openPanel(r.paper.id) },
        r.paper.title || r.paper.id)
      : r.paper.title || r.paper.id;
    return [el("tr", { class: cells.cls, "data-paper": r.paper.id, "data-kind": r.kind },
      el("td", {}, cells.rank), el("td", {}, value), el("td", {}, r.method ? r.method.name : "–"),
      el("td", { class: "lb-paper" }, open), el("td", {}, tickBox(r.paper))), detail];
  }

  async function fillBoard(section, dataset, metric) {
    const tbody = section.querySelector("tbody.lb-ranked");
    const better = section.querySelector("tbody.lb-improvements");
    const note = section.querySelector(".lb-note");
    const low = section.querySelector(".lb-low");
    tbody.replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "muted" }, "Loading…")));
    const data = await gql(BOARD, { d: dataset, m: metric, first: TOP, low: state.showLow });
    const rows = data.ranked.edges.map((e) => e.node);
    const gains = data.improvements.edges.map((e) => e.node);
    const hidden = data.ranked.hiddenCount + data.improvements.hiddenCount;
    state.board = { dataset, metric, rows, improvements: gains, total: data.ranked.totalCount, hidden };
    tbody.replaceChildren();
    let current;
    const several = rows.some((r) => r.board !== rows[0].board) || data.ranked.pageInfo.hasNextPage;
    const append = (page) => {
      for (const r of page) {
        if (several && r.board !== current) {  // one board per metric, dataset and split
          tbody.append(el("tr", { class: "lb-board" }, el("th", { colspan: "5" }, r.board || "")));
          current = r.board;
        }
        tbody.append(...boardRow(r, { cls: "lb-row", value: fmt(r), rank: String(r.rank) }));
      }
    };
    append(rows);
    section.querySelector(".lb-more")?.remove();
    const paging = (info) => {
      if (!info.hasNextPage) return;
      const more = el("button", { type: "button", class: "more lb-more", onclick: async () => {
        more.disabled = true;
        try {
          const next = await gql(MORE, { d: dataset, m: metric, first: TOP, low: state.showLow,
                                         after: info.endCursor });
          const page = next.ranked.edges.map((e) => e.node);
          state.board.rows.push(...page);
          append(page);
          more.remove();
          note.textContent = `${state.board.rows.length} of ${next.ranked.totalCount} ranked`;
          paging(next.ranked.pageInfo);
        } catch (err) { more.disabled = false; report(section)(err); }
      } }, "More results");
      note.before(more);
    };
    paging(data.ranked.pageInfo);
    better.replaceChildren();
    if (gains.length) {
      better.append(el("tr", { class: "lb-board" }, el("th", { colspan: "5" }, "Improvements (not ranked)")));
      for (const r of gains) {
        better.append(...boardRow(r, { cls: "lb-gain", value: r.improvement || fmt(r),
                                       rank: r.kind === "ratio" ? "×" : "Δ" }));
      }
    }
    note.textContent = rows.length
      ? `${rows.length} of ${data.ranked.totalCount} ranked · click a value for its sentence · tick papers to compare`
      : "No absolute results ranked for this metric.";
    low.replaceChildren();
    if (hidden || state.showLow) {
      low.append(state.showLow ? "Lower-confidence rows shown. " : `${hidden} more, lower confidence. `,
        el("button", { type: "button", class: "link lb-show-low", onclick: () => {
          state.showLow = !state.showLow;
          fillBoard(section, dataset, metric).catch(report(section));
        } }, state.showLow ? "Hide them" : "Show them"));
    }
  }

  async function addLeaderboard(entity, body) {
    if ((entity.type || "").toLowerCase() !== "dataset") return;
    const section = el("section", { class: "kg-leaderboard", "data-dataset": entity.id },
      el("h3", {}, "Leaderboard"), el("p", { class: "muted" }, "Loading…"));
    const papersHead = body.querySelector(".papers-head");
    if (papersHead) papersHead.before(section); else body.append(section);
    const data = await gql(METRICS, { id: entity.id });
    const metrics = (data.entity && data.entity.metrics) || [];
    if (!section.isConnected) return;
    if (!metrics.length) {
      section.replaceChildren(el("h3", {}, "Leaderboard"),
        el("p", { class: "muted" }, "No results stated in abstracts on this dataset yet."));
      return;
    }
    const picker = el("select", { class: "lb-metric", "aria-label": "Metric" },
      ...metrics.map((m) => el("option", { value: m.metric.name },
        `${m.metric.name}${m.higherIsBetter === false ? " ↓" : m.higherIsBetter ? " ↑" : ""} (${m.results})`)));
    const table = el("table", { class: "lb-table" },
      el("thead", {}, el("tr", {}, ...["#", "value", "method", "paper", "cmp"].map((h) => el("th", {}, h)))),
      el("tbody", { class: "lb-ranked" }), el("tbody", { class: "lb-improvements" }));
    section.replaceChildren(el("h3", {}, "Leaderboard"), el("label", {}, "Metric ", picker), table,
      el("p", { class: "muted lb-note" }), el("p", { class: "muted lb-low" }));
    picker.addEventListener("change", () => fillBoard(section, entity.id, picker.value).catch(report(section)));
    await fillBoard(section, entity.id, picker.value);
  }

  function report(section) {
    return (err) => {
      section.append(el("p", { class: "error" }, `Could not load the leaderboard: ${err.message}`));
      console.error(err);
    };
  }

  // ---- comparison ------------------------------------------------------------------------------
  function renderTray() {
    let tray = document.getElementById("kg-compare-tray");
    if (!state.selected.size) { tray?.remove(); return; }
    if (!tray) {
      tray = el("div", { id: "kg-compare-tray", role: "region", "aria-label": "Papers to compare" });
      // over the map's top right corner: clear of the legend (bottom left) and the status (top left)
      (document.getElementById("stage") || document.body).append(tray);
    }
    tray.replaceChildren(
      el("span", {}, `${state.selected.size} paper${state.selected.size === 1 ? "" : "s"} ticked`),
      el("button", { type: "button", id: "kg-compare-open", disabled: state.selected.size < 2,
                     onclick: () => compare([...state.selected.keys()]) }, "Compare"),
      el("button", { type: "button", class: "link", onclick: () => {
        state.selected.clear();
        document.querySelectorAll("input.lb-tick").forEach((b) => { b.checked = false; });
        renderTray();
      } }, "Clear"));
  }

  function cellList(links) {
    return el("ul", {}, ...links.map((l) => el("li", { title: l.evidence || "" }, l.entity.name)));
  }

  function resultText(r) {
    const where = r.dataset ? ` on ${r.dataset.name}` : "";
    return r.improvement ? `${r.improvement}${where}` : `${r.metric.name} ${fmt(r)}${where}`;
  }
  const absolute = (rs) => rs.filter((r) => !r.improvement);
  const improvements = (rs) => rs.filter((r) => r.improvement);

  async function compare(ids) {
    const data = await gql(COMPARE, { ids });
    state.comparison = data.compare;
    const cols = data.compare;
    const head = el("tr", {}, el("th", {}, ""), ...cols.map((c) => el("th", { "data-paper": c.paper.id },
      c.paper.title || c.paper.id, el("div", { class: "muted" }, [c.paper.venue, c.paper.year, c.paper.id]
        .filter(Boolean).join(" · ")))));
    const rows = ROWS.map((key) => el("tr", { "data-row": key }, el("th", {}, key),
      ...cols.map((c) => el("td", {}, cellList(c[key])))));
    for (const [key, pick] of [["results", absolute], ["improvements", improvements]]) {
      rows.push(el("tr", { "data-row": key }, el("th", {}, key), ...cols.map((c) => el("td", {},
        el("ul", {}, ...pick(c.results).map((r) => el("li", { title: r.evidence }, resultText(r))))))));
    }
    document.getElementById("kg-compare")?.remove();
    const view = el("div", { id: "kg-compare", role: "dialog", "aria-label": "Comparison" },
      el("div", { class: "cmp-bar" }, el("h2", {}, `Comparison of ${cols.length} papers`),
        el("button", { type: "button", id: "kg-compare-csv", onclick: downloadCsv }, "Export CSV"),
        el("button", { type: "button", id: "kg-compare-close", "aria-label": "Close",
                       onclick: () => view.remove() }, "×")),
      el("div", { class: "cmp-scroll" }, el("table", { class: "cmp-table" }, el("thead", {}, head),
        el("tbody", {}, ...rows))));
    document.body.append(view);
    return cols;
  }

  function csvCell(v) {
    const s = v == null ? "" : String(v);
    return /[",\n;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  }

  function csv() {
    const cols = state.comparison || [];
    const lines = [["property", ...cols.map((c) => c.paper.id)],
                   ["title", ...cols.map((c) => c.paper.title || "")],
                   ["year", ...cols.map((c) => c.paper.year ?? "")]];
    for (const key of ROWS) lines.push([key, ...cols.map((c) => c[key].map((l) => l.entity.name).join("; "))]);
    lines.push(["results", ...cols.map((c) => absolute(c.results).map(resultText).join("; "))]);
    lines.push(["improvements", ...cols.map((c) => improvements(c.results).map(resultText).join("; "))]);
    return lines.map((l) => l.map(csvCell).join(",")).join("\n") + "\n";
  }

  function downloadCsv() {
    const url = URL.createObjectURL(new Blob([csv()], { type: "text/csv;charset=utf-8" }));
    const a = el("a", { href: url, download: "paperkg-comparison.csv" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  document.head.append(el("style", {}, `
    .kg-leaderboard table { width: 100%; border-collapse: collapse; font-size: 13px; margin: 6px 0; }
    .kg-leaderboard th, .kg-leaderboard td { text-align: left; padding: 2px 4px; border-bottom: 1px solid #eee;
      vertical-align: top; }
    .kg-leaderboard .lb-evidence { margin: 4px 0; font-size: 12px; }
    .kg-leaderboard .lb-value { font-variant-numeric: tabular-nums; font-weight: 600; }
    .kg-leaderboard tr.lb-board th { font-weight: 600; background: #f6f6f6; }
    #kg-compare-tray { position: absolute; top: 8px; right: 12px; z-index: 20; background: #fff;
      border: 1px solid #ccc; border-radius: 6px; padding: 6px 10px; display: flex; gap: 8px; align-items: center;
      box-shadow: 0 2px 8px rgba(0,0,0,.15); font-size: 13px; }
    #kg-compare { position: fixed; inset: 5% 4%; z-index: 30; background: #fff; border: 1px solid #bbb;
      border-radius: 8px; box-shadow: 0 6px 30px rgba(0,0,0,.25); display: flex; flex-direction: column; }
    #kg-compare .cmp-bar { display: flex; gap: 10px; align-items: center; padding: 8px 12px;
      border-bottom: 1px solid #ddd; }
    #kg-compare .cmp-bar h2 { flex: 1; font-size: 16px; margin: 0; }
    #kg-compare .cmp-scroll { overflow: auto; padding: 8px 12px; }
    #kg-compare table { border-collapse: collapse; font-size: 13px; }
    #kg-compare th, #kg-compare td { border: 1px solid #e3e3e3; padding: 4px 8px; vertical-align: top;
      text-align: left; min-width: 180px; }
    #kg-compare ul { margin: 0; padding-left: 16px; }
  `));

  const api = { state, compare, csv, addLeaderboard };
  window.kgResults = api;
  if (window.kgExplorer && Array.isArray(window.kgExplorer.panelHooks)) {
    window.kgExplorer.panelHooks.push((entity, body) => {
      addLeaderboard(entity, body).catch((err) => console.error(err));
    });
  } else {
    // an explorer without panel hooks: watch the panel for a dataset's page and look the dataset up by name
    const body = document.getElementById("panel-body");
    const ENTITY = `query E($name: String!) { entity(name: $name, type: DATASET) { id type } }`;
    if (body) {
      new MutationObserver(() => {
        const badge = body.querySelector(":scope > .badge"), h2 = body.querySelector(":scope > h2");
        if (!badge || badge.textContent !== "Dataset" || !h2 || body.querySelector(".kg-leaderboard")) return;
        gql(ENTITY, { name: h2.textContent }).then((d) => {
          if (d.entity && !body.querySelector(".kg-leaderboard")) return addLeaderboard(d.entity, body);
          return null;
        }).catch((err) => console.error(err));
      }).observe(body, { childList: true });
    }
  }
})();
