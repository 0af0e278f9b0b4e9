// Drives the page profview html writes, in jsdom (its scripts run as in a
// browser), and prints what a user sees, as JSON, for tests/lib/exports.py
// to compare with profview report:
//   node html_check.js NPM_DIR PAGE.html FUNCTION FILTER
// FUNCTION: one to open (its callers, callees, source); FILTER: a name
// filter to type.
"use strict";
const [npm, page, fname, filter] = process.argv.slice(2);
const { JSDOM } = require(npm + "/node_modules/jsdom");
const fs = require("fs");

const dom = new JSDOM(fs.readFileSync(page, "utf8"), {
  runScripts: "dangerously",
  url: "file:///report.html",
  beforeParse(w) { w.scrollTo = () => {}; }, // jsdom lays nothing out
});
const { window } = dom;
const doc = window.document;
const errors = [];
window.addEventListener("error", (e) => errors.push(String(e.message)));
const out = { errors };
const rows = () => [...doc.querySelectorAll("#fn-table tbody tr")];
const cell = (tr, k) => tr.children[k].textContent;
const num = (s) => Number(s.replace(/[,%]/g, ""));
const route = (hash) => { window.location.hash = hash; window.dispatchEvent(new window.HashChangeEvent("hashchange")); };

out.meta = doc.querySelector("header .meta").textContent;
out.count = doc.getElementById("count").textContent;
out.list = rows().map((tr) => ({ name: cell(tr, 0), calls: num(cell(tr, 2)), self: num(cell(tr, 3)), incl: num(cell(tr, 5)) }));
out.columns = [...doc.querySelectorAll("#fn-table th")].map((th) => th.textContent);
out.cells = rows().slice(0, 50).map((tr) => [...tr.children].map((td) => td.textContent));

// sort by calls: a click sorts descending, a second ascending
const th = (col) => doc.querySelector(`th[data-col=${col}]`);
th("calls").click();
out.by_calls_desc = rows().map((tr) => num(cell(tr, 2)));
th("calls").click();
out.by_calls_asc = rows().map((tr) => num(cell(tr, 2)));
th("name").click();
out.by_name = rows().map((tr) => cell(tr, 0));

// type a filter
const box = doc.getElementById("filter");
box.value = filter;
box.dispatchEvent(new window.Event("input"));
out.filtered = rows().map((tr) => cell(tr, 0));

// all of them: the list shows the first 200 until asked
box.value = "";
box.dispatchEvent(new window.Event("input"));
const all = doc.getElementById("show-all");
if (all) all.click();
out.shown_all = rows().length;

// open a function by clicking its link in the list
const link = [...doc.querySelectorAll("#fn-table a.fn")].find((a) => a.textContent === fname);
if (link) route(link.getAttribute("href"));
out.opened = doc.getElementById("fn-name") ? doc.getElementById("fn-name").firstChild.textContent : null;
out.stats = Object.fromEntries([...doc.querySelectorAll("#stats tr")].map((tr) => [cell(tr, 0), cell(tr, 1)]));
const arcs = (id) => [...doc.querySelectorAll(`#${id} tbody tr`)].map((tr) => ({ name: cell(tr, 0), calls: num(cell(tr, 1)) }));
out.callers = doc.getElementById("callers") ? arcs("callers") : null;
out.callees = doc.getElementById("callees") ? arcs("callees") : null;
out.source = [...doc.querySelectorAll(".src-line")].map((l) => ({
  line: Number(l.getAttribute("data-line")),
  mark: l.querySelector(".mark").textContent,
  pct: l.querySelector(".pct").textContent,
  text: l.querySelector(".text").textContent,
}));

out.disasm = [...doc.querySelectorAll(".block-head")].map((b) => b.textContent);

// the call tree: the hot path is open; a closed row opens on a click
route("#tree");
out.tree_threads = [...doc.querySelectorAll("#tree-view h2")].map((h) => h.textContent);
out.tree_first = [...doc.querySelectorAll(".tree-row")].slice(0, 4).map((r) => r.querySelector("a.fn") ? r.querySelector("a.fn").textContent : "?");
const closed = [...doc.querySelectorAll(".tree-row .tog")].find((t) => t.textContent === "\u25b8");
if (closed) {
  const before = doc.querySelectorAll(".tree-row").length;
  closed.click();
  out.tree_opened = doc.querySelectorAll(".tree-row").length - before;
}
// every row open: the recursive calls show where they were made
for (let i = 0; i < 2000; i++) {
  const t = [...doc.querySelectorAll(".tree-row .tog")].find((x) => x.textContent === "\u25b8");
  if (!t) break;
  t.click();
}
out.tree_rows = doc.querySelectorAll(".tree-row").length;
out.tree_recursive_rows = doc.querySelectorAll(".tree-row.rec").length;
const data = JSON.parse(doc.getElementById("profile-data").textContent);
out.nodes = data.threads.reduce((s, t) => s + t.nodes.length - 1, 0);
out.recursive_edges = data.threads.reduce((s, t) => s + t.recursive.length, 0);

// the flame graph: the whole thread at the base; a click on a box makes
// it the base
route("#flame/0/0");
const boxes = () => [...doc.querySelectorAll(".flame-box")];
const base = () => { const rows = doc.querySelectorAll(".flame-row"); return rows.length ? rows[rows.length - 1].textContent : null; };
out.flame_boxes = boxes().length;
out.flame_base = base();
const named = boxes().find((b) => b.textContent && b.textContent !== "all");
if (named) {
  out.flame_clicked = named.textContent;
  route(named.getAttribute("href"));
  out.flame_new_base = base();
}
// the call graph Graphviz drew: its nodes open their functions
out.graph = !!doc.getElementById("nav-graph");
if (out.graph) {
  route("#graph");
  const nodes = [...doc.querySelectorAll("#graph-view g.node")];
  out.graph_nodes = nodes.length;
  const withLink = nodes.find((g) => g.querySelector("a"));
  if (withLink) {
    const a = withLink.querySelector("a");
    const href = a.getAttribute("xlink:href") || a.getAttribute("href");
    out.graph_node_name = withLink.querySelector("text").textContent;
    route(href);
    out.graph_opened = doc.getElementById("fn-name") ? doc.getElementById("fn-name").firstChild.textContent : null;
  }
}
console.log(JSON.stringify(out));
