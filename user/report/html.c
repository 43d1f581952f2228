// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML view: one self-contained page (inline CSS and JavaScript, no network) with the
 * aggregated samples embedded as JSON.  The page builds the call tree in the browser and draws an
 * interactive flame graph (click to zoom, regex search with the matched share, hover tooltip with
 * counts and percentages) and the inverted (callers / icicle) view, optionally with one root per
 * thread, a timeline of the samples per thread over which a time range is selected (the views are
 * then rebuilt from that range's samples), and the top functions by self as the text view has
 * them.  A page may hold several views of one recording (CPU samples, off-CPU time, wall-clock
 * samples: report/html_views.c), each with its own frames and samples, and buttons that switch
 * everything between them.  Opening it with "#selftest" makes the page exercise those interactions
 * in every view and report in the DOM.
 */
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "report/report.h"
#include "report/views.h"

static const char page_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<title>lfr flame graph</title>\n"
    "<style>\n"
    "body { margin: 0; font: 12px system-ui, sans-serif; color: #222; background: #fff; }\n"
    "header { padding: 8px 12px; border-bottom: 1px solid #ddd; display: flex; flex-wrap: wrap; "
    "gap: 8px; align-items: center; }\n"
    "header h1 { font-size: 14px; margin: 0 12px 0 0; }\n"
    "header .info { color: #555; }\n"
    "button, input { font: inherit; }\n"
    "button.on { background: #335; color: #fff; }\n"
    "#views { margin-right: 8px; }\n"
    "#search { width: 220px; }\n"
    "#match { color: #a30; }\n"
    "#crumbs { padding: 4px 12px; color: #555; min-height: 16px; }\n"
    "#graph { position: relative; margin: 0 12px 12px; overflow: hidden; }\n"
    ".f { position: absolute; height: 15px; line-height: 15px; overflow: hidden; white-space: "
    "nowrap;\n"
    "     text-overflow: ellipsis; padding: 0 2px; box-sizing: border-box; border-right: 1px solid "
    "#fff;\n"
    "     border-bottom: 1px solid #fff; cursor: pointer; font-size: 11px; }\n"
    ".f.dim { opacity: 0.45; }\n"
    ".f.hl { background: #e0f !important; color: #fff; }\n"
    "#tlbar { padding: 4px 12px; color: #555; }\n"
    "#timeline { display: block; margin: 0 12px 6px; cursor: crosshair; }\n"
    "#top { margin: 0 12px 12px; border-collapse: collapse; }\n"
    "#top td, #top th { padding: 1px 8px; text-align: right; }\n"
    "#top td:last-child, #top th:last-child { text-align: left; }\n"
    "h2 { font-size: 13px; margin: 8px 12px 4px; }\n"
    "#diff, #gone { margin: 0 12px 12px; border-collapse: collapse; }\n"
    "#diff td, #diff th, #gone td, #gone th { padding: 1px 8px; text-align: right; }\n"
    "#diff td:last-child, #gone td:last-child { text-align: left; }\n"
    ".grew { color: #b00; } .shrank { color: #03b; }\n"
    "#tip { position: fixed; display: none; pointer-events: none; background: #fffbe8; border: 1px "
    "solid #998;\n"
    "       padding: 4px 6px; max-width: 600px; box-shadow: 1px 1px 4px #0003; z-index: 10; "
    "white-space: pre-wrap; }\n"
    "</style>\n"
    "</head>\n"
    "<body>\n"
    "<header>\n"
    "<h1>lfr flame graph</h1>\n"
    "<span id=\"views\" hidden></span>\n"
    "<span class=\"info\" id=\"info\"></span>\n"
    "<button id=\"b-flame\" class=\"on\">Flame graph</button>\n"
    "<button id=\"b-callers\">Callers (inverted)</button>\n"
    "<label><input type=\"checkbox\" id=\"b-threads\"> per thread</label>\n"
    "<button id=\"b-reset\">Reset zoom</button>\n"
    "<input id=\"search\" placeholder=\"Search (regex)\" autocomplete=\"off\">\n"
    "<select id=\"trace\" title=\"only the samples of one trace (lfr.TraceContext)\" "
    "hidden></select>\n"
    "<span id=\"match\"></span>\n"
    "</header>\n"
    "<div id=\"tlbar\"><span id=\"range\"></span> <button id=\"b-all\">All time</button></div>\n"
    "<canvas id=\"timeline\" height=\"20\"></canvas>\n"
    "<div id=\"crumbs\"></div>\n"
    "<div id=\"graph\"></div>\n"
    "<div id=\"diffbox\" hidden>\n"
    "<h2>Largest changes of self share (NEW against BASE, percentage points)</h2>\n"
    "<table id=\"diff\"><thead><tr><th>Base self</th><th>New self</th><th>&Delta; "
    "self</th><th>Base total</th><th>New total</th><th>&Delta; "
    "total</th><th>Function</th></tr></thead><tbody></tbody></table>\n"
    "<h2>Only in BASE</h2>\n"
    "<table id=\"gone\"><thead><tr><th>Base self</th><th>Base "
    "total</th><th>Function</th></tr></thead><tbody></tbody></table>\n"
    "</div>\n"
    "<h2>Top functions by self</h2>\n"
    "<table id=\"top\"><thead><tr><th>Self</th><th>%</th><th>Total</th><th>%</th>"
    "<th>Function</th></tr></thead><tbody></tbody></table>\n"
    "<div id=\"tip\"></div>\n"
    "<div id=\"status\" hidden></div>\n"
    "<script id=\"data\" type=\"application/json\">";

static const char page_tail[] =
    "</script>\n"
    "<script>\n"
    "\"use strict\";\n"
    "(function () {\n"
    "// The page's views (CPU samples, off-CPU time, wall-clock samples, ...), each with its own "
    "frames,\n"
    "// stacks and samples: D is the one shown.  The URL's hash holds words joined by \"+\": "
    "selftest,\n"
    "// callers, and the id of the view to open with.\n"
    "const VIEWS = JSON.parse(document.getElementById(\"data\").textContent).views;\n"
    "const HASH = location.hash.slice(1).split(\"+\");\n"
    "let view = Math.max(0, VIEWS.findIndex(v => HASH.includes(v.id)));\n"
    "let D = VIEWS[view];\n"
    "const H = 16, KINDS = [\"Java\", \"Native\", \"C++\", \"Kernel\"];\n"
    "let inverted = false, perThread = false, zoom = null, tree = null, query = null;\n"
    "const graph = document.getElementById(\"graph\"), tip = document.getElementById(\"tip\");\n"
    "const nodes = [];\n"
    "// With --diff, D.base holds BASE's stacks: every frame of NEW's tree is given the change of "
    "its\n"
    "// share of all samples at the same call path (n.delta, NEW's share minus BASE's), and "
    "coloured\n"
    "// by it: red grew, blue shrank, the stronger the larger.  Frames are matched by name, "
    "object\n"
    "// and kind.\n"
    "const B = D.base || null;\n"
    "let maxDelta = 0;\n"
    "const baseTrees = [null, null];\n"
    "function fkey(name, obj, kind) { return name + \"\\u0001\" + (obj || \"\") + \"\\u0001\" + "
    "kind; }\n"
    "const keyOf = D.frames.map((n, i) => fkey(n, D.objects[i], D.kinds[i]));\n"
    "const baseKey = B ? B.frames.map((n, i) => fkey(n, B.objects[i], B.kinds[i])) : [];\n"
    "function baseTree() {\n"
    "  const ix = inverted ? 1 : 0;\n"
    "  if (baseTrees[ix]) return baseTrees[ix];\n"
    "  const root = { v: 0, c: new Map() };\n"
    "  B.stacks.forEach((st, i) => {\n"
    "    const v = B.values[i];\n"
    "    let n = root;\n"
    "    root.v += v;\n"
    "    const path = inverted ? st : st.slice().reverse();\n"
    "    for (const f of path) {\n"
    "      const k = baseKey[f];\n"
    "      let ch = n.c.get(k);\n"
    "      if (!ch) { ch = { v: 0, c: new Map() }; n.c.set(k, ch); }\n"
    "      ch.v += v;\n"
    "      n = ch;\n"
    "    }\n"
    "  });\n"
    "  return (baseTrees[ix] = root);\n"
    "}\n"
    "function annotate(t) {\n"
    "  const b = baseTree();\n"
    "  maxDelta = 0;\n"
    "  (function walk(n, bn) {\n"
    "    n.b = bn ? bn.v : 0;\n"
    "    n.delta = (t.v ? n.v / t.v : 0) - (b.v ? n.b / b.v : 0);\n"
    "    if (n !== t) maxDelta = Math.max(maxDelta, Math.abs(n.delta));\n"
    "    for (const [k, ch] of n.c) walk(ch, bn && k >= 0 ? bn.c.get(keyOf[k]) : null);\n"
    "  })(t, b);\n"
    "}\n"
    "function diffColor(n) {\n"
    "  const d = n.delta || 0, t = maxDelta ? Math.min(1, Math.abs(d) / maxDelta) : 0;\n"
    "  if (Math.abs(d) < 1e-4) return \"hsl(0,0%,88%)\";\n"
    "  return (d > 0 ? \"hsl(0,85%,\" : \"hsl(220,85%,\") + (90 - 45 * t).toFixed(1) + \"%)\";\n"
    "}\n"
    "function signed(d) { return (d >= 0 ? \"+\" : \"\") + (100 * d).toFixed(2); }\n"
    "\n"
    "function build() {\n"
    "  const root = { name: \"all\", kind: -1, v: 0, c: new Map(), p: null, d: 0 };\n"
    "  const samples = selectedSamples();\n"
    "  for (let i = 0; i < samples.length; i++) {\n"
    "    const s = samples[i], st = D.stacks[s[0]], v = s[2];\n"
    "    let n = root;\n"
    "    root.v += v;\n"
    "    const path = [];\n"
    "    if (perThread) path.push(-1 - s[1]);\n"
    "    if (inverted) for (let k = 0; k < st.length; k++) path.push(st[k]);\n"
    "    else for (let k = st.length - 1; k >= 0; k--) path.push(st[k]);\n"
    "    for (const f of path) {\n"
    "      let ch = n.c.get(f);\n"
    "      if (!ch) {\n"
    "        const name = f < 0 ? D.threads[-1 - f] : D.frames[f];\n"
    "        ch = { name: name, kind: f < 0 ? -2 : D.kinds[f], v: 0, c: new Map(), p: n, d: n.d + "
    "1 };\n"
    "        n.c.set(f, ch);\n"
    "      }\n"
    "      ch.v += v;\n"
    "      n = ch;\n"
    "    }\n"
    "  }\n"
    "  return root;\n"
    "}\n"
    "\n"
    "function hash(s) {\n"
    "  let h = 2166136261;\n"
    "  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);\n"
    "  return (h >>> 0) / 4294967296;\n"
    "}\n"
    "\n"
    "function color(n) {\n"
    "  if (B && n.kind !== -1) return diffColor(n);\n"
    "  const r = hash(n.name);\n"
    "  switch (n.kind) {\n"
    "  case -1: return \"hsl(0,0%,80%)\";\n"
    "  case -2: return \"hsl(210,30%,\" + (72 + 10 * r) + \"%)\";\n"
    "  case 1: return \"hsl(\" + (35 + 10 * r) + \",85%,\" + (60 + 10 * r) + \"%)\";\n"
    "  case 2: return \"hsl(\" + (55 + 8 * r) + \",75%,\" + (55 + 10 * r) + \"%)\";\n"
    "  case 3: return \"hsl(\" + (5 + 10 * r) + \",75%,\" + (62 + 10 * r) + \"%)\";\n"
    "  default: return \"hsl(\" + (95 + 40 * r) + \",55%,\" + (55 + 12 * r) + \"%)\";\n"
    "  }\n"
    "}\n"
    "\n"
    "function pct(v, t) { return t ? (100 * v / t).toFixed(2) + \"%\" : \"0%\"; }\n"
    "// A value with the view's unit; time in ns is also given in s, ms or us, which a reader "
    "takes in.\n"
    "function amount(v) {\n"
    "  const s = v.toLocaleString() + \" \" + D.unit;\n"
    "  if (D.unit !== \"ns\") return s;\n"
    "  const [d, u] = v >= 1e9 ? [1e9, \" s\"] : v >= 1e6 ? [1e6, \" ms\"] : [1e3, \" "
    "\\u00b5s\"];\n"
    "  return s + \" (\" + (v / d).toFixed(3) + u + \")\";\n"
    "}\n"
    "\n"
    "function maxDepth(n, w, scale) {\n"
    "  let m = n.d;\n"
    "  for (const c of n.c.values()) if (c.v * scale >= 0.5) m = Math.max(m, maxDepth(c, w, "
    "scale));\n"
    "  return m;\n"
    "}\n"
    "\n"
    "function render() {\n"
    "  const W = Math.max(graph.clientWidth, 300);\n"
    "  const z = zoom || tree;\n"
    "  const scale = z.v ? W / z.v : 0;\n"
    "  const depth = maxDepth(z, W, scale);\n"
    "  const rows = depth + 1;\n"
    "  graph.style.height = rows * H + \"px\";\n"
    "  graph.textContent = \"\";\n"
    "  nodes.length = 0;\n"
    "  const frag = document.createDocumentFragment();\n"
    "  const re = query;\n"
    "  function y(d) { return inverted ? d * H : (depth - d) * H; }\n"
    "  function put(n, x, w, dim) {\n"
    "    const el = document.createElement(\"div\");\n"
    "    el.className = \"f\" + (dim ? \" dim\" : \"\") + (re && re.test(n.name) ? \" hl\" : "
    "\"\");\n"
    "    el.style.left = x + \"px\";\n"
    "    el.style.top = y(n.d) + \"px\";\n"
    "    el.style.width = w + \"px\";\n"
    "    el.style.background = color(n);\n"
    "    el.dataset.i = nodes.length;\n"
    "    el.textContent = w > 20 ? n.name : \"\";\n"
    "    nodes.push(n);\n"
    "    frag.appendChild(el);\n"
    "  }\n"
    "  for (let a = z.p; a; a = a.p) put(a, 0, W, true);\n"
    "  (function walk(n, x) {\n"
    "    const w = n.v * scale;\n"
    "    if (w < 0.5) return;\n"
    "    put(n, x, w, false);\n"
    "    let cx = x;\n"
    "    const kids = Array.from(n.c.values()).sort((p, q) => p.name < q.name ? -1 : p.name > "
    "q.name ? 1 : 0);\n"
    "    for (const c of kids) { walk(c, cx); cx += c.v * scale; }\n"
    "  })(z, 0);\n"
    "  graph.appendChild(frag);\n"
    "  const crumbs = [];\n"
    "  for (let a = z; a; a = a.p) crumbs.unshift(a.name);\n"
    "  document.getElementById(\"crumbs\").textContent = zoom ? \"Zoomed: \" + crumbs.join(\" "
    "\\u203a \") : \"\";\n"
    "  updateMatch();\n"
    "}\n"
    "\n"
    "function updateMatch() {\n"
    "  const m = document.getElementById(\"match\");\n"
    "  if (!query) { m.textContent = \"\"; return; }\n"
    "  let sum = 0;\n"
    "  (function walk(n, under) {\n"
    "    const hit = !under && n.kind !== -1 && query.test(n.name);\n"
    "    if (hit) sum += n.v;\n"
    "    for (const c of n.c.values()) walk(c, under || hit);\n"
    "  })(tree, false);\n"
    "  m.textContent = \"Matched: \" + amount(sum) + \" (\" + pct(sum, "
    "tree.v) + \")\";\n"
    "}\n"
    "\n"
    "function rebuild() {\n"
    "  tree = build();\n"
    "  if (B) annotate(tree);\n"
    "  drawTop(selectedSamples());\n"
    "  if (B) drawDiff(selectedSamples());\n"
    "  zoom = null;\n"
    "  render();\n"
    "  if (!tree.v) {\n"
    "    graph.style.height = \"auto\";\n"
    "    graph.textContent = \"No samples to show: the file has none of the selected event type, "
    "or none pass the filters.\";\n"
    "  }\n"
    "}\n"
    "\n"
    "graph.addEventListener(\"click\", e => {\n"
    "  const i = e.target.dataset && e.target.dataset.i;\n"
    "  if (i === undefined) return;\n"
    "  const n = nodes[+i];\n"
    "  zoom = n === tree ? null : n;\n"
    "  render();\n"
    "});\n"
    "graph.addEventListener(\"mousemove\", e => {\n"
    "  const i = e.target.dataset && e.target.dataset.i;\n"
    "  if (i === undefined) { tip.style.display = \"none\"; return; }\n"
    "  const n = nodes[+i];\n"
    "  let self = n.v;\n"
    "  for (const c of n.c.values()) self -= c.v;\n"
    "  const z = zoom || tree;\n"
    "  tip.textContent = n.name + (n.kind >= 0 ? \"  [\" + KINDS[n.kind] + \"]\" : \"\") + \"\\n\" "
    "+\n"
    "    amount(n.v) + \" (\" + pct(n.v, tree.v) + \" of all\" +\n"
    "    (zoom ? \", \" + pct(n.v, z.v) + \" of zoomed\" : \"\") + \")\\nself: \" + "
    "amount(self) +\n"
    "    \" (\" + pct(self, tree.v) + \")\" + (inverted ? \"\\ninverted: frames below are "
    "callers\" : \"\") +\n"
    "    (B ? \"\\nBASE: \" + pct(n.b, baseTree().v) + \" \\u2192 NEW: \" + pct(n.v, tree.v) + \" "
    "(\" + signed(n.delta) + \" pp)\" : \"\");\n"
    "  tip.style.display = \"block\";\n"
    "  const tx = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 4);\n"
    "  const ty = e.clientY + 16 + tip.offsetHeight > window.innerHeight ? e.clientY - "
    "tip.offsetHeight - 8 : e.clientY + 16;\n"
    "  tip.style.left = Math.max(0, tx) + \"px\";\n"
    "  tip.style.top = Math.max(0, ty) + \"px\";\n"
    "});\n"
    "graph.addEventListener(\"mouseleave\", () => { tip.style.display = \"none\"; });\n"
    "function mode(inv) {\n"
    "  inverted = inv;\n"
    "  document.getElementById(\"b-flame\").classList.toggle(\"on\", !inv);\n"
    "  document.getElementById(\"b-callers\").classList.toggle(\"on\", inv);\n"
    "  rebuild();\n"
    "}\n"
    "document.getElementById(\"b-flame\").onclick = () => mode(false);\n"
    "document.getElementById(\"b-callers\").onclick = () => mode(true);\n"
    "document.getElementById(\"b-threads\").onchange = e => { perThread = e.target.checked; "
    "rebuild(); };\n"
    "document.getElementById(\"b-reset\").onclick = () => { zoom = null; render(); };\n"
    "document.getElementById(\"search\").addEventListener(\"input\", e => {\n"
    "  const q = e.target.value;\n"
    "  if (!q) query = null;\n"
    "  else {\n"
    "    try { query = new RegExp(q); }\n"
    "    catch (err) { query = new RegExp(q.replace(/[.*+?^${}()|[\\]\\\\]/g, \"\\\\$&\")); }\n"
    "  }\n"
    "  render();\n"
    "});\n"
    "document.addEventListener(\"keydown\", e => {\n"
    "  if (e.key === \"Escape\") { zoom = null; render(); }\n"
    "  if (e.key === \"f\" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); "
    "document.getElementById(\"search\").focus(); }\n"
    "});\n"
    "window.addEventListener(\"resize\", () => { drawTimeline(); render(); });\n"
    "// The timeline: samples per time bucket for each thread (the busiest first); dragging over "
    "it\n"
    "// selects a time range, and the flame graph and the top functions are rebuilt from the "
    "samples in\n"
    "// it (D.timed: [bucket, stack, thread, value]).\n"
    "let range = null;\n"
    "const tl = document.getElementById(\"timeline\"), tlc = tl.getContext(\"2d\");\n"
    "const TL_ROW = 14, TL_LABEL = 160, tlThreads = [];\n"
    "// the busiest threads of the view shown\n"
    "function tlRank() {\n"
    "  const per = new Map();\n"
    "  tlThreads.length = 0;\n"
    "  for (const s of D.timed) per.set(s[2], (per.get(s[2]) || 0) + s[3]);\n"
    "  for (const [t, v] of per) tlThreads.push([t, v]);\n"
    "  tlThreads.sort((a, b) => b[1] - a[1] || a[0] - b[0]);\n"
    "  tlThreads.length = Math.min(tlThreads.length, 12);\n"
    "}\n"
    "tlRank();\n"
    "function tlX(b) { return TL_LABEL + b * (tl.width - TL_LABEL) / D.buckets; }\n"
    "function drawTimeline() {\n"
    "  tl.width = Math.max(graph.clientWidth, 300);\n"
    "  tl.height = (tlThreads.length + 1) * TL_ROW + 4;\n"
    "  const row = new Map(tlThreads.map((t, i) => [t[0], i]));\n"
    "  const cells = tlThreads.map(() => new Float64Array(D.buckets));\n"
    "  const all = new Float64Array(D.buckets);\n"
    "  for (const s of D.timed) {\n"
    "    all[s[0]] += s[3];\n"
    "    const r = row.get(s[2]);\n"
    "    if (r !== undefined) cells[r][s[0]] += s[3];\n"
    "  }\n"
    "  let max = 0;\n"
    "  for (const c of cells) for (const v of c) max = Math.max(max, v);\n"
    "  tlc.clearRect(0, 0, tl.width, tl.height);\n"
    "  tlc.font = \"11px system-ui, sans-serif\";\n"
    "  const bw = (tl.width - TL_LABEL) / D.buckets;\n"
    "  function line(i, name, c, m) {\n"
    "    tlc.fillStyle = \"#222\";\n"
    "    tlc.fillText(name.length > 26 ? name.slice(0, 25) + \"\\u2026\" : name, 2, i * TL_ROW + "
    "11);\n"
    "    for (let b = 0; b < D.buckets; b++) {\n"
    "      if (!c[b]) continue;\n"
    "      tlc.fillStyle = \"hsl(210,60%,\" + (85 - 50 * c[b] / m) + \"%)\";\n"
    "      tlc.fillRect(tlX(b), i * TL_ROW + 1, Math.max(bw, 1), TL_ROW - 2);\n"
    "    }\n"
    "  }\n"
    "  line(0, \"all threads\", all, Math.max(...all, 1));\n"
    "  tlThreads.forEach((t, i) => line(i + 1, D.threads[t[0]], cells[i], max || 1));\n"
    "  if (range) {\n"
    "    tlc.fillStyle = \"rgba(255,160,0,0.25)\";\n"
    "    tlc.fillRect(tlX(range[0]), 0, tlX(range[1] + 1) - tlX(range[0]), tl.height);\n"
    "  }\n"
    "  const r = range || [0, D.buckets - 1];\n"
    "  document.getElementById(\"range\").textContent = range ?\n"
    "    \"Selected \" + (r[0] * D.bucketNs / 1e9).toFixed(3) + \" s \\u2013 \" +\n"
    "    ((r[1] + 1) * D.bucketNs / 1e9).toFixed(3) + \" s\" : \"Drag over the timeline to select "
    "a time range\";\n"
    "}\n"
    "function setRange(b0, b1) {\n"
    "  range = b0 === null ? null : [Math.min(b0, b1), Math.max(b0, b1)];\n"
    "  drawTimeline();\n"
    "  rebuild();\n"
    "}\n"
    "function tlBucket(e) {\n"
    "  const x = e.clientX - tl.getBoundingClientRect().left;\n"
    "  return Math.max(0, Math.min(D.buckets - 1, Math.floor((x - TL_LABEL) * D.buckets / "
    "(tl.width - TL_LABEL))));\n"
    "}\n"
    "let dragFrom = null;\n"
    "tl.addEventListener(\"mousedown\", e => { dragFrom = tlBucket(e); });\n"
    "tl.addEventListener(\"mouseup\", e => {\n"
    "  if (dragFrom === null) return;\n"
    "  const b = tlBucket(e);\n"
    "  setRange(dragFrom, b);\n"
    "  dragFrom = null;\n"
    "});\n"
    "document.getElementById(\"b-all\").onclick = () => setRange(null);\n"
    "// The samples the views use: all of them, or those of the selected range; of the trace "
    "chosen\n"
    "// (D.contexts[s[3]]: [trace id, span id, attributes]; 0 is no context), or of every one.\n"
    "let trace = null;\n"
    "function inTrace(c) { return trace === null || (c > 0 && D.contexts[c][0] === trace); }\n"
    "function selectedSamples() {\n"
    "  if (!range && trace === null) return D.samples;\n"
    "  const out = [];\n"
    "  if (!range) { for (const s of D.samples) if (inTrace(s[3])) out.push(s); return out; }\n"
    "  for (const s of D.timed) if (s[0] >= range[0] && s[0] <= range[1] && inTrace(s[4]))\n"
    "    out.push([s[1], s[2], s[3], s[4]]);\n"
    "  return out;\n"
    "}\n"
    "// The trace list of the view shown: its traces by their samples, none when it has none.\n"
    "const traceSel = document.getElementById(\"trace\");\n"
    "function fillTraces() {\n"
    "  const per = new Map();\n"
    "  for (const s of D.samples) if (s[3] > 0) {\n"
    "    const t = D.contexts[s[3]][0];\n"
    "    per.set(t, (per.get(t) || 0) + s[2]);\n"
    "  }\n"
    "  if (trace !== null && !per.has(trace)) trace = null;\n"
    "  traceSel.textContent = \"\";\n"
    "  const all = document.createElement(\"option\");\n"
    "  all.value = \"\";\n"
    "  all.textContent = \"all traces (\" + per.size + \")\";\n"
    "  traceSel.appendChild(all);\n"
    "  for (const [t, v] of Array.from(per).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : "
    "1))) {\n"
    "    const o = document.createElement(\"option\");\n"
    "    o.value = t;\n"
    "    o.textContent = \"trace \" + t + \" (\" + amount(v) + \")\";\n"
    "    traceSel.appendChild(o);\n"
    "  }\n"
    "  traceSel.value = trace === null ? \"\" : trace;\n"
    "  traceSel.hidden = !per.size;\n"
    "}\n"
    "function setTrace(t) { trace = t || null; traceSel.value = t || \"\"; rebuild(); }\n"
    "traceSel.onchange = () => setTrace(traceSel.value);\n"
    "// The text view's top functions: self = leaf, total = on the stack (once per sample).\n"
    "function drawTop(samples) {\n"
    "  const self = new Map(), total = new Map();\n"
    "  let sum = 0;\n"
    "  for (const s of samples) {\n"
    "    const st = D.stacks[s[0]], v = s[2];\n"
    "    sum += v;\n"
    "    if (!st.length) continue;\n"
    "    self.set(st[0], (self.get(st[0]) || 0) + v);\n"
    "    const seen = new Set(st);\n"
    "    for (const f of seen) total.set(f, (total.get(f) || 0) + v);\n"
    "  }\n"
    "  const rows = Array.from(total.keys()).map(f => [f, self.get(f) || 0, total.get(f)]);\n"
    "  rows.sort((a, b) => b[1] - a[1] || b[2] - a[2] || (D.frames[a[0]] < D.frames[b[0]] ? -1 : "
    "1));\n"
    "  const tb = document.querySelector(\"#top tbody\");\n"
    "  tb.textContent = \"\";\n"
    "  for (const [f, s, t] of rows.slice(0, 20)) {\n"
    "    const tr = document.createElement(\"tr\");\n"
    "    for (const c of [s.toLocaleString(), pct(s, sum), t.toLocaleString(), pct(t, sum), "
    "D.frames[f] +\n"
    "                     (D.kinds[f] === 3 ? \" [kernel]\" : D.objects[f] ? \"  (\" + "
    "D.objects[f] + \")\" : "
    "\"\")]) {\n"
    "      const td = document.createElement(\"td\");\n"
    "      td.textContent = c;\n"
    "      tr.appendChild(td);\n"
    "    }\n"
    "    tr.dataset.self = s;\n"
    "    tr.dataset.total = t;\n"
    "    tb.appendChild(tr);\n"
    "  }\n"
    "}\n"
    "// The functions whose share changed most: self and total as drawTop counts them, in NEW's\n"
    "// selected samples and in all of BASE's.\n"
    "function shares(stacks, keys, list) {\n"
    "  const self = new Map(), total = new Map();\n"
    "  let sum = 0;\n"
    "  for (const [st, v] of list) {\n"
    "    sum += v;\n"
    "    if (!st.length) continue;\n"
    "    self.set(keys[st[0]], (self.get(keys[st[0]]) || 0) + v);\n"
    "    for (const k of new Set(st.map(f => keys[f]))) total.set(k, (total.get(k) || 0) + v);\n"
    "  }\n"
    "  return { self: self, total: total, sum: sum };\n"
    "}\n"
    "function drawDiff(samples) {\n"
    "  const n = shares(D.stacks, keyOf, samples.map(s => [D.stacks[s[0]], s[2]]));\n"
    "  const b = shares(B.stacks, baseKey, B.stacks.map((st, i) => [st, B.values[i]]));\n"
    "  const fr = (m, k) => (m.get(k) || 0);\n"
    "  const share = (v, t) => t ? v / t : 0;\n"
    "  const rows = [];\n"
    "  for (const k of new Set([...n.total.keys(), ...b.total.keys()])) {\n"
    "    const r = { k: k, bs: share(fr(b.self, k), b.sum), ns: share(fr(n.self, k), n.sum),\n"
    "                bt: share(fr(b.total, k), b.sum), nt: share(fr(n.total, k), n.sum) };\n"
    "    r.ds = r.ns - r.bs;\n"
    "    r.dt = r.nt - r.bt;\n"
    "    rows.push(r);\n"
    "  }\n"
    "  rows.sort((p, q) => Math.abs(q.ds) - Math.abs(p.ds) || Math.abs(q.dt) - Math.abs(p.dt) ||\n"
    "            (p.k < q.k ? -1 : p.k > q.k ? 1 : 0));\n"
    "  function label(k) {\n"
    "    const [name, obj, kind] = k.split(\"\\u0001\");\n"
    "    return name + (kind === \"3\" ? \" [kernel]\" : obj ? \"  (\" + obj + \")\" : \"\");\n"
    "  }\n"
    "  function fill(id, list, cells) {\n"
    "    const tb = document.querySelector(\"#\" + id + \" tbody\");\n"
    "    tb.textContent = \"\";\n"
    "    for (const r of list) {\n"
    "      const tr = document.createElement(\"tr\");\n"
    "      for (const [text, cls] of cells(r)) {\n"
    "        const td = document.createElement(\"td\");\n"
    "        td.textContent = text;\n"
    "        if (cls) td.className = cls;\n"
    "        tr.appendChild(td);\n"
    "      }\n"
    "      tr.dataset.name = r.k.split(\"\\u0001\")[0];\n"
    "      tr.dataset.dself = (100 * r.ds).toFixed(4);\n"
    "      tr.dataset.dtotal = (100 * r.dt).toFixed(4);\n"
    "      tb.appendChild(tr);\n"
    "    }\n"
    "  }\n"
    "  const cls = d => d > 0 ? \"grew\" : d < 0 ? \"shrank\" : \"\";\n"
    "  fill(\"diff\", rows.filter(r => r.bs || r.ns).slice(0, 20), r => [[pct(r.bs, 1)], "
    "[pct(r.ns, 1)], [signed(r.ds), "
    "cls(r.ds)],\n"
    "       [pct(r.bt, 1)], [pct(r.nt, 1)], [signed(r.dt), cls(r.dt)],\n"
    "       [label(r.k) + (!r.nt ? \"  [only in BASE]\" : !r.bt ? \"  [only in NEW]\" : \"\")]]);\n"
    "  fill(\"gone\", rows.filter(r => !r.nt).sort((p, q) => q.bt - p.bt).slice(0, 50),\n"
    "       r => [[pct(r.bs, 1)], [pct(r.bt, 1)], [label(r.k)]]);\n"
    "}\n"
    "if (B) {\n"
    "  document.getElementById(\"diffbox\").hidden = false;\n"
    "  document.querySelector(\"h1\").textContent = \"lfr differential flame graph\";\n"
    "  document.getElementById(\"b-threads\").parentNode.hidden = true;\n"
    "  document.title = \"lfr diff\";\n"
    "}\n"
    "// The header: what the view shown counts, its total and unit.\n"
    "function describe() {\n"
    "  document.getElementById(\"info\").textContent = (D.label && (VIEWS.length > 1 || D.id !== "
    "\"cpu\") ? D.label + \": \" : \"\") + D.title +\n"
    "    \" \\u2014 \" + amount(D.total) + \" of \" + D.events + \", \" + D.threads.length + \" "
    "threads\" +\n"
    "    (B ? \" \\u2014 against \" + B.title + \" (\" + amount(B.total) + \"): red grew, blue "
    "shrank\" : \"\");\n"
    "  const th = document.querySelectorAll(\"#top thead th\");\n"
    "  const unit = D.unit === \"samples\" ? \"\" : \" (\" + D.unit + \")\";\n"
    "  th[0].textContent = \"Self\" + unit;\n"
    "  th[2].textContent = \"Total\" + unit;\n"
    "  if (!B) document.title = D.label && VIEWS.length > 1 ? \"lfr flame graph: \" + D.label : "
    "\"lfr flame graph\";\n"
    "}\n"
    "// With two views or more, buttons switch the page between them: the flame graph, the callers "
    "view,\n"
    "// the timeline and the top functions are rebuilt from the view's samples.  The search stays, "
    "and\n"
    "// the selected time range when both views cut the recording alike.\n"
    "function showView(i) {\n"
    "  const V = VIEWS[i];\n"
    "  if (range && (V.buckets !== D.buckets || V.bucketNs !== D.bucketNs)) range = null;\n"
    "  D = V;\n"
    "  view = i;\n"
    "  for (const b of document.querySelectorAll(\"#views button\")) b.classList.toggle(\"on\", "
    "+b.dataset.v === i);\n"
    "  tlRank();\n"
    "  describe();\n"
    "  fillTraces();\n"
    "  drawTimeline();\n"
    "  rebuild();\n"
    "}\n"
    "if (VIEWS.length > 1) {\n"
    "  const box = document.getElementById(\"views\");\n"
    "  VIEWS.forEach((v, i) => {\n"
    "    const b = document.createElement(\"button\");\n"
    "    b.id = \"v-\" + v.id;\n"
    "    b.dataset.v = i;\n"
    "    b.textContent = v.name;\n"
    "    b.title = v.label;\n"
    "    b.classList.toggle(\"on\", i === view);\n"
    "    b.onclick = () => showView(i);\n"
    "    box.appendChild(b);\n"
    "  });\n"
    "  box.hidden = false;\n"
    "}\n"
    "describe();\n"
    "perThread = D.threadRoots;\n"
    "if (HASH.includes(\"callers\")) {\n"
    "  inverted = true;\n"
    "  document.getElementById(\"b-flame\").classList.remove(\"on\");\n"
    "  document.getElementById(\"b-callers\").classList.add(\"on\");\n"
    "}\n"
    "document.getElementById(\"b-threads\").checked = perThread;\n"
    "fillTraces();\n"
    "drawTimeline();\n"
    "rebuild();\n"
    "const st = document.getElementById(\"status\");\n"
    "st.dataset.ok = \"1\";\n"
    "st.dataset.frames = String(nodes.length);\n"
    "st.textContent = \"rendered \" + nodes.length + \" frames\";\n"
    "// \"#selftest\" exercises zoom, search, hover, the callers view and a time range in each "
    "view (the\n"
    "// one the page opened with last, so that it ends as it opened), and records the outcome in "
    "the\n"
    "// DOM, for headless browser tests.\n"
    "function selftestView(fails) {\n"
    "  const rootEl = graph.querySelector(\".f\");\n"
    "  const first = Array.from(graph.querySelectorAll(\".f\")).find(el => nodes[+el.dataset.i] "
    "!== tree);\n"
    "  if (!rootEl || nodes[+rootEl.dataset.i] !== tree) fails.push(\"root frame missing\");\n"
    "  if (first) {\n"
    "    const zn = nodes[+first.dataset.i];\n"
    "    first.dispatchEvent(new MouseEvent(\"click\", { bubbles: true }));\n"
    "    if (zoom !== zn) fails.push(\"click did not zoom\");\n"
    "    if (!document.getElementById(\"crumbs\").textContent.includes(zn.name)) fails.push(\"no "
    "zoom path\");\n"
    "    const again = graph.querySelector(\".f:not(.dim)\");\n"
    "    again.dispatchEvent(new MouseEvent(\"mousemove\", { bubbles: true, clientX: 5, clientY: 5 "
    "}));\n"
    "    if (!tip.textContent.includes(\"%\")) fails.push(\"tooltip without percentage\");\n"
    "    if (!tip.textContent.includes(\" \" + D.unit + \" (\")) fails.push(\"tooltip without the "
    "unit \" + D.unit);\n"
    "    document.getElementById(\"b-reset\").click();\n"
    "    if (zoom) fails.push(\"reset did not unzoom\");\n"
    "  } else fails.push(\"no frame to zoom\");\n"
    "  const search = document.getElementById(\"search\");\n"
    "  search.value = first ? nodes[+first.dataset.i].name.replace(/[.*+?^${}()|[\\]\\\\]/g, "
    "\"\\\\$&\") : \"x\";\n"
    "  search.dispatchEvent(new Event(\"input\"));\n"
    "  if (!graph.querySelector(\".f.hl\")) fails.push(\"search highlighted nothing\");\n"
    "  if (!/Matched: .*%/.test(document.getElementById(\"match\").textContent)) fails.push(\"no "
    "match share\");\n"
    "  search.value = \"\";\n"
    "  search.dispatchEvent(new Event(\"input\"));\n"
    "  document.getElementById(\"b-callers\").click();\n"
    "  if (!inverted || !graph.querySelector(\".f\")) fails.push(\"callers view empty\");\n"
    "  st.dataset.callersFrames = String(nodes.length);\n"
    "  document.getElementById(\"b-flame\").click();\n"
    "  // a time range: the graph and the table hold exactly its samples, then all again\n"
    "  const half = Math.floor(D.buckets / 2);\n"
    "  let want = 0;\n"
    "  for (const s of D.timed) if (s[0] <= half) want += s[3];\n"
    "  setRange(0, half);\n"
    "  if (tree.v !== want) fails.push(\"range: \" + tree.v + \" samples, want \" + want);\n"
    "  if (want && !document.querySelector(\"#top tbody tr\")) fails.push(\"no top functions in "
    "range\");\n"
    "  st.dataset.rangeSamples = String(tree.v);\n"
    "  document.getElementById(\"b-all\").click();\n"
    "  if (tree.v !== D.total) fails.push(\"all time: \" + tree.v + \", want \" + D.total);\n"
    "  // a trace: the graph holds exactly the samples of its contexts, then all again\n"
    "  if (traceSel.options.length > 1) {\n"
    "    const t = traceSel.options[1].value;\n"
    "    let want = 0;\n"
    "    for (const s of D.samples) if (s[3] > 0 && D.contexts[s[3]][0] === t) want += s[2];\n"
    "    setTrace(t);\n"
    "    if (!want || tree.v !== want) fails.push(\"trace \" + t + \": \" + tree.v + \", want \" + "
    "want);\n"
    "    st.dataset.traceSamples = String(tree.v);\n"
    "    setTrace(\"\");\n"
    "    if (tree.v !== D.total) fails.push(\"all traces: \" + tree.v + \", want \" + D.total);\n"
    "  }\n"
    "  if (B) {\n"
    "    // the differential colouring: the frames that grew are drawn red, those that "
    "shrank blue\n"
    "    if (!document.querySelector(\"#diff tbody tr\")) fails.push(\"no diff rows\");\n"
    "    let grew = 0, shrank = 0;\n"
    "    for (const e of graph.querySelectorAll(\".f\")) {\n"
    "      const n = nodes[+e.dataset.i], m = /rgb\\((\\d+), (\\d+), "
    "(\\d+)/.exec(getComputedStyle(e).backgroundColor);\n"
    "      if (n === tree || !m || Math.abs(n.delta) <= 1e-4) continue;\n"
    "      const red = +m[1] > +m[3];\n"
    "      if (n.delta > 0 && red) grew++;\n"
    "      else if (n.delta < 0 && !red) shrank++;\n"
    "      else fails.push(n.name + \" changed by \" + signed(n.delta) + \" pp is drawn \" + "
    "m[0]);\n"
    "    }\n"
    "    st.dataset.grew = String(grew);\n"
    "    st.dataset.shrank = String(shrank);\n"
    "  }\n"
    "}\n"
    "if (HASH.includes(\"selftest\")) {\n"
    "  const fails = [], totals = [], opened = view;\n"
    "  const order = VIEWS.map((v, i) => i).filter(i => i !== opened).concat([opened]);\n"
    "  for (const i of order) {\n"
    "    const name = VIEWS.length > 1 ? VIEWS[i].id + \": \" : \"\";\n"
    "    if (VIEWS.length > 1) {\n"
    "      document.getElementById(\"v-\" + VIEWS[i].id).click();\n"
    "      if (D !== VIEWS[i] || view !== i) fails.push(name + \"its button did not show it\");\n"
    "      const info = document.getElementById(\"info\").textContent;\n"
    "      if (!info.startsWith(D.label + \": \") || !info.includes(\" \" + amount(D.total) + \" "
    "of \"))\n"
    "        fails.push(name + \"the header says \" + info);\n"
    "      if (!document.getElementById(\"v-\" + D.id).classList.contains(\"on\")) fails.push(name "
    "+ \"button not on\");\n"
    "    }\n"
    "    const f = [];\n"
    "    selftestView(f);\n"
    "    for (const m of f) fails.push(name + m);\n"
    "    totals.push(D.id + \"=\" + tree.v);\n"
    "  }\n"
    "  st.dataset.views = totals.join(\" \");\n"
    "  st.dataset.selftest = fails.length ? \"fail: \" + fails.join(\"; \") : \"pass\";\n"
    "}\n"
    "})();\n"
    "</script>\n"
    "</body>\n"
    "</html>\n"
    "";

#define TL_BUCKETS 200

static int cmp_timed_key(const void *a, const void *b)
{
	const struct report_timed *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/*
 * The timeline's data: the recording cut into TL_BUCKETS equal spans, and the samples summed per
 * (span, stack, thread), so the page stays small whatever the number of samples.
 */
static void print_timed(const struct report *rep, FILE *out)
{
	int64_t span = report_span_nanos(rep), last = 0;
	struct report_timed *tmp = malloc((rep->ntimed ? rep->ntimed : 1) * sizeof(*tmp));
	bool first = true;

	for (size_t i = 0; i < rep->ntimed; i++)
		if (rep->timed[i].nanos > last)
			last = rep->timed[i].nanos;
	if (last >= span)
		span = last < INT64_MAX ? last + 1 : INT64_MAX;
	int64_t width = span > TL_BUCKETS ? span / TL_BUCKETS + (span % TL_BUCKETS != 0) : 1;
	fprintf(out, "\"buckets\":%d,\"bucketNs\":%lld,\n\"timed\":[", TL_BUCKETS,
	        (long long)width);
	for (size_t i = 0; tmp && i < rep->ntimed;) {
		int64_t b = rep->timed[i].nanos < 0 ? 0 : rep->timed[i].nanos / width;
		if (b >= TL_BUCKETS)
			b = TL_BUCKETS - 1;
		size_t n = 0;
		for (; i < rep->ntimed; i++) {
			int64_t bi = rep->timed[i].nanos < 0 ? 0 : rep->timed[i].nanos / width;
			if ((bi >= TL_BUCKETS ? TL_BUCKETS - 1 : bi) != b)
				break;
			tmp[n++] = rep->timed[i];
		}
		qsort(tmp, n, sizeof(*tmp), cmp_timed_key);
		for (size_t k = 0; k < n;) {
			size_t e = k;
			uint64_t v = 0;
			for (; e < n && !cmp_timed_key(&tmp[e], &tmp[k]); e++)
				v += tmp[e].value;
			if (v)
				fprintf(out, "%s[%lld,%u,%u,%llu,%u]", first ? "" : ",",
				        (long long)b, tmp[k].stack, tmp[k].thread,
				        (unsigned long long)v, tmp[k].ctx);
			first = false;
			k = e;
		}
	}
	if (!tmp)
		fprintf(stderr, "lfr report: out of memory: the timeline is empty\n");
	free(tmp);
	fputs("]", out);
}

/* The trace contexts the samples refer to: [trace id, span id, attributes]; [0] is none. */
static void print_contexts(const struct report *rep, FILE *out)
{
	fputs("\"contexts\":[null", out);
	for (size_t i = 1; i < rep->ncontexts; i++) {
		const struct report_context *c = &rep->contexts[i];
		const char *a = c->attrs;

		fputs(",[", out);
		report_json_string(out, c->trace_id);
		fputc(',', out);
		report_json_string(out, c->span_id);
		fputs(",{", out);
		for (unsigned int k = 0; k < c->nattrs; k++) {
			const char *v = a + strlen(a) + 1;

			if (k)
				fputc(',', out);
			report_json_string(out, a);
			fputc(':', out);
			report_json_string(out, v);
			a = v + strlen(v) + 1;
		}
		fputs("}]", out);
	}
	fputs("],\n", out);
}

static const char *file_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void print_frames(const struct report *rep, FILE *out)
{
	fputs("\"frames\":[", out);
	for (size_t i = 0; i < rep->nframes; i++) {
		if (i)
			fputc(',', out);
		report_json_string(out, rep->frames[i].name);
	}
	fputs("],\n\"kinds\":[", out);
	for (size_t i = 0; i < rep->nframes; i++)
		fprintf(out, "%s%u", i ? "," : "", rep->frames[i].kind);
	fputs("],\n\"objects\":[", out);
	for (size_t i = 0; i < rep->nframes; i++) {
		if (i)
			fputc(',', out);
		if (rep->frames[i].object)
			report_json_string(out, rep->frames[i].object);
		else
			fputs("null", out);
	}
	fputs("],\n\"stacks\":[", out);
	for (size_t i = 0; i < rep->nstacks; i++) {
		const struct report_stack *st = &rep->stacks[i];
		fputs(i ? ",\n[" : "[", out);
		for (uint32_t d = 0; d < st->depth; d++)
			fprintf(out, "%s%u", d ? "," : "", rep->stack_frames[st->first + d]);
		fputc(']', out);
	}
	fputs("]", out);
}

/* BASE of a diff: its frames, stacks and the value of each stack over all threads. */
static void print_base(const struct report *base, FILE *out)
{
	uint64_t *sv = views_stack_values(base);

	fputs(",\n\"base\":{\"title\":", out);
	report_json_string(out, file_name(base->path));
	fprintf(out, ",\"total\":%llu,\n", (unsigned long long)base->total);
	print_frames(base, out);
	fputs(",\n\"values\":[", out);
	for (size_t i = 0; i < base->nstacks; i++)
		fprintf(out, "%s%llu", i ? "," : "", sv ? (unsigned long long)sv[i] : 0ull);
	fputs("]}", out);
	if (!sv)
		fprintf(stderr, "lfr report: out of memory: BASE's stacks are empty\n");
	free(sv);
}

/* What a view's values count, for the page's labels: samples, ns of time, or the --value field. */
static const char *view_unit(const struct report_opts *o)
{
	if (o->off_cpu || o->latency)
		return "ns";
	return o->value_field ? o->value_field : "samples";
}

/* One view's data: the page's D while it is shown. */
static void print_view(const struct report_html_view *v, const struct report *base_rep, FILE *out)
{
	const struct report *rep = v->rep;
	const struct report_opts *o = v->o;

	fputs("{\"id\":", out);
	report_json_string(out, v->id ? v->id : "");
	fputs(",\"name\":", out);
	report_json_string(out, v->name ? v->name : "");
	fputs(",\"label\":", out);
	report_json_string(out, v->label ? v->label : "");
	fputs(",\"title\":", out);
	report_json_string(out, file_name(rep->path));
	fputs(",\"events\":", out);
	report_json_string(out, rep->selected);
	fputs(",\"unit\":", out);
	report_json_string(out, view_unit(o));
	fprintf(out, ",\"total\":%llu,\"threadRoots\":%s,\n", (unsigned long long)rep->total,
	        o->thread_roots ? "true" : "false");
	print_frames(rep, out);
	fputs(",\n\"threads\":[", out);
	for (size_t i = 0; i < rep->nthreads; i++) {
		char name[320];
		snprintf(name, sizeof(name), "%s [%lld]", rep->threads[i].name,
		         (long long)rep->threads[i].tid);
		if (i)
			fputc(',', out);
		report_json_string(out, name);
	}
	fputs("],\n\"samples\":[", out);
	for (size_t i = 0, n = 0; i < rep->nsamples; i++) {
		const struct report_sample *s = &rep->samples[i];
		if (!s->value)
			continue;
		fprintf(out, "%s[%u,%u,%llu,%u]", n++ ? "," : "", s->stack, s->thread,
		        (unsigned long long)s->value, s->ctx);
	}
	fputs("],\n", out);
	print_contexts(rep, out);
	print_timed(rep, out);
	if (base_rep)
		print_base(base_rep, out);
	fputs("}", out);
}

/* The page: its views in the order given, the first shown when it opens. */
static void print_page(const struct report_html_view *v, size_t n, const struct report *base_rep,
                       FILE *out)
{
	fputs(page_head, out);
	fputs("{\"views\":[", out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(",\n", out);
		print_view(&v[i], base_rep, out);
	}
	fputs("]}", out);
	fputs(page_tail, out);
}

/* The one view an option selected: its kind names it (no switch is drawn for one view). */
static struct report_html_view one_view(const struct report *rep, const struct report_opts *o)
{
	struct report_html_view v = {.rep = rep, .o = o};

	report_html_view_kind(o, &v);
	return v;
}

void report_print_html(const struct report *rep, const struct report_opts *o, FILE *out)
{
	struct report_html_view v = one_view(rep, o);

	print_page(&v, 1, NULL, out);
}

void report_print_html_views(const struct report_html_view *views, size_t n, FILE *out)
{
	print_page(views, n, NULL, out);
}

void report_print_html_diff(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out)
{
	struct report_html_view v = one_view(cur, o);

	print_page(&v, 1, base, out);
}
