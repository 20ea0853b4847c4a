(function () {
  "use strict";
  // The rlenv report page. Every piece of run data reaches the DOM through textContent or
  // setAttribute, never as markup; tables show one page of rows at a time.
  // window.rlenvTimings: milliseconds since navigation start (performance.now()).
  window.rlenvTimings = { scriptStart: performance.now() };
  var D = JSON.parse(document.getElementById("rlenv-data").textContent);
  var C = {};
  D.sample_columns.forEach(function (name, i) { C[name] = i; });
  var S = D.samples;
  var RUNS = D.runs;
  var PAGE = 50;
  var STATUSES = ["correct", "incorrect", "unparsable", "timeout", "error"];
  var COLORS = ["#2f5fd0", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c", "#0b7285", "#5c940d", "#e67700"];
  var SVGNS = "http://www.w3.org/2000/svg";
  window.rlenvTimings.dataParsed = performance.now();

  // ---------------------------------------------------------------- DOM helpers
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "text") node.textContent = String(value);
        else if (key === "cls") node.className = value;
        else if (key === "on") Object.keys(value).forEach(function (ev) { node.addEventListener(ev, value[ev]); });
        else node.setAttribute(key, value === true ? "" : String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
      else node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = String(attrs[key]); else node.setAttribute(key, String(attrs[key]));
    });
    return node;
  }
  function fmt(x, digits) {
    if (x === null || x === undefined || typeof x !== "number" || !isFinite(x)) return "–";
    return x.toFixed(digits === undefined ? 3 : digits);
  }
  function signed(x, digits) { return (x > 0 ? "+" : "") + fmt(x, digits); }
  function pct(x) { return fmt(100 * x, 1) + "%"; }
  function badge(status) { return el("span", { cls: "badge st-" + String(status).replace(/[^a-z]/g, ""), text: status }); }
  function runName(r) { return RUNS[r].label; }
  function numeric(x) { return typeof x === "number" && isFinite(x) ? x : -Infinity; }

  // ---------------------------------------------------------------- derived indexes
  var TASK_ID = D.tasks.map(function (t) { return t[0]; });
  var TASK_META = D.tasks.map(function (t) { return t[1]; });
  var DETECTORS = {};
  var STEPS = {};
  var STATUS_SEEN = {};
  S.forEach(function (row) {
    STATUS_SEEN[row[C.status]] = true;
    if (row[C.step] !== null && row[C.step] !== undefined) STEPS[row[C.step]] = true;
    (row[C.hacks] || []).forEach(function (h) { DETECTORS[h.detector] = true; });
  });
  var STATUS_LIST = STATUSES.filter(function (s) { return STATUS_SEEN[s]; })
    .concat(Object.keys(STATUS_SEEN).filter(function (s) { return STATUSES.indexOf(s) < 0; }).sort());
  var DETECTOR_LIST = Object.keys(DETECTORS).sort();
  var STEP_LIST = Object.keys(STEPS).map(Number).sort(function (a, b) { return a - b; });
  var FIELD_VALUES = {};
  D.fields.forEach(function (f) {
    var seen = {};
    TASK_META.forEach(function (m) { if (m && m[f] !== undefined) seen[String(m[f])] = true; });
    FIELD_VALUES[f] = Object.keys(seen).sort(function (a, b) {
      var x = Number(a), y = Number(b);
      return isNaN(x) || isNaN(y) ? a.localeCompare(b) : x - y;
    });
  });
  var EVAL_RUNS = RUNS.map(function (r, i) { return i; }).filter(function (i) { return D.task_stats[i]; });
  // runs with a flagged sample: only they get a hacks column in the task table
  var FLAGGED = {};
  S.forEach(function (row) { if ((row[C.hacks] || []).length) FLAGGED[row[C.run]] = true; });
  // (run, task, sample number) -> row, to show the same sample scored by every run side by side
  var SAME = {};
  S.forEach(function (row, i) {
    if (row[C.step] === null && row[C.sample] !== null) SAME[row[C.task] + "/" + row[C.sample] + "/" + row[C.run]] = i;
  });

  // ---------------------------------------------------------------- charts
  function chart(opts) {
    // opts: {lines: [{name, color, xs, ys, low, high}], logx, ymin, ymax, xlabel, ylabel, width, height}
    var W = opts.width || 440, H = opts.height || 260, L = 48, R = 12, Tp = 10, B = 36;
    var xs = [], ys = [];
    opts.lines.forEach(function (line) {
      line.xs.forEach(function (x, i) {
        if (line.ys[i] === null || line.ys[i] === undefined) return;
        xs.push(x); ys.push(line.ys[i]);
        if (line.low) { ys.push(line.low[i]); ys.push(line.high[i]); }
      });
    });
    var root = svg("svg", { "class": "chart", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    if (!xs.length) {
      root.appendChild(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#6b7280", text: opts.empty || "no data" }));
      return root;
    }
    var tx = opts.logx ? function (x) { return Math.log2(x); } : function (x) { return x; };
    var x0 = Math.min.apply(null, xs.map(tx)), x1 = Math.max.apply(null, xs.map(tx));
    var y0 = opts.ymin !== undefined ? opts.ymin : Math.min.apply(null, ys);
    var y1 = opts.ymax !== undefined ? opts.ymax : Math.max.apply(null, ys);
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { y0 -= 0.5; y1 += 0.5; }
    function px(x) { return L + (tx(x) - x0) / (x1 - x0) * (W - L - R); }
    function py(y) { return Tp + (1 - (y - y0) / (y1 - y0)) * (H - Tp - B); }
    for (var k = 0; k <= 4; k++) {
      var yv = y0 + (y1 - y0) * k / 4, yy = py(yv);
      root.appendChild(svg("line", { "class": "gridline", x1: L, x2: W - R, y1: yy, y2: yy }));
      root.appendChild(svg("text", { x: L - 6, y: yy + 4, "text-anchor": "end", fill: "#4b5563", text: Math.abs(y1 - y0) >= 10 ? yv.toFixed(0) : yv.toFixed(2) }));
    }
    var whole = xs.every(function (x) { return Math.round(x) === x; });
    var ticks = opts.logx ? uniqueSorted(xs) : niceTicks(Math.min.apply(null, xs), Math.max.apply(null, xs), whole);
    if (ticks.length > 12) ticks = ticks.filter(function (t, i) { return i % Math.ceil(ticks.length / 12) === 0; });
    ticks.forEach(function (t) {
      root.appendChild(svg("text", { x: px(t), y: H - B + 16, "text-anchor": "middle", fill: "#4b5563", text: String(t) }));
    });
    root.appendChild(svg("line", { "class": "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
    root.appendChild(svg("line", { "class": "axis", x1: L, x2: L, y1: Tp, y2: H - B }));
    if (opts.xlabel) root.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", fill: "#374151", text: opts.xlabel }));
    if (opts.ylabel) root.appendChild(svg("text", { x: 12, y: (Tp + H - B) / 2, "text-anchor": "middle", fill: "#374151", transform: "rotate(-90 12 " + (Tp + H - B) / 2 + ")", text: opts.ylabel }));
    opts.lines.forEach(function (line) {
      var pts = [], band = [], back = [];
      line.xs.forEach(function (x, i) {
        if (line.ys[i] === null || line.ys[i] === undefined) return;
        pts.push(px(x).toFixed(1) + "," + py(line.ys[i]).toFixed(1));
        if (line.low) { band.push(px(x).toFixed(1) + "," + py(line.high[i]).toFixed(1)); back.unshift(px(x).toFixed(1) + "," + py(line.low[i]).toFixed(1)); }
      });
      if (band.length) root.appendChild(svg("polygon", { points: band.concat(back).join(" "), fill: line.color, "fill-opacity": 0.15, stroke: "none" }));
      root.appendChild(svg("polyline", { points: pts.join(" "), fill: "none", stroke: line.color, "stroke-width": 2 }));
      if (pts.length <= 40) pts.forEach(function (p) {
        var xy = p.split(",");
        root.appendChild(svg("circle", { cx: xy[0], cy: xy[1], r: 3, fill: line.color }));
      });
    });
    return root;
  }
  function uniqueSorted(values) {
    var seen = {};
    values.forEach(function (v) { seen[v] = v; });
    return Object.keys(seen).map(function (k) { return seen[k]; }).sort(function (a, b) { return a - b; });
  }
  function niceTicks(lo, hi, whole) {
    var span = hi - lo || 1, step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    [1, 2, 5, 10].some(function (m) { if (span / (step * m) <= 6) { step *= m; return true; } return false; });
    if (whole) step = Math.max(1, Math.round(step));
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Number(t.toPrecision(6)));
    return out;
  }
  function legend(items) {
    return el("div", { cls: "legend" }, items.map(function (item) {
      var sw = el("span", { cls: "swatch" });
      sw.style.background = item.color;
      return el("span", null, sw, item.name);
    }));
  }

  // ---------------------------------------------------------------- header and tabs
  function renderRuns() {
    var table = document.getElementById("runs");
    append(table, el("thead", null, el("tr", null, ["run", "kind", "env", "model", "samples", "path"].map(function (h) { return el("th", { text: h }); }))));
    append(table, el("tbody", null, RUNS.map(function (run, i) {
      var sw = el("span", { cls: "swatch" });
      sw.style.background = COLORS[i % COLORS.length];
      return el("tr", null, el("td", null, sw, el("b", { text: run.label }), " ", run.name), el("td", { text: run.kind }),
        el("td", { text: run.env || "–" }), el("td", { text: run.model || "–" }),
        el("td", { cls: "num", text: run.num_samples }), el("td", { cls: "muted", text: run.path }));
    })));
  }
  var TABS = [];
  function addTab(id, label) {
    TABS.push(id);
    var button = el("button", { type: "button", role: "tab", id: "tabbtn-" + id, text: label, on: { click: function () { showTab(id); } } });
    document.getElementById("tabs").appendChild(button);
  }
  function showTab(id) {
    TABS.forEach(function (t) {
      document.getElementById("tab-" + t).hidden = t !== id;
      document.getElementById("tabbtn-" + t).setAttribute("aria-selected", t === id ? "true" : "false");
    });
  }

  // ---------------------------------------------------------------- overview
  function metricNames() {
    var names = [];
    RUNS.forEach(function (run) {
      if (run.summary) Object.keys(run.summary.metrics).forEach(function (m) { if (names.indexOf(m) < 0) names.push(m); });
    });
    return names;
  }
  function estimateCell(est) {
    if (!est) return el("td", { cls: "num muted", text: "–" });
    return el("td", { cls: "num" }, fmt(est.value), " ", el("span", { cls: "muted", text: "[" + fmt(est.low) + ", " + fmt(est.high) + "]" }));
  }
  function renderOverview() {
    var root = document.getElementById("tab-overview");
    var names = metricNames();
    var withSummary = RUNS.map(function (r, i) { return i; }).filter(function (i) { return RUNS[i].summary; });
    if (names.length) {
      var s0 = RUNS[withSummary[0]].summary;
      append(root, el("h2", { text: "Metrics" }),
        el("p", { cls: "muted", text: Math.round(100 * s0.bootstrap.confidence) + "% bootstrap intervals over tasks (" + s0.bootstrap.n_resamples + " resamples)." }));
      var head = el("tr", null, el("th", { text: "metric" }), withSummary.map(function (i) { return el("th", { cls: "num", text: RUNS[i].label + ": " + RUNS[i].name }); }));
      var body = names.map(function (m) {
        return el("tr", null, el("td", { text: m }), withSummary.map(function (i) { return estimateCell(RUNS[i].summary.metrics[m]); }));
      });
      body.push(el("tr", null, el("td", { cls: "muted", text: "tasks / samples" }), withSummary.map(function (i) {
        return el("td", { cls: "num muted", text: RUNS[i].summary.num_tasks + " / " + RUNS[i].summary.num_samples });
      })));
      append(root, el("table", { cls: "grid", id: "metrics-table" }, el("thead", null, head), el("tbody", null, body)));
      withSummary.forEach(function (i) {  // multi-turn runs: turns, tool calls and tool errors per episode
        var ep = RUNS[i].summary.episodes;
        if (!ep) return;
        var cut = Object.keys(ep.cut_by).map(function (k) { return ep.cut_by[k] + " by " + k; }).join(", ") || "none";
        append(root, el("p", { cls: "episodes", text: RUNS[i].label + ": " + ep.count + " episodes, " + fmt(ep.turns.mean, 2) +
          " turns per episode (max " + ep.turns.max + "), " + fmt((ep.tool_metrics.calls || 0) / ep.count, 2) +
          " tool calls per episode, " + pct(ep.tool_errors_per_call) + " of calls answered with a tool error; cut by a limit: " + cut }));
      });
      var lines = [];
      withSummary.forEach(function (i) {
        var ks = Object.keys(RUNS[i].summary.metrics).filter(function (m) { return /^pass@\d+$/.test(m); })
          .map(function (m) { return Number(m.slice(5)); }).sort(function (a, b) { return a - b; });
        if (!ks.length) return;
        var est = ks.map(function (k) { return RUNS[i].summary.metrics["pass@" + k]; });
        lines.push({ name: RUNS[i].label + ": " + RUNS[i].name, color: COLORS[i % COLORS.length], xs: ks,
          ys: est.map(function (e) { return e.value; }), low: est.map(function (e) { return e.low; }), high: est.map(function (e) { return e.high; }) });
      });
      if (lines.length) {
        append(root, el("h2", { text: "pass@k" }), el("div", { id: "passk-plot" },
          chart({ lines: lines, logx: true, ymin: 0, ymax: 1, xlabel: "k (samples)", ylabel: "pass@k" })), legend(lines));
      }
      withSummary.forEach(function (i) {
        var by = RUNS[i].summary.by || {};
        Object.keys(by).forEach(function (field) {
          var groups = by[field], values = Object.keys(groups);
          if (!values.length) return;
          var metrics = Object.keys(groups[values[0]].metrics);
          append(root, el("h3", { text: RUNS[i].label + ": by " + field }),
            el("table", { cls: "grid" },
              el("thead", null, el("tr", null, el("th", { text: field }), el("th", { cls: "num", text: "tasks" }), metrics.map(function (m) { return el("th", { cls: "num", text: m }); }))),
              el("tbody", null, values.map(function (v) {
                return el("tr", null, el("td", { text: v }), el("td", { cls: "num", text: groups[v].num_tasks }), metrics.map(function (m) { return estimateCell(groups[v].metrics[m]); }));
              }))));
        });
      });
    }
    var statusRuns = RUNS.map(function (r, i) { return i; }).filter(function (i) { return RUNS[i].kind !== "train"; });
    if (statusRuns.length) {
      var counts = statusRuns.map(function () { return {}; });
      var flagged = statusRuns.map(function () { return {}; });
      var totals = statusRuns.map(function () { return 0; });
      S.forEach(function (row) {
        var k = statusRuns.indexOf(row[C.run]);
        if (k < 0) return;
        totals[k]++;
        counts[k][row[C.status]] = (counts[k][row[C.status]] || 0) + 1;
        var seen = {};
        (row[C.hacks] || []).forEach(function (h) { seen[h.detector] = true; });
        Object.keys(seen).forEach(function (d) { flagged[k][d] = (flagged[k][d] || 0) + 1; });
        if (Object.keys(seen).length) flagged[k]["(any)"] = (flagged[k]["(any)"] || 0) + 1;
      });
      append(root, el("h2", { text: "Verdicts" }), el("table", { cls: "grid", id: "status-table" },
        el("thead", null, el("tr", null, el("th", { text: "status" }), statusRuns.map(function (i) { return el("th", { cls: "num", text: RUNS[i].label }); }))),
        el("tbody", null, STATUS_LIST.map(function (s) {
          return el("tr", null, el("td", null, badge(s)), statusRuns.map(function (i, k) {
            var n = counts[k][s] || 0;
            return el("td", { cls: "num", text: n + (totals[k] ? " (" + pct(n / totals[k]) + ")" : "") });
          }));
        }))));
      if (DETECTOR_LIST.length || RUNS.some(function (r) { return r.audit; })) {
        var detectors = DETECTOR_LIST.slice();
        RUNS.forEach(function (r) { if (r.audit) Object.keys(r.audit.detectors).forEach(function (d) { if (detectors.indexOf(d) < 0) detectors.push(d); }); });
        detectors.push("(any)");
        append(root, el("h2", { text: "Hack detectors" }), el("table", { cls: "grid", id: "detector-table" },
          el("thead", null, el("tr", null, el("th", { text: "detector" }), statusRuns.map(function (i) { return el("th", { cls: "num", text: RUNS[i].label + " flagged" }); }))),
          el("tbody", null, detectors.map(function (d) {
            return el("tr", null, el("td", { text: d }), statusRuns.map(function (i, k) {
              var n = flagged[k][d] || 0;
              return el("td", { cls: "num", text: n + (totals[k] ? " (" + pct(n / totals[k]) + ")" : "") });
            }));
          }))));
      }
    }
    RUNS.forEach(function (run) {
      if (!run.config) return;
      append(root, el("details", null, el("summary", { text: run.label + ": run settings (config.json)" }),
        el("pre", { cls: "text", text: JSON.stringify(run.config, null, 2) })));
    });
  }

  // ---------------------------------------------------------------- filters and pages
  function select(name, label, options, onChange) {
    var node = el("select", { name: name, id: name, on: { change: onChange } }, options.map(function (o) {
      return el("option", { value: o[0], text: o[1] });
    }));
    return { label: el("label", { "for": name }, label, node), input: node };
  }
  function pager(root, state, total, redraw) {
    clear(root);
    var pages = Math.max(1, Math.ceil(total / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    append(root,
      el("button", { type: "button", text: "‹ prev", disabled: state.page === 0, on: { click: function () { state.page--; redraw(); } } }),
      el("span", { cls: "page-info", text: "page " + (state.page + 1) + " of " + pages }),
      el("button", { type: "button", text: "next ›", disabled: state.page >= pages - 1, on: { click: function () { state.page++; redraw(); } } }));
  }
  function sortHeader(state, key, label, redraw, isNum) {
    var cls = "sortable" + (isNum ? " num" : "") + (state.sort === key ? (state.desc ? " sorted-desc" : " sorted-asc") : "");
    return el("th", { cls: cls, "data-key": key, text: label, on: { click: function () {
      if (state.sort === key) state.desc = !state.desc; else { state.sort = key; state.desc = isNum; }
      state.page = 0; redraw();
    } } });
  }
  function fieldOptions(f) {
    return [["", "any"]].concat(FIELD_VALUES[f].map(function (v) { return [v, v]; }));
  }
  function detectorOptions() {
    return [["", "any"], ["(flagged)", "flagged by any"], ["(clean)", "not flagged"]].concat(DETECTOR_LIST.map(function (d) { return [d, d]; }));
  }

  // ---------------------------------------------------------------- tasks
  var TASKS = null;
  var taskState = { page: 0, sort: "task", desc: false, status: "", detector: "", change: "", search: "", fields: {} };
  function buildTasks() {
    var rows = {};
    EVAL_RUNS.forEach(function (r) {
      D.task_stats[r].forEach(function (st) {
        var t = st[0];
        rows[t] = rows[t] || { task: t, per: {} };
        rows[t].per[r] = { n: st[1], correct: st[2], pass: st[1] ? st[2] / st[1] : null, reward: st[3], status: st[4], hacks: st[5] };
      });
    });
    TASKS = Object.keys(rows).map(function (k) { return rows[k]; });
  }
  function taskValue(row, key) {
    if (key === "task") return TASK_ID[row.task];
    if (key.indexOf("field:") === 0) {
      var v = TASK_META[row.task] ? TASK_META[row.task][key.slice(6)] : undefined;
      return v === undefined ? "" : v;
    }
    var parts = key.split(":"), r = Number(parts[1]);
    if (parts[0] === "delta") {
      var a = row.per[0], b = row.per[r];
      return a && b ? a.pass - b.pass : null;
    }
    var p = row.per[r];
    if (!p) return null;
    if (parts[0] === "hacks") return Object.keys(p.hacks).reduce(function (s, d) { return s + p.hacks[d]; }, 0);
    return p[parts[0]];
  }
  function taskMatches(row) {
    var st = taskState;
    if (st.search && TASK_ID[row.task].toLowerCase().indexOf(st.search) < 0) return false;
    for (var f in st.fields) {
      if (st.fields[f] !== "" && !(TASK_META[row.task] && String(TASK_META[row.task][f]) === st.fields[f])) return false;
    }
    var per = EVAL_RUNS.map(function (r) { return row.per[r]; }).filter(Boolean);
    if (st.status) {
      var ok;
      if (st.status === "(all correct)") ok = per.every(function (p) { return p.correct === p.n; });
      else if (st.status === "(none correct)") ok = per.every(function (p) { return p.correct === 0; });
      else ok = per.some(function (p) { return p.status[st.status] > 0; });
      if (!ok) return false;
    }
    if (st.detector) {
      var flagged = function (p) { return Object.keys(p.hacks).length > 0; };
      if (st.detector === "(flagged)" && !per.some(flagged)) return false;
      if (st.detector === "(clean)" && per.some(flagged)) return false;
      if (st.detector[0] !== "(" && !per.some(function (p) { return p.hacks[st.detector] > 0; })) return false;
    }
    if (st.change) {
      var parts = st.change.split(":"), d = taskValue(row, "delta:" + parts[1]);
      if (d === null) return false;
      if (parts[0] === "better" && !(d > 0)) return false;
      if (parts[0] === "worse" && !(d < 0)) return false;
      if (parts[0] === "same" && d !== 0) return false;
    }
    return true;
  }
  function renderTaskFilters() {
    var form = document.getElementById("task-filters");
    var redraw = function () { taskState.page = 0; drawTasks(); };
    var status = select("task-status", "status", [["", "any"], ["(all correct)", "all samples correct"], ["(none correct)", "no sample correct"]]
      .concat(STATUS_LIST.map(function (s) { return [s, "has " + s]; })), function () { taskState.status = status.input.value; redraw(); });
    var detector = select("task-detector", "hack detector", detectorOptions(), function () { taskState.detector = detector.input.value; redraw(); });
    append(form, status.label, detector.label);
    D.fields.forEach(function (f) {
      var s = select("task-field-" + f, f, fieldOptions(f), function () { taskState.fields[f] = s.input.value; redraw(); });
      s.input.setAttribute("data-field", f);
      append(form, s.label);
    });
    if (EVAL_RUNS.length > 1) {
      var options = [["", "any"]];
      EVAL_RUNS.slice(1).forEach(function (r) {
        var a = RUNS[0].label, b = RUNS[r].label;
        options.push(["better:" + r, a + " better than " + b], ["worse:" + r, a + " worse than " + b], ["same:" + r, a + " same as " + b]);
      });
      var change = select("task-change", "per-task difference", options, function () { taskState.change = change.input.value; redraw(); });
      append(form, change.label);
    }
    var search = el("input", { type: "search", id: "task-search", placeholder: "task id contains…" });
    search.addEventListener("input", function () { taskState.search = search.value.toLowerCase(); redraw(); });
    append(form, el("label", { "for": "task-search" }, "search", search), el("span", { id: "task-count", cls: "count" }));
    form.addEventListener("submit", function (e) { e.preventDefault(); });
  }
  function drawTasks() {
    var st = taskState;
    var rows = TASKS.filter(taskMatches);
    var dir = st.desc ? -1 : 1;
    rows.sort(function (x, y) {
      var a = taskValue(x, st.sort), b = taskValue(y, st.sort);
      if (typeof a === "number" || typeof b === "number" || a === null || b === null) return dir * (numeric(a) - numeric(b)) || x.task - y.task;
      return dir * String(a).localeCompare(String(b), undefined, { numeric: true }) || x.task - y.task;
    });
    document.getElementById("task-count").textContent = rows.length + " of " + TASKS.length + " tasks";
    var root = clear(document.getElementById("task-table"));
    var redraw = drawTasks;
    var head = [sortHeader(st, "task", "task", redraw, false)];
    EVAL_RUNS.slice(1).forEach(function (r) { head.push(sortHeader(st, "delta:" + r, "Δ pass " + RUNS[0].label + "−" + RUNS[r].label, redraw, true)); });
    D.fields.forEach(function (f) { head.push(sortHeader(st, "field:" + f, f, redraw, false)); });
    EVAL_RUNS.forEach(function (r) {
      var p = EVAL_RUNS.length > 1 ? RUNS[r].label + " " : "";
      head.push(sortHeader(st, "n:" + r, p + "samples", redraw, true), sortHeader(st, "pass:" + r, p + "pass rate", redraw, true),
        sortHeader(st, "reward:" + r, p + "mean reward", redraw, true), el("th", { text: p + "statuses" }));
      if (FLAGGED[r]) head.push(sortHeader(st, "hacks:" + r, p + "hacks", redraw, true));
    });
    pager(document.getElementById("task-pager"), st, rows.length, drawTasks);
    var start = st.page * PAGE;
    var body = rows.slice(start, start + PAGE).map(function (row) {
      var cells = [el("td", { cls: "task", text: TASK_ID[row.task] })];
      EVAL_RUNS.slice(1).forEach(function (r) {
        var d = taskValue(row, "delta:" + r);
        cells.push(el("td", { cls: "num " + (d > 0 ? "delta-pos" : d < 0 ? "delta-neg" : ""), text: d === null ? "–" : signed(d) }));
      });
      D.fields.forEach(function (f) { cells.push(el("td", { text: taskValue(row, "field:" + f) })); });
      EVAL_RUNS.forEach(function (r) {
        var p = row.per[r];
        if (!p) { cells.push(el("td", { cls: "muted", text: "–", colspan: FLAGGED[r] ? 5 : 4 })); return; }
        cells.push(el("td", { cls: "num", text: p.n }), el("td", { cls: "num", text: fmt(p.pass) }), el("td", { cls: "num", text: fmt(p.reward) }),
          el("td", null, Object.keys(p.status).sort().map(function (s) { return [badge(s + " " + p.status[s]), " "]; })));
        if (FLAGGED[r]) cells.push(el("td", null, Object.keys(p.hacks).sort().map(function (d) { return [el("span", { cls: "badge hack", text: d + " " + p.hacks[d] }), " "]; })));
      });
      return el("tr", { "data-task": TASK_ID[row.task], title: "show this task's samples", on: { click: function () { openTaskSamples(row.task); } } }, cells);
    });
    append(root, el("table", { cls: "grid rows", id: "tasks" }, el("thead", null, el("tr", null, head)), el("tbody", null, body)));
  }
  function openTaskSamples(task) {
    sampleState.task = task;
    sampleState.page = 0;
    drawSampleFilters();
    drawSamples();
    showTab("samples");
  }

  // ---------------------------------------------------------------- samples
  var sampleState = { page: 0, run: "", status: "", detector: "", step: "", task: null, search: "", fields: {}, selected: null };
  function sampleMatches(row, i) {
    var st = sampleState;
    if (st.run !== "" && row[C.run] !== Number(st.run)) return false;
    if (st.status && row[C.status] !== st.status) return false;
    if (st.task !== null && row[C.task] !== st.task) return false;
    if (st.step !== "" && row[C.step] !== Number(st.step)) return false;
    if (st.detector) {
      var hacks = row[C.hacks] || [];
      if (st.detector === "(flagged)" && !hacks.length) return false;
      if (st.detector === "(clean)" && hacks.length) return false;
      if (st.detector[0] !== "(" && !hacks.some(function (h) { return h.detector === st.detector; })) return false;
    }
    for (var f in st.fields) {
      var m = TASK_META[row[C.task]];
      if (st.fields[f] !== "" && !(m && String(m[f]) === st.fields[f])) return false;
    }
    if (st.search && row[C.completion].toLowerCase().indexOf(st.search) < 0) return false;
    return true;
  }
  function drawSampleFilters() {
    var form = clear(document.getElementById("sample-filters"));
    var st = sampleState;
    var redraw = function () { st.page = 0; drawSamples(); };
    var controls = [];
    if (RUNS.length > 1) {
      var run = select("sample-run", "run", [["", "all"]].concat(RUNS.map(function (r, i) { return [String(i), r.label + ": " + r.name]; })), function () { st.run = run.input.value; redraw(); });
      controls.push(run);
    }
    var status = select("sample-status", "status", [["", "any"]].concat(STATUS_LIST.map(function (s) { return [s, s]; })), function () { st.status = status.input.value; redraw(); });
    var detector = select("sample-detector", "hack detector", detectorOptions(), function () { st.detector = detector.input.value; redraw(); });
    controls.push(status, detector);
    if (STEP_LIST.length) {
      var step = select("sample-step", "training step", [["", "any"]].concat(STEP_LIST.map(function (s) { return [String(s), String(s)]; })), function () { st.step = step.input.value; redraw(); });
      controls.push(step);
    }
    D.fields.forEach(function (f) {
      var s = select("sample-field-" + f, f, fieldOptions(f), function () { st.fields[f] = s.input.value; redraw(); });
      s.input.setAttribute("data-field", f);
      controls.push(s);
    });
    controls.forEach(function (c) {
      var key = c.input.id.replace("sample-", "");
      var value = key.indexOf("field-") === 0 ? st.fields[key.slice(6)] : st[key];
      if (value !== undefined && value !== null) c.input.value = String(value);
      append(form, c.label);
    });
    var search = el("input", { type: "search", id: "sample-search", placeholder: "completion contains…", value: st.search });
    search.addEventListener("input", function () { st.search = search.value.toLowerCase(); redraw(); });
    append(form, el("label", { "for": "sample-search" }, "search", search));
    if (st.task !== null) {
      append(form, el("span", { cls: "count" }, "task ", el("b", { text: TASK_ID[st.task] }), " ",
        el("button", { type: "button", cls: "linklike", id: "clear-task", text: "× all tasks", on: { click: function () { st.task = null; drawSampleFilters(); redraw(); } } })));
    }
    append(form, el("span", { id: "sample-count", cls: "count" }));
    form.addEventListener("submit", function (e) { e.preventDefault(); });
  }
  function drawSamples() {
    var st = sampleState;
    var matched = [];
    for (var i = 0; i < S.length; i++) if (sampleMatches(S[i], i)) matched.push(i);
    document.getElementById("sample-count").textContent = matched.length + " of " + S.length + " samples";
    pager(document.getElementById("sample-pager"), st, matched.length, drawSamples);
    var start = st.page * PAGE;
    var showStep = STEP_LIST.length > 0;
    var head = el("tr", null, RUNS.length > 1 ? el("th", { text: "run" }) : null, el("th", { text: "task" }), el("th", { cls: "num", text: "#" }),
      showStep ? el("th", { cls: "num", text: "step" }) : null, el("th", { text: "status" }), el("th", { cls: "num", text: "reward" }),
      el("th", { text: "hacks" }), el("th", { text: "completion" }));
    var body = matched.slice(start, start + PAGE).map(function (i) {
      var row = S[i];
      var hacks = {};
      (row[C.hacks] || []).forEach(function (h) { hacks[h.detector] = true; });
      return el("tr", { "data-row": i, cls: st.selected === i ? "selected" : null, on: { click: function () { selectSample(i); } } },
        RUNS.length > 1 ? el("td", { text: runName(row[C.run]) }) : null,
        el("td", { cls: "task", text: TASK_ID[row[C.task]] }), el("td", { cls: "num", text: row[C.sample] === null ? "" : row[C.sample] }),
        showStep ? el("td", { cls: "num", text: row[C.step] === null ? "" : row[C.step] }) : null,
        el("td", null, badge(row[C.status]), row[C.truncated] ? el("span", { cls: "muted", text: " cut" }) : null),
        el("td", { cls: "num", text: fmt(row[C.reward]) }),
        el("td", null, Object.keys(hacks).map(function (d) { return [el("span", { cls: "badge hack", text: d }), " "]; })),
        el("td", { cls: "preview", text: row[C.completion].slice(0, 200).replace(/\s+/g, " ") }));
    });
    var root = clear(document.getElementById("sample-table"));
    append(root, el("table", { cls: "grid rows", id: "samples" }, el("thead", null, head), el("tbody", null, body)));
    if (!window.rlenvTimings.firstRow && body.length) window.rlenvTimings.firstRow = performance.now();
  }
  function selectSample(i) {
    sampleState.selected = i;
    var rows = document.querySelectorAll("#samples tbody tr");
    for (var k = 0; k < rows.length; k++) rows[k].classList.toggle("selected", Number(rows[k].getAttribute("data-row")) === i);
    var root = clear(document.getElementById("detail"));
    var row = S[i];
    // the other runs' sample with this number is the same sample only when its completion is this one
    // (one samples file scored by each run); otherwise it is an independent draw, no counterpart
    var others = [];
    if (row[C.step] === null && row[C.sample] !== null) {
      RUNS.forEach(function (r, k) {
        var j = SAME[row[C.task] + "/" + row[C.sample] + "/" + k];
        if (j !== undefined && j !== i && S[j][C.completion] === row[C.completion]) others.push(j);
      });
    }
    append(root, el("h2", { text: "Task " + TASK_ID[row[C.task]] + (row[C.sample] !== null ? " · sample " + row[C.sample] : "") + (row[C.step] !== null ? " · step " + row[C.step] : "") }));
    var meta = TASK_META[row[C.task]] || {};
    if (Object.keys(meta).length) append(root, el("p", { cls: "muted", text: Object.keys(meta).map(function (k) { return k + ": " + meta[k]; }).join(" · ") }));
    append(root, el("h3", { text: "Prompt" }), promptView(D.prompts[row[C.prompt]]));
    if (row[C.reference] !== null && row[C.reference] !== undefined) {
      append(root, el("h3", { text: "Reference answer" }), el("pre", { cls: "text", id: "detail-reference", text: row[C.reference] }));
    }
    if (!others.length) {
      append(root, sampleView(i));
      if (EVAL_RUNS.length > 1 && row[C.step] === null) {
        append(root, el("div", { cls: "muted", id: "detail-independent" }, "The other runs sampled this task independently: no sample of theirs is this one's counterpart. ",
          el("button", { type: "button", cls: "linklike", text: "this task in every run", on: { click: function () { openTaskSamples(row[C.task]); } } })));
      }
      return;
    }
    append(root, el("div", { cls: "pair" }, [i].concat(others).map(sampleView)));
  }
  function promptView(prompt) {
    if (prompt === undefined || prompt === null) return el("p", { cls: "muted", text: "(the run did not record the prompt)" });
    if (typeof prompt === "string") return richText(prompt, [], false, "text prose", "detail-prompt");
    return el("div", { id: "detail-prompt" }, (Array.isArray(prompt) ? prompt : [prompt]).map(function (m) {
      var role = m && typeof m === "object" && "role" in m ? String(m.role) : "";
      var content = m && typeof m === "object" && "content" in m ? m.content : m;
      return el("div", null, el("span", { cls: "badge", text: role || "message" }),
        typeof content === "string" ? richText(content, [], false, "text prose") : el("pre", { cls: "text", text: JSON.stringify(content, null, 2) }));
    }));
  }
  function sampleView(i) {
    var row = S[i];
    var box = el("div", { cls: "sample-view", "data-row": i });
    append(box, el("h3", null, RUNS.length > 1 ? el("span", { cls: "badge", text: RUNS[row[C.run]].label + ": " + RUNS[row[C.run]].name }) : null, " Verdict"),
      el("p", { cls: "verdict" }, badge(row[C.status]), " reward ", el("b", { text: fmt(row[C.reward], 4) }),
        row[C.truncated] ? el("span", { cls: "badge st-timeout", text: "truncated" }) : null));
    var hacks = row[C.hacks] || [];
    if (hacks.length) {
      append(box, el("h3", { text: "Hack evidence" }), el("ul", { cls: "hacks" }, hacks.map(function (h) {
        return el("li", null, el("span", { cls: "badge hack", text: h.detector + (h.kind ? ": " + h.kind : "") }),
          " score " + fmt(h.score, 2) + (h.penalty ? ", penalty " + fmt(h.penalty, 2) : "") + " — ", el("span", { cls: "evidence-text", text: h.evidence || "" }));
      })));
    }
    var details = row[C.details];
    var isCode = !!(details && typeof details === "object" && ("job_status" in details || Array.isArray(details.tests)));
    var text = row[C.completion];
    append(box, el("h3", { text: "Completion" }), text ? richText(text, row[C.spans] || [], isCode, "text completion")
      : el("pre", { cls: "text completion" }, el("span", { cls: "muted", text: "(empty completion)" })));
    var comps = row[C.components];
    if (comps && Object.keys(comps).length) {
      append(box, el("h3", { text: "Components" }), el("table", { cls: "grid kv" }, el("tbody", null, Object.keys(comps).map(function (k) {
        return el("tr", null, el("td", { text: k }), el("td", { cls: "num", text: typeof comps[k] === "number" ? fmt(comps[k], 4) : JSON.stringify(comps[k]) }));
      }))));
    }
    if (row[C.episode]) append(box, episodeView(row[C.episode]));
    if (details && typeof details === "object") append(box, detailsView(details));
    return box;
  }
  function episodeView(episode) {
    // a multi-turn episode: its tool metrics, then every turn after the prompt (calls, results, errors)
    var box = el("div", { cls: "episode" }, el("h3", { text: "Episode: " + episode.turns + " turn" + (episode.turns === 1 ? "" : "s") +
      (episode.limit ? " (cut at " + episode.limit + ")" : "") }));
    var metrics = episode.tool_metrics || {};
    var names = Object.keys(metrics);
    if (names.length) append(box, el("table", { cls: "grid kv tool-metrics" }, el("tbody", null, names.map(function (k) {
      return el("tr", null, el("td", { text: k }), el("td", { cls: "num" + (k !== "calls" && metrics[k] ? " failed" : ""), text: String(metrics[k]) }));
    }))));
    append(box, el("ol", { cls: "turns" }, (episode.messages || []).map(function (m) {
      var content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
      var error = m.role !== "assistant" && /^Error:/.test(content);
      return el("li", { cls: "turn role-" + String(m.role).replace(/[^a-z]/g, "") },
        el("span", { cls: "badge" + (error ? " st-error" : ""), text: m.role + (m.name ? " " + m.name : "") + (error ? " error" : "") }),
        m.tool_call_id ? el("span", { cls: "muted", text: " " + m.tool_call_id }) : null,
        content ? el("pre", { cls: "text turn-content", text: content }) : null,
        (m.tool_calls || []).map(function (c) {
          var f = c && c["function"] ? c["function"] : c;
          return el("pre", { cls: "text tool-call", text: (c && c.id ? c.id + ": " : "") + (f && f.name) + "(" + (f && typeof f.arguments === "string" ? f.arguments : JSON.stringify(f && f.arguments)) + ")" });
        }));
    })));
    return box;
  }
  function detailsView(details) {
    var box = el("div", { cls: "details" }, el("h3", { text: "Verifier details" }));
    var kv = [];
    if ("answer" in details) kv.push(["extracted answer", details.answer === null ? "(none)" : details.answer]);
    if (details.answers) kv.push(["all answers", JSON.stringify(details.answers)]);
    if (details.format) kv.push(["answer format", details.format]);
    if (details.reason) kv.push(["reason", details.reason]);
    if ("passed" in details && "total" in details) kv.push(["tests passed", details.passed + " / " + details.total]);
    if (details.job_status) kv.push(["job status", details.job_status]);
    if (details.error) kv.push(["error", details.error]);
    if (kv.length) append(box, el("table", { cls: "grid kv" }, el("tbody", null, kv.map(function (p) {
      return el("tr", null, el("td", { text: p[0] }), el("td", null, el("code", { text: typeof p[1] === "string" ? p[1] : JSON.stringify(p[1]) })));
    }))));
    if (Array.isArray(details.tests)) {
      var failed = [];
      details.tests.forEach(function (t, k) { if (t && t.status !== "passed") failed.push([k, t]); });
      if (failed.length) {
        var first = failed[0];
        append(box, el("p", { cls: "failed" }, "first failed test: #" + (first[0] + 1) + " (" + first[1].status + ")" + (failed.length > 1 ? ", " + (failed.length - 1) + " more failed" : "")),
          first[1].error ? el("pre", { cls: "text failed-error", text: String(first[1].error) }) : null);
      }
    }
    append(box, el("details", null, el("summary", { text: "all details (JSON)" }), el("pre", { cls: "text", text: JSON.stringify(details, null, 2) })));
    return box;
  }

  // ---------------------------------------------------------------- completion rendering
  var KEYWORDS = {};
  ("False None True and as assert async await break class continue def del elif else except finally for from global if import in is " +
   "lambda nonlocal not or pass raise return try while with yield match case self print len range int str float list dict set tuple " +
   "function var let const new this null undefined typeof instanceof public private static void int long double char bool " +
   "include fn impl struct enum pub use mut").split(" ").forEach(function (w) { KEYWORDS[w] = true; });
  var CODE_TOKEN = /(#[^\n]*|\/\/[^\n]*)|("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)|(\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|([A-Za-z_]\w*)(?=\s*\()|([A-Za-z_]\w*)/g;
  var MATH_TOKEN = /\$\$[\s\S]+?\$\$|\\\[[\s\S]+?\\\]|\\\([\s\S]+?\\\)|\$(?!\s)[^$\n]{1,400}?\$|\\boxed\s*\{/g;
  var FENCE = /^[ \t]*(`{3,}|~{3,})[^\n]*\n?/gm;
  function segments(text) {
    // [start, end, kind]: kind "code" for fenced blocks (fence lines included), else "prose"
    var out = [], pos = 0, open;
    FENCE.lastIndex = 0;
    while ((open = FENCE.exec(text)) !== null) {
      var fence = open[1];
      var closeRe = new RegExp("^[ \\t]*" + (fence[0] === "`" ? "`" : "~") + "{" + fence.length + ",}[ \\t]*$", "gm");
      closeRe.lastIndex = open.index + open[0].length;
      var close = closeRe.exec(text);
      var end = close ? close.index + close[0].length : text.length;
      if (text.charAt(end) === "\n") end++;  // the block is shown as a block: its line break is drawn already
      if (open.index > pos) out.push([pos, open.index, "prose"]);
      out.push([open.index, end, "code", open.index + open[0].length, close ? close.index : text.length]);
      pos = end;
      FENCE.lastIndex = end;
      if (!close) break;
    }
    if (pos < text.length) out.push([pos, text.length, "prose"]);
    return out;
  }
  function boxedEnd(text, from) {
    var depth = 1;
    for (var k = from; k < text.length; k++) {
      if (text[k] === "{") depth++;
      else if (text[k] === "}" && --depth === 0) return k + 1;
    }
    return text.length;
  }
  function tokens(text, wholeCode) {
    // [start, end, class] covering text; wholeCode: text without fences is code (code verifiers read it so)
    var out = [];
    function push(s, e, cls) { if (e > s) out.push([s, e, cls]); }
    var segs = segments(text);
    if (wholeCode && !segs.some(function (seg) { return seg[2] === "code"; })) segs = [[0, text.length, "code", 0, text.length]];
    segs.forEach(function (seg) {
      if (seg[2] === "code") {
        push(seg[0], seg[3], "tk-fence");
        var code = text.slice(seg[3], seg[4]), m, last = 0;
        CODE_TOKEN.lastIndex = 0;
        while ((m = CODE_TOKEN.exec(code)) !== null) {
          if (m[0] === "") { CODE_TOKEN.lastIndex++; continue; }
          var cls = m[1] ? "tk-com" : m[2] ? "tk-str" : m[3] ? "tk-num" : m[4] ? (KEYWORDS[m[4]] ? "tk-kw" : "tk-fn") : KEYWORDS[m[5]] ? "tk-kw" : "";
          if (!cls) continue;
          push(seg[3] + last, seg[3] + m.index, "");
          push(seg[3] + m.index, seg[3] + m.index + m[0].length, cls);
          last = m.index + m[0].length;
        }
        push(seg[3] + last, seg[4], "");
        push(seg[4], seg[1], "tk-fence");
        out.push(["block", seg[0], seg[1]]);
        return;
      }
      var prose = text.slice(seg[0], seg[1]), mm, at = 0;
      MATH_TOKEN.lastIndex = 0;
      while ((mm = MATH_TOKEN.exec(prose)) !== null) {
        var end = mm.index + mm[0].length;
        if (mm[0].charAt(mm[0].length - 1) === "{" && mm[0].indexOf("\\boxed") === 0) end = boxedEnd(prose, end);
        push(seg[0] + at, seg[0] + mm.index, "");
        push(seg[0] + mm.index, seg[0] + end, "math");
        at = end;
        MATH_TOKEN.lastIndex = end;
      }
      push(seg[0] + at, seg[1], "");
    });
    return out;
  }
  function richText(text, spans, wholeCode, cls, id) {
    // text with code blocks highlighted, math set apart and the spans [start, end, label] marked
    var pre = el("pre", { cls: cls, id: id });
    var toks = text.length > 300000 ? [[0, text.length, ""]] : tokens(text, wholeCode);
    var blocks = toks.filter(function (t) { return t[0] === "block"; });
    toks = toks.filter(function (t) { return t[0] !== "block"; });
    var cuts = {};
    spans.forEach(function (s) { cuts[s[0]] = true; cuts[s[1]] = true; });
    blocks.forEach(function (b) { cuts[b[1]] = true; cuts[b[2]] = true; });
    function spanAt(pos) {
      for (var k = 0; k < spans.length; k++) if (spans[k][0] <= pos && pos < spans[k][1]) return spans[k];
      return null;
    }
    function blockAt(pos) {
      for (var k = 0; k < blocks.length; k++) if (blocks[k][1] <= pos && pos < blocks[k][2]) return blocks[k];
      return null;
    }
    var currentBlock = null, blockNode = null;
    toks.forEach(function (t) {
      var points = [t[0]];
      Object.keys(cuts).forEach(function (c) { c = Number(c); if (c > t[0] && c < t[1]) points.push(c); });
      points.sort(function (a, b) { return a - b; }).push(t[1]);
      for (var k = 0; k + 1 < points.length; k++) {
        var s = points[k], e = points[k + 1], piece = text.slice(s, e);
        var hit = spanAt(s);
        var node = hit ? el("mark", { cls: "evidence " + t[2], title: hit[2], text: piece }) : t[2] ? el("span", { cls: t[2], text: piece }) : document.createTextNode(piece);
        var b = blockAt(s);
        if (b !== currentBlock) { currentBlock = b; blockNode = b ? el("span", { cls: "codeblock" }) : null; if (blockNode) pre.appendChild(blockNode); }
        (blockNode || pre).appendChild(node);
      }
    });
    return pre;
  }

  // ---------------------------------------------------------------- comparison
  function renderCompare() {
    var root = document.getElementById("tab-compare");
    D.comparisons.forEach(function (cmp) {
      var a = RUNS[cmp.a], b = RUNS[cmp.b];
      append(root, el("h2", { text: a.label + " (" + a.name + ") vs " + b.label + " (" + b.name + ")" }),
        el("p", { cls: "muted", text: "Paired over shared tasks, as rlenv compare " + a.label + " " + b.label + ": difference " + a.label + " − " + b.label + " with a paired bootstrap interval and a paired permutation-test p-value." }));
      var ok = cmp.metrics.filter(function (m) { return !m.error; });
      append(root, el("table", { cls: "grid compare-table" },
        el("thead", null, el("tr", null, ["metric", a.label, b.label, a.label + " − " + b.label, "CI", "p", "tasks", "better / worse / tied"].map(function (h, k) { return el("th", { cls: k ? "num" : null, text: h }); }))),
        el("tbody", null, ok.map(function (m) {
          var d = m.difference;
          return el("tr", null, el("td", { text: m.metric }), el("td", { cls: "num", text: fmt(m.mean_a, 4) }), el("td", { cls: "num", text: fmt(m.mean_b, 4) }),
            el("td", { cls: "num " + (d.value > 0 ? "delta-pos" : d.value < 0 ? "delta-neg" : ""), text: signed(d.value, 4) }),
            el("td", { cls: "num", text: Math.round(100 * d.confidence) + "% [" + signed(d.low, 4) + ", " + signed(d.high, 4) + "]" }),
            el("td", { cls: "num", text: m.p_value < 0.0001 ? m.p_value.toExponential(1) : fmt(m.p_value, 4) }),
            el("td", { cls: "num", text: m.num_tasks + (m.only_in_a || m.only_in_b ? " (+" + m.only_in_a + " only " + a.label + ", +" + m.only_in_b + " only " + b.label + ")" : "") }),
            el("td", { cls: "num", text: m.wins + " / " + m.losses + " / " + m.ties }));
        }))));
      cmp.metrics.filter(function (m) { return m.error; }).forEach(function (m) {
        append(root, el("p", { cls: "failed", text: m.metric + ": " + m.error }));
      });
      var deltas = TASKS.map(function (row) { return taskValue(row, "delta:" + cmp.b); }).filter(function (d) { return d !== null; });
      var inA = deltas.filter(function (d) { return d > 0; }).length, inB = deltas.filter(function (d) { return d < 0; }).length;
      var showTasks = function (change) {
        return function () {
          taskState.change = change + ":" + cmp.b; taskState.page = 0;
          document.getElementById("task-change").value = taskState.change; drawTasks(); showTab("tasks");
        };
      };
      append(root, el("p", null, "Per task (pass rate over its samples): " + inA + " tasks better in " + a.label + ", " + inB + " better in " + b.label + ", " + (deltas.length - inA - inB) + " the same. ",
        el("button", { type: "button", cls: "linklike", id: "show-better-" + cmp.b, text: "tasks better in " + b.label, on: { click: showTasks("worse") } }), " · ",
        el("button", { type: "button", cls: "linklike", id: "show-worse-" + cmp.b, text: "tasks better in " + a.label, on: { click: showTasks("better") } })),
        el("p", { cls: "muted", text: "The samples of two runs are independent draws: sample i of " + a.label + " and sample i of " + b.label + " are not a pair, so runs are compared per task." }));
    });
  }

  // ---------------------------------------------------------------- training
  function renderTraining() {
    var root = document.getElementById("tab-training");
    var train = RUNS.map(function (r, i) { return i; }).filter(function (i) { return RUNS[i].curves; });
    var panels = ["reward", "training-batch accuracy", "length", "hack rate"];
    var cards = el("div", { cls: "cards", id: "curves" });
    panels.forEach(function (panel) {
      var lines = [];
      train.forEach(function (i, n) {
        var curves = RUNS[i].curves;
        Object.keys(curves.panels[panel]).forEach(function (name, k) {
          lines.push({ name: (train.length > 1 ? RUNS[i].label + " " : "") + name, color: COLORS[(n + k) % COLORS.length],
            xs: curves.steps, ys: curves.panels[panel][name] });
        });
      });
      append(cards, el("div", { cls: "card", "data-panel": panel }, el("h3", { text: panel }),
        chart({ lines: lines, xlabel: "step", ymin: panel === "training-batch accuracy" || panel === "hack rate" ? 0 : undefined, ymax: panel === "training-batch accuracy" ? 1 : undefined,
          empty: panel === "hack rate" ? "no episode was flagged by a hack detector" : "not logged" }), legend(lines)));
    });
    append(root, el("h2", { text: "Training curves" }), cards);
    var names = {};
    train.forEach(function (i) { Object.keys(RUNS[i].curves.series).forEach(function (n) { names[n] = true; }); });
    var other = select("train-metric", "any logged metric", Object.keys(names).sort().map(function (n) { return [n, n]; }), function () { drawOther(); });
    var holder = el("div", { id: "train-other" });
    function drawOther() {
      var name = other.input.value;
      var lines = train.filter(function (i) { return RUNS[i].curves.series[name]; }).map(function (i, n) {
        return { name: RUNS[i].label + " " + name, color: COLORS[n % COLORS.length], xs: RUNS[i].curves.steps, ys: RUNS[i].curves.series[name] };
      });
      append(clear(holder), chart({ lines: lines, xlabel: "step", width: 640 }), legend(lines));
    }
    append(root, el("h2", { text: "Other metrics" }), el("div", { cls: "filters" }, other.label), holder);
    if (Object.keys(names).length) drawOther();
    var logged = S.filter(function (row) { return RUNS[row[C.run]].curves; }).length;
    append(root, el("p", { cls: "muted", text: logged ? logged + " completions were logged during training (samples.jsonl): read them in the Samples tab, filtered by step." : "This run logged no completions (samples.jsonl)." }));
  }

  // ---------------------------------------------------------------- start
  renderRuns();
  if (RUNS.some(function (r) { return !r.curves; })) addTab("overview", "Overview");
  if (EVAL_RUNS.length) addTab("tasks", "Tasks");
  addTab("samples", "Samples");
  if (D.comparisons.length) addTab("compare", "Comparison");
  if (RUNS.some(function (r) { return r.curves; })) addTab("training", "Training");
  if (TABS.indexOf("overview") >= 0) renderOverview();
  if (EVAL_RUNS.length) { buildTasks(); renderTaskFilters(); drawTasks(); }
  drawSampleFilters();
  drawSamples();
  if (D.comparisons.length) renderCompare();
  if (RUNS.some(function (r) { return r.curves; })) renderTraining();
  showTab(RUNS.every(function (r) { return r.curves; }) ? "training" : "overview");
  window.rlenvTimings.rendered = performance.now();
  document.body.setAttribute("data-ready", "1");
})();
