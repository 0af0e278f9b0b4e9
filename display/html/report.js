/* profview html: draws the profile the page holds (display/html.c embeds
 * this file).  The data, the JSON object in #profile-data:
 *   exe, pid, unit ("cycles" or "instructions"), cpu, total (in unit), os (of total: external code and system
 *   calls), os_charged, counted (profinst --counts: no per-call min and max), faults, branch_sim, cache_sim,
 *   signal;
 *   functions[]: name, object, file, line, calls, self, incl, min, max (null when counted), os,
 *     faults, mispredicts, mispredict_cycles, mem_wait, external,
 *     callers [[function index or -1 for none, calls, incl]],
 *     callees [[function index, calls, incl]],
 *     lines [[file index, line, cycles, ran 0/1, of the cycles those of
 *     mispredicted jumps, of waits for memory]] (self on source lines),
 *     disasm (functions with 0.1% of the cycles or more) [[offset,
 *     executions, cycles, mispredicted jumps, cycles waiting for memory,
 *     [[offset, instruction, line]]]] (its blocks);
 *   threads[]: index, tid, nodes [[parent or -1, function or -1, calls,
 *     self, incl]] (the calling-context tree, parents first), recursive
 *     [[caller node, callee node (an ancestor of the caller), calls,
 *     cycles]] (calls charged to the ancestor running the callee);
 *   files[]: path, found, text {line number: text} (the lines quoted).
 * Views: #functions (the list), #f/N (function N), #tree (the trees),
 * #flame/T/K (thread T's tree as a flame graph from node K), #graph (the
 * call graph Graphviz drew, in #callgraph-svg, where it could).
 * Plain DOM, no library: the page works offline.  No element's id is a
 * view's name, or the browser would scroll to it. */
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("profile-data").textContent);
  const UNIT = D.unit || "cycles"; /* "instructions" under --cpu=instructions */
  const F = D.functions;
  /* cycles come exact (fractions of a cycle under a cycle model): shown
   * whole, rounded once here */
  const fmt = (n) => Math.round(n).toLocaleString("en-US");
  const pct = (n, d) => (d > 0 ? (100 * n / d).toFixed(2) + "%" : "");
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "style") e.setAttribute("style", v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of kids) e.append(c && c.nodeType ? c : document.createTextNode(c == null ? "" : String(c)));
    return e;
  };
  const fnLink = (i) => (i < 0 ? el("span", { class: "dim" }, "<root>")
    : el("a", { class: "fn", href: "#f/" + i, title: F[i].object }, F[i].name));

  /* header: what the profile is */
  const head = el("header", {},
    el("h1", {}, D.exe),
    el("div", { class: "meta" },
      `pid ${D.pid} \u00b7 model ${D.cpu} \u00b7 ${fmt(D.total)} ${UNIT} \u00b7 ` +
      `${D.threads.length} thread${D.threads.length === 1 ? "" : "s"}` +
      (D.os ? ` \u00b7 external code and system calls ${fmt(D.os)} (${pct(D.os, D.total)})` : "") +
      (D.faults ? ` \u00b7 ${fmt(D.faults)} page faults` : "") +
      (D.signal ? ` \u00b7 ended by signal ${D.signal}` : "") +
      (D.counted ? ` \u00b7 counted per calling context (profinst --counts): no per-call min and max` : "") +
      (D.branch_sim ? " \u00b7 mispredictions simulated" : "") +
      (D.cache_sim ? " \u00b7 cache misses simulated" : "")),
    el("nav", {},
      el("a", { href: "#functions", id: "nav-functions" }, "Functions"),
      el("a", { href: "#tree", id: "nav-tree" }, "Call tree"),
      el("a", { href: "#flame/0/0", id: "nav-flame" }, "Flame graph"),
      document.getElementById("callgraph-svg") ? el("a", { href: "#graph", id: "nav-graph" }, "Call graph") : ""));
  const main = el("main", { id: "view" });
  document.body.append(head, main);

  /* the function list: sortable, filtered by name */
  const COLS = [
    ["name", "Function", (f) => f.name],
    ["object", "Object", (f) => f.object],
    ["calls", "Calls", (f) => f.calls, true],
    ["self", "Self", (f) => f.self, true],
    ["selfp", "Self %", (f) => f.self, true, (f) => pct(f.self, D.total)],
    ["incl", "Incl", (f) => f.incl, true],
    ["inclp", "Incl %", (f) => f.incl, true, (f) => pct(f.incl, D.total)],
    ["min", "Min self", (f) => f.min, true],
    ["max", "Max self", (f) => f.max, true],
    ["os", "OS", (f) => f.os, true],
  ].filter((c) => !(D.counted && (c[0] === "min" || c[0] === "max"))); /* counted: none kept */
  /* under the simulations, what they charged each function */
  if (D.branch_sim) COLS.push(["mp", "Mispredicted", (f) => f.mispredict_cycles, true]);
  if (D.cache_sim) COLS.push(["mw", "Memory waits", (f) => f.mem_wait, true]);
  const list = { sort: "self", asc: false, filter: "", all: false };
  const SHOWN = 200;

  function showFunctions() {
    const q = list.filter.toLowerCase();
    const col = COLS.find((c) => c[0] === list.sort);
    const rows = F.map((f, i) => i).filter((i) => !q || F[i].name.toLowerCase().includes(q));
    rows.sort((a, b) => {
      const x = col[2](F[a]), y = col[2](F[b]);
      const c = typeof x === "string" ? x.localeCompare(y) : x - y;
      return (list.asc ? c : -c) || a - b;
    });
    const search = el("input", { type: "search", id: "filter", placeholder: "filter by name", value: list.filter });
    search.addEventListener("input", () => {
      list.filter = search.value;
      list.all = false;
      const pos = search.selectionStart;
      showFunctions();
      const s = document.getElementById("filter");
      s.focus();
      s.setSelectionRange(pos, pos);
    });
    const thead = el("tr", {}, ...COLS.map((c) => el("th", {
      class: (c[3] ? "num " : "") + (c[0] === list.sort ? "sorted" + (list.asc ? " asc" : "") : ""),
      "data-col": c[0],
      onclick: () => {
        if (list.sort === c[0]) list.asc = !list.asc;
        else { list.sort = c[0]; list.asc = !c[3]; }
        showFunctions();
      },
    }, c[1])));
    const max = F.reduce((m, f) => Math.max(m, f.self), 0);
    const body = rows.slice(0, list.all ? rows.length : SHOWN).map((i) => {
      const f = F[i];
      return el("tr", { "data-f": i }, ...COLS.map((c) => {
        if (c[0] === "name") return el("td", { class: "name" }, fnLink(i));
        if (c[0] === "object") return el("td", { class: "dim" }, f.object);
        const v = c[4] ? c[4](f) : fmt(c[2](f));
        const td = el("td", { class: "num" }, v);
        if (c[0] === "selfp" && max) {
          td.classList.add("bar");
          td.style.setProperty("--w", (100 * f.self / max).toFixed(1) + "%");
        }
        return td;
      }));
    });
    const more = rows.length > SHOWN && !list.all
      ? el("div", { class: "more" }, el("button", { id: "show-all", onclick: () => { list.all = true; showFunctions(); } },
        `show all ${rows.length}`)) : "";
    main.replaceChildren(search, el("table", { id: "fn-table" }, el("thead", {}, thead), el("tbody", {}, ...body)),
      el("div", { class: "dim more", id: "count" }, `${rows.length} of ${F.length} functions`), more);
  }

  /* one function: its figures, callers, callees, source */
  function arcTable(id, title, arcs, whole) {
    const sorted = arcs.slice().sort((a, b) => b[2] - a[2] || b[1] - a[1]);
    return [el("h2", {}, title), el("table", { id },
      el("thead", {}, el("tr", {}, el("th", {}, "Function"), el("th", { class: "num" }, "Calls"),
        el("th", { class: "num" }, "Incl"), el("th", { class: "num" }, "Share"))),
      el("tbody", {}, ...sorted.map((a) => el("tr", { "data-f": a[0] },
        el("td", { class: "name" }, fnLink(a[0])), el("td", { class: "num" }, fmt(a[1])),
        el("td", { class: "num" }, fmt(a[2])), el("td", { class: "num" }, pct(a[2], whole))))))];
  }

  function sourceOf(f) {
    if (!f.lines.length) return [];
    const out = [el("h2", {}, "Source")];
    const byFile = new Map();
    for (const l of f.lines) {
      if (!byFile.has(l[0])) byFile.set(l[0], []);
      byFile.get(l[0]).push(l);
    }
    for (const [fi, lines] of byFile) {
      const file = D.files[fi];
      out.push(el("div", { class: "dim" }, file.path + (file.found ? "" : " (source not found: lines only)")));
      const cyc = new Map(lines.map((l) => [l[1], l]));
      /* the function's lines: two around each with code, and all of
       * them from its first to its last where that is not long */
      const nums = new Set();
      const coded = lines.map((l) => l[1]).filter((n) => n > 0);
      for (const n of coded) for (let k = n - 2; k <= n + 2; k++) nums.add(k);
      const lo = Math.min(...coded), hi = Math.max(...coded);
      if (coded.length && hi - lo < 400) for (let k = lo; k <= hi; k++) nums.add(k);
      const sorted = [...nums].filter((n) => n > 0 && (cyc.has(n) || file.text[n] != null)).sort((a, b) => a - b);
      const pre = el("pre", { class: "src" });
      let last = 0;
      for (const n of sorted) {
        if (last && n > last + 1) pre.append(el("div", { class: "src-gap" }, "\u22ee"));
        last = n;
        const l = cyc.get(n);
        const mark = !l ? " " : l[3] ? (l[2] ? "|" : " ") : "#";
        pre.append(el("div", { class: "src-line" + (l && !l[3] ? " never" : ""), "data-line": n },
          el("span", { class: "mark" }, mark),
          el("span", { class: "pct" }, l && l[3] ? pct(l[2], f.self) : ""),
          el("span", { class: "no" }, n),
          el("span", { class: "text" }, file.text[n] != null ? file.text[n] : ""),
          el("span", { class: "sim" }, l && l[4] ? `  mispredicted jumps ${pct(l[4], f.self)}` : "",
            l && l[5] ? `  waits for memory ${pct(l[5], f.self)}` : "")));
      }
      const noLine = lines.filter((l) => l[1] === 0);
      if (noLine.length)
        pre.append(el("div", { class: "src-gap" }, `code without line numbers: ${pct(noLine[0][2], f.self)}`));
      out.push(pre);
    }
    return out;
  }

  function disasmOf(f) {
    if (f.external) return [];
    if (!f.disasm) return [el("h2", {}, "Disassembly"),
      el("div", { class: "dim" }, "kept for the functions with 0.1% of the cycles or more")];
    const pre = el("pre", { class: "src", id: "disasm" });
    for (const [off, n, cyc, mp, mw, insns] of f.disasm) {
      pre.append(el("div", { class: "block-head" + (n ? "" : " never") },
        `${n ? "|" : "#"} block +${off}: ${fmt(n)} executions, ${fmt(cyc)} ${UNIT}` +
        (mp ? `, its jump mispredicted ${fmt(mp)} times (${pct(mp, n)})` : "") +
        (mw ? `, waiting for memory ${fmt(mw)} cycles` : "")));
      for (const [o, text, line] of insns)
        pre.append(el("div", { class: "asm-line" + (n ? "" : " never") }, el("span", { class: "no" }, "+" + o),
          el("span", { class: "no" }, line ? ":" + line : ""), el("span", { class: "text" }, text)));
    }
    return [el("h2", {}, "Disassembly"), pre];
  }

  function showFunction(i) {
    const f = F[i];
    if (!f) return showFunctions();
    const stats = el("table", { id: "stats" }, el("tbody", {},
      ...[["Calls", fmt(f.calls)], ["Self", `${fmt(f.self)} (${pct(f.self, D.total)})`],
        ["Self + descendants", `${fmt(f.incl)} (${pct(f.incl, D.total)})`],
        ["Self per call", !f.calls ? "" : f.min == null || f.max == null ? `mean ${fmt(Math.round(f.self / f.calls))}`
          : `min ${fmt(f.min)}, max ${fmt(f.max)}, mean ${fmt(Math.round(f.self / f.calls))}`],
        ["External code and system calls", f.os ? fmt(f.os) : ""],
        ["Page faults", f.faults ? fmt(f.faults) : ""],
        ["Mispredicted jumps", D.branch_sim ? `${fmt(f.mispredicts)}, ${fmt(f.mispredict_cycles)} cycles` : ""],
        ["Waits for memory", D.cache_sim ? `${fmt(f.mem_wait)} cycles` : ""],
        ["Source", f.line ? `${f.file}:${f.line}` : ""]]
        .filter((r) => r[1]).map((r) => el("tr", {}, el("td", { class: "dim" }, r[0]), el("td", {}, r[1])))));
    main.replaceChildren(el("h2", { id: "fn-name" }, f.name, el("span", { class: "dim" }, "  [" + f.object + "]")),
      stats, ...arcTable("callers", "Called by", f.callers, f.incl),
      ...arcTable("callees", "Calls", f.callees, f.incl), ...sourceOf(f), ...disasmOf(f));
    window.scrollTo(0, 0);
  }

  /* the calling-context trees: rows open and close, the hot path open */
  function showTree() {
    const box = el("div", { id: "tree-view" });
    for (const th of D.threads) {
      const N = th.nodes, kids = N.map(() => []), rec = N.map(() => []);
      N.forEach((n, k) => { if (n[0] >= 0) kids[n[0]].push(k); });
      for (const k of kids) k.sort((a, b) => N[b][4] - N[a][4]);
      for (const r of th.recursive || []) if (rec[r[0]]) rec[r[0]].push(r);
      const total = kids[0].reduce((s, k) => s + N[k][4], 0);
      /* a call back into a function running further up: its time is
       * that ancestor's, shown where the call was made */
      const recRow = (r, depth) => el("div", { class: "tree-row rec", style: `padding-left:${depth * 1.5}em` },
        el("span", { class: "tog" }, "\u21bb"), el("span", { class: "pct" }, pct(r[3], total)),
        el("span", { class: "cyc" }, fmt(r[3])), N[r[1]][1] >= 0 ? fnLink(N[r[1]][1]) : "?",
        el("span", { class: "calls" }, `\u00d7${fmt(r[2])}, recursive: counted in ` +
          `${N[r[1]][1] >= 0 ? F[N[r[1]][1]].name : "?"} above`));
      const rowOf = (k, depth) => {
        const n = N[k], open = el("span", { class: "tog" }, kids[k].length || rec[k].length ? "\u25b8" : "");
        const row = el("div", { class: "tree-row", "data-node": k, style: `padding-left:${depth * 1.5}em` },
          open, el("span", { class: "pct" }, pct(n[4], total)), el("span", { class: "cyc" }, fmt(n[4])),
          n[1] >= 0 ? fnLink(n[1]) : "?", el("span", { class: "calls" },
            `\u00d7${fmt(n[2])}, self ${fmt(n[3])}`));
        const sub = el("div", { class: "tree-kids" });
        let shown = false;
        const toggle = () => {
          if (!kids[k].length && !rec[k].length) return;
          shown = !shown;
          open.textContent = shown ? "\u25be" : "\u25b8";
          if (shown && !sub.childElementCount) {
            const all = kids[k].map((c) => [N[c][4], c, null]).concat(rec[k].map((r) => [r[3], -1, r]));
            all.sort((a, b) => b[0] - a[0]);
            for (const [, c, r] of all) r ? sub.append(recRow(r, depth + 1)) : sub.append(...rowOf(c, depth + 1));
          }
          sub.style.display = shown ? "" : "none";
        };
        open.addEventListener("click", toggle);
        row.toggle = toggle;
        return [row, sub];
      };
      box.append(el("h2", {}, `Thread ${th.index}` + (th.tid ? ` (tid ${th.tid})` : "") + `: ${fmt(total)} ${UNIT}`));
      const top = el("div", {});
      for (const k of kids[0]) top.append(...rowOf(k, 0));
      box.append(top);
      /* open the hottest path, while one child holds most of its parent */
      let row = top.firstChild;
      for (let d = 0; row && d < 12; d++) {
        row.toggle();
        const k = Number(row.getAttribute("data-node"));
        const first = kids[k][0];
        if (first === undefined || N[first][4] * 2 < N[k][4]) break;
        row = row.nextSibling.firstChild;
      }
    }
    main.replaceChildren(box);
  }

  /* a thread's tree as a flame graph (callers below, callees above): a
   * box's width is its node's self plus its children's widths (not the
   * node's self+descendants, which a recursive call charged to an
   * ancestor leaves out: widths must add up); a click on one makes it
   * the base, the base's box goes back to its parent */
  function showFlame(ti, base) {
    const th = D.threads[ti] || D.threads[0];
    if (!th) return main.replaceChildren("no thread");
    const N = th.nodes, kids = N.map(() => []), tot = N.map((n) => n[3]);
    N.forEach((n, k) => { if (n[0] >= 0) kids[n[0]].push(k); });
    for (let k = N.length - 1; k > 0; k--) tot[N[k][0]] += tot[k]; /* parents come first */
    if (!N[base]) base = 0;
    const whole = tot[base];
    const rows = [];
    const place = (k, depth, left) => {
      const w = whole > 0 ? tot[k] / whole : 0;
      if (w < 0.001 && depth > 0) return;
      (rows[depth] = rows[depth] || []).push([k, left, w]);
      let x = left;
      for (const c of kids[k]) { place(c, depth + 1, x); x += whole > 0 ? tot[c] / whole : 0; }
    };
    place(base, 0, 0);
    const box = el("div", { id: "flame-view", class: "flame" });
    const threads = D.threads.length > 1 ? el("div", { class: "dim" }, "Thread: ",
      ...D.threads.map((t, i) => el("a", { class: "fn", href: `#flame/${i}/0` }, ` ${t.index} `))) : "";
    rows.forEach((row, depth) => {
      const line = el("div", { class: "flame-row" });
      for (const [k, left, w] of row) {
        const n = N[k], name = k === 0 ? "all" : n[1] >= 0 ? F[n[1]].name : "?";
        const target = k === base ? (k === 0 ? 0 : Math.max(0, N[k][0])) : k;
        line.append(el("a", {
          class: "flame-box", "data-node": k, href: `#flame/${ti}/${target}`,
          style: `left:${(100 * left).toFixed(3)}%;width:${(100 * w).toFixed(3)}%`,
          title: `${name}: ${fmt(tot[k])} ${UNIT} (${pct(tot[k], whole)})` +
            (n[1] >= 0 ? `, self ${fmt(n[3])}, ${fmt(n[2])} calls` : ""),
        }, w > 0.02 ? name : ""));
      }
      box.prepend(line);
    });
    main.replaceChildren(threads, el("div", { class: "dim" }, base ? "click the base to go back down" : ""), box);
  }

  function showGraph() {
    const svg = document.getElementById("callgraph-svg");
    if (!svg) return showFunctions();
    const copy = svg.cloneNode(true);
    copy.removeAttribute("id");
    copy.removeAttribute("hidden");
    copy.id = "graph-view";
    main.replaceChildren(el("div", { class: "dim" }, "as profview graph draws it: about 30 functions; " +
      "a node opens its function"), copy);
  }

  function route() {
    const h = location.hash.replace(/^#/, "");
    let on = "functions";
    if (h.startsWith("f/")) { showFunction(Number(h.slice(2))); on = ""; }
    else if (h === "tree") { showTree(); on = "tree"; }
    else if (h === "graph") { showGraph(); on = "graph"; }
    else if (h.startsWith("flame")) {
      const [, t, k] = h.split("/");
      showFlame(Number(t) || 0, Number(k) || 0);
      on = "flame";
    }
    else showFunctions();
    for (const id of ["functions", "tree", "flame", "graph"]) {
      const a = document.getElementById("nav-" + id);
      if (a) a.classList.toggle("on", id === on);
    }
  }
  window.addEventListener("hashchange", route);
  route();
})();
