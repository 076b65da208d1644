// SPDX-License-Identifier: GPL-2.0
//
// powerpin report: the interactive plots of the HTML report.  No library,
// no network: the page's Content-Security-Policy lets only this script
// (by its hash) run.  The data are in the page: pp-meta (JSON), pp-samples
// (base64 records: u32 microseconds since the previous record, f32 volts,
// f32 amperes discharge-positive, little-endian; NaN volts: a time step of
// a gap too long for 32 bits, no sample), pp-slices (base64: f64
// start s, f32 duration s, f32 joules, u16 name, u16 depth in its thread,
// i32 thread id; depth 65535 is a powerpin marker span), pp-threads (JSON:
// each thread with slices, its name and process), pp-energy (JSON,
// cumulative joules per process at even times) and, with report --model,
// pp-model (base64 f32 watts the model predicts at each sample, drawn
// beside the power).
//
// Slices go in one lane per thread, grouped by process as systrace and
// Perfetto show them, a row per nesting depth (as deep as they go); a
// click on a process's or a thread's name folds it.
//
// Every plot shares one time axis.  Drawing decimates: each pixel column
// gets the min and max of its samples (and their mean), so a 360,000
// sample capture draws as fast as a short one; the selection's energy is
// the trapezoid over every sample in it.
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var W = 900, H = 150, L = 78, R = 16, T = 22, B = 22, LANE = 18;
  var MODEL_COLOUR = '#1f77b4';	// the power_profile.xml model's power (report --model)
  var $ = function (id) { return document.getElementById(id); };
  var meta = JSON.parse($('pp-meta').textContent);
  var energy = JSON.parse($('pp-energy').textContent);
  // series that never held any energy (no other processes, say) stay out
  energy.series = energy.series.filter(function (s) {
    return s.j.some(function (x) { return Math.abs(x) > 1e-9; });
  });

  function b64(id) {
    var s = atob($(id).textContent.replace(/\s+/g, ''));
    var u = new Uint8Array(s.length);
    for (var k = 0; k < s.length; k++) u[k] = s.charCodeAt(k);
    return new DataView(u.buffer);
  }

  // ---- data ---------------------------------------------------------------
  var d = b64('pp-samples'), nrec = Math.floor(d.byteLength / 12), n = 0;
  var t = new Float64Array(nrec), v = new Float32Array(nrec), i = new Float32Array(nrec),
      p = new Float32Array(nrec), us = 0;
  for (var k = 0; k < nrec; k++) {
    us += d.getUint32(12 * k, true);
    var vk = d.getFloat32(12 * k + 4, true);
    if (vk !== vk) continue;	// NaN: a step of a long gap, no sample
    t[n] = us / 1e6;
    v[n] = vk;
    i[n] = d.getFloat32(12 * k + 8, true);
    p[n] = v[n] * i[n];
    n++;
  }
  t = t.subarray(0, n); v = v.subarray(0, n); i = i.subarray(0, n); p = p.subarray(0, n);
  // pp-model (report --model): the model's power at each sample, f32 watts
  var mp = null;
  if ($('pp-model')) {
    var md = b64('pp-model');
    if (md.byteLength === 4 * n) {
      mp = new Float32Array(n);
      for (k = 0; k < n; k++) mp[k] = md.getFloat32(4 * k, true);
    }
  }
  var sd = b64('pp-slices'), slices = [], markers = [];
  for (k = 0; k + 24 <= sd.byteLength; k += 24) {
    var s = { t0: sd.getFloat64(k, true), dur: sd.getFloat32(k + 8, true),
              j: sd.getFloat32(k + 12, true), name: meta.slice_names[sd.getUint16(k + 16, true)],
              row: sd.getUint16(k + 18, true), tid: sd.getInt32(k + 20, true) };
    s.t1 = s.t0 + s.dur;
    (s.row === 65535 ? markers : slices).push(s);
  }
  slices.sort(function (a, b) { return a.t0 - b.t0; });

  // ---- lanes: a thread each, grouped by process -------------------------------
  var threads = JSON.parse($('pp-threads').textContent), procs = [], top = [];
  (function () {
    var byTid = {}, byProc = {};
    slices.forEach(function (s, k) {
      var ln = byTid[s.tid];
      s.k = k;
      if (!ln) {
        var th = threads[s.tid] || { name: '', tgid: s.tid, process: '' };
        // tgid null: the input does not say; all such threads in one group
        var key = th.tgid === null ? 'unknown' : String(th.tgid);
        var pr = byProc[key];
        if (!pr) {
          pr = byProc[key] = { key: key, tgid: th.tgid, name: th.process, lanes: [], folded: false };
          procs.push(pr);
        }
        ln = byTid[s.tid] = { tid: s.tid, name: th.name, rows: [], count: 0, folded: false };
        pr.lanes.push(ln);
      }
      while (ln.rows.length <= s.row) ln.rows.push([]);
      ln.rows[s.row].push(s);
      ln.count++;
      if (s.row === 0) top.push(s);
    });
    procs.sort(function (a, b) {
      return (a.tgid === null) - (b.tgid === null) || a.tgid - b.tgid;
    });
    procs.forEach(function (pr) { pr.lanes.sort(function (a, b) { return a.tid - b.tid; }); });
  })();
  var HEAD = 14, laneH = 0;
  // y of every row shown, from the folds: the lane's height follows
  function layout() {
    var y = T;
    procs.forEach(function (pr) {
      pr.y = y; y += HEAD;
      pr.lanes.forEach(function (ln) {
        ln.shown = !pr.folded;
        if (!ln.shown) return;
        ln.y = y; y += HEAD;
        ln.y0 = y;
        if (!ln.folded) y += LANE * ln.rows.length;
      });
    });
    laneH = Math.max(y - T, LANE);
    lane.setAttribute('height', T + laneH + 16);
  }

  // The slices of one row in view as pixel runs: slices narrower than a few
  // pixels merge with their neighbours, so a capture with 200,000 slices
  // draws at most a few hundred shapes per row.  Each run: x0, x1, the
  // slice when it is one alone, how many it covers.
  function sliceRuns(row) {
    var out = [], cur = null, a, b;
    for (var k = 0; k < row.length; k++) {
      var s = row[k];
      if (s.t1 < view.t0) continue;
      if (s.t0 > view.t1) break;
      a = Math.max(X(s.t0), L); b = Math.min(X(s.t1), W - R);
      if (cur && a <= cur.x1 + 1 && (b - a < 4 || cur.x1 - cur.x0 < 4)) {
        cur.x1 = Math.max(cur.x1, b); cur.count++; cur.slice = null;
        cur.t1 = Math.max(cur.t1, s.t1);
        if (cur.name !== s.name) cur.name = null;
        continue;
      }
      cur = { x0: a, x1: b, slice: s, idx: s.k, count: 1, name: s.name, t0: s.t0, t1: s.t1 };
      out.push(cur);
    }
    return out;
  }
  var end = n ? t[n - 1] : 1;
  var view = { t0: 0, t1: end > 0 ? end : 1 }, sel = null, hover = null;

  // ---- numbers ------------------------------------------------------------
  function lower(x) {	// first sample at or after x
    var a = 0, b = n;
    while (a < b) { var m = (a + b) >> 1; if (t[m] < x) a = m + 1; else b = m; }
    return a;
  }
  // energy from the first sample to sample k, once: any span is then two lookups
  var cum = new Float64Array(n);
  for (k = 1; k < n; k++) cum[k] = cum[k - 1] + (p[k - 1] + p[k]) / 2 * (t[k] - t[k - 1]);
  // energy from the first sample to x: power linear between samples, as the report does
  function energyTo(x) {
    var k = lower(x);
    if (k <= 0) return 0;
    if (k >= n) return cum[n - 1];
    var f = (x - t[k - 1]) / (t[k] - t[k - 1] || 1), px = p[k - 1] + f * (p[k] - p[k - 1]);
    return cum[k - 1] + (p[k - 1] + px) / 2 * (x - t[k - 1]);
  }
  function joules(a, b) { return b > a ? energyTo(b) - energyTo(a) : 0; }
  function fmt(x, unit) {
    if (Math.abs(x) < 1e-9) x = 0;
    var a = Math.abs(x);
    var s = a >= 100 ? x.toFixed(1) : a >= 10 ? x.toFixed(2) : a >= 1 ? x.toFixed(3) :
            a >= 0.01 ? x.toFixed(4) : a === 0 ? '0' : x.toExponential(2);
    return s + (unit ? ' ' + unit : '');
  }
  function ticks(lo, hi, count) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var err = span / count / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var x = Math.ceil(lo / step) * step; x <= hi + step * 1e-9; x += step)
      out.push(Math.abs(x) < step * 1e-9 ? 0 : x);
    return { list: out, step: step };
  }
  function tickText(x, step, unit) {
    var dec = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    return x.toFixed(Math.min(dec, 9)) + ' ' + unit;
  }

  // ---- SVG helpers ----------------------------------------------------------
  function el(name, attrs, parent, text) {
    var e = document.createElementNS(NS, name);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function X(x) { return L + (x - view.t0) / (view.t1 - view.t0) * (W - L - R); }
  function tAt(px) { return view.t0 + (px - L) / (W - L - R) * (view.t1 - view.t0); }

  // ---- plots ----------------------------------------------------------------
  var plots = [
    { id: 'voltage', title: 'Voltage', unit: 'V', data: v, colour: '#59a14f', zero: false },
    { id: 'current', title: 'Current (discharge +)', unit: 'A', data: i, colour: '#e15759', zero: true },
    { id: 'power', title: 'Power (discharge +)', unit: 'W', data: p, colour: '#b07aa1', zero: true,
      model: mp }
  ];
  var root = $('pp-plots');
  var lane = el('svg', { class: 'pp-lane', width: W, height: T + LANE + 16 }, null);
  root.appendChild(lane);
  plots.forEach(function (pl) {
    var box = document.createElement('div');
    box.className = 'pp-box';
    var h = document.createElement('h3');
    h.textContent = pl.title + ' (' + pl.unit + ')';
    box.appendChild(h);
    pl.svg = el('svg', { class: 'pp-plot', id: 'pp-plot-' + pl.id, width: W, height: H + T + B }, box);
    root.appendChild(box);
  });
  var ebox = document.createElement('div');
  ebox.className = 'pp-box';
  var eh = document.createElement('h3');
  eh.textContent = 'Energy by process, cumulative (J, discharge +)';
  ebox.appendChild(eh);
  var esvg = el('svg', { class: 'pp-plot pp-energy', id: 'pp-plot-energy', width: W,
                         height: H + T + B }, ebox);
  // the processes' legend wraps as text does, below the chart
  var elegend = document.createElement('div');
  elegend.className = 'pp-legend';
  elegend.style.cssText = 'font-size:12px;max-width:' + W + 'px;margin-left:' + L + 'px';
  ebox.appendChild(elegend);
  root.appendChild(ebox);

  // min, max and mean of pl.data per pixel column over the visible range
  function columns(data) {
    var cols = W - L - R, out = [], k = Math.max(lower(view.t0) - 1, 0);
    var last = Math.min(lower(view.t1) + 1, n);
    if (last - k <= cols * 2) {
      for (; k < last; k++) out.push({ x: X(t[k]), lo: data[k], hi: data[k], mean: data[k] });
      return { raw: true, list: out };
    }
    var c = -1, cur = null;
    for (; k < last; k++) {
      var col = Math.floor(X(t[k]));
      if (col !== c) {
        if (cur) { cur.mean /= cur.n; out.push(cur); }
        cur = { x: col + 0.5, lo: data[k], hi: data[k], mean: 0, n: 0 };
        c = col;
      }
      if (data[k] < cur.lo) cur.lo = data[k];
      if (data[k] > cur.hi) cur.hi = data[k];
      cur.mean += data[k]; cur.n++;
    }
    if (cur) { cur.mean /= cur.n; out.push(cur); }
    return { raw: false, list: out };
  }

  // the plot frame, which also clips what is drawn in it
  function frame(svg) {
    var id = 'pp-clip-' + svg.id, defs = el('defs', {}, svg), cp = el('clipPath', { id: id }, defs);
    el('rect', { x: L, y: T, width: W - L - R, height: H }, cp);
    el('rect', { x: L, y: T, width: W - L - R, height: H, fill: '#fcfcfc', stroke: '#999' }, svg);
    return 'url(#' + id + ')';
  }
  function axes(svg, lo, hi, unit, zero) {
    var Y = function (y) { return T + (hi - y) / (hi - lo) * H; };
    svg.clip = frame(svg);
    var xt = ticks(view.t0, view.t1, 8), yt = ticks(lo, hi, 5);
    xt.list.forEach(function (x) {
      el('line', { class: 'pp-grid', x1: X(x), x2: X(x), y1: T, y2: T + H, stroke: '#e3e3e3' }, svg);
      el('text', { class: 'pp-tick pp-xtick', x: X(x), y: T + H + 15, 'text-anchor': 'middle',
                   'font-size': 11 }, svg, tickText(x, xt.step, 's'));
    });
    yt.list.forEach(function (y) {
      if (y < lo || y > hi) return;
      el('line', { class: 'pp-grid', x1: L, x2: W - R, y1: Y(y), y2: Y(y), stroke: '#e3e3e3' }, svg);
      el('text', { class: 'pp-tick pp-ytick', x: L - 5, y: Y(y) + 4, 'text-anchor': 'end',
                   'font-size': 11 }, svg, tickText(y, yt.step, unit));
    });
    if (zero && lo <= 0 && hi >= 0)
      el('line', { class: 'pp-zero', x1: L, x2: W - R, y1: Y(0), y2: Y(0), stroke: '#333',
                   'stroke-width': 1 }, svg);
    return Y;
  }

  function bands(svg) {
    runs0.forEach(function (r) {
      el('rect', { class: 'pp-band', x: r.x0, y: T, width: Math.max(r.x1 - r.x0, 0.5), height: H,
                   fill: '#f2c14e', 'fill-opacity': 0.18 }, svg);
    });
    markers.forEach(function (m) {
      if (m.t0 < view.t0 || m.t0 > view.t1) return;
      el('line', { class: 'pp-marker', x1: X(m.t0), x2: X(m.t0), y1: T, y2: T + H,
                   stroke: '#3b3b98', 'stroke-dasharray': '4 3' }, svg);
    });
  }

  function legend(svg, items) {
    // above the frame, so it never hides data
    var g = el('g', { class: 'pp-legend' }, svg), x = L;
    items.forEach(function (it) {
      el('rect', { x: x, y: 6, width: 12, height: 8, fill: it.colour,
                   'fill-opacity': it.alpha || 1 }, g);
      el('text', { class: 'pp-legend-item', x: x + 16, y: 14, 'font-size': 11 }, g, it.label);
      x += 26 + it.label.length * 6.1;
    });
  }

  function drawPlot(pl) {
    var svg = pl.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var cols = columns(pl.data), lo = Infinity, hi = -Infinity;
    cols.list.forEach(function (c) { lo = Math.min(lo, c.lo); hi = Math.max(hi, c.hi); });
    var mcols = pl.model ? columns(pl.model) : null;
    if (mcols) mcols.list.forEach(function (c) { lo = Math.min(lo, c.lo); hi = Math.max(hi, c.hi); });
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (pl.zero) { lo = Math.min(lo, 0); hi = Math.max(hi, 0); }
    var pad = (hi - lo) * 0.06 || Math.abs(hi) * 0.05 || 1;
    lo -= pad; hi += pad;
    if (pl.zero && lo > -pad) lo = Math.min(lo, 0);
    var Y = axes(svg, lo, hi, pl.unit, pl.zero);
    bands(svg);
    var pts = cols.list.map(function (c) { return c.x.toFixed(1) + ',' + Y(c.mean).toFixed(1); });
    if (!cols.raw) {
      var env = cols.list.map(function (c) { return c.x.toFixed(1) + ',' + Y(c.hi).toFixed(1); });
      for (var k = cols.list.length - 1; k >= 0; k--)
        env.push(cols.list[k].x.toFixed(1) + ',' + Y(cols.list[k].lo).toFixed(1));
      el('polygon', { class: 'pp-envelope', points: env.join(' '), fill: pl.colour,
                      'fill-opacity': 0.3, 'clip-path': svg.clip }, svg);
    }
    el('polyline', { class: 'pp-line', points: pts.join(' '), fill: 'none', stroke: pl.colour,
                     'stroke-width': 1.5, 'clip-path': svg.clip }, svg);
    var items = cols.raw ? [{ colour: pl.colour, label: pl.title + ', every sample' }] :
      [{ colour: pl.colour, label: pl.title + ', mean per pixel' },
       { colour: pl.colour, alpha: 0.3, label: 'min to max' }];
    if (mcols) {
      el('polyline', { class: 'pp-model-line', points: mcols.list.map(function (c) {
        return c.x.toFixed(1) + ',' + Y(c.mean).toFixed(1); }).join(' '), fill: 'none',
        stroke: MODEL_COLOUR, 'stroke-width': 1.5, 'stroke-dasharray': '5 3',
        'clip-path': svg.clip }, svg);
      items.push({ colour: MODEL_COLOUR, label: 'Modelled (power_profile.xml)' });
    }
    legend(svg, items);
    pl.Y = Y;
  }

  var PCOL = ['#4e79a7', '#f28e2b', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#bab0ac',
              '#59a14f', '#e15759', '#b07aa1', '#8cd17d', '#d4a6c8'];
  function drawEnergy() {
    var svg = esvg, tt = energy.t, series = energy.series;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var hi = -Infinity, lo = 0, top = tt.map(function () { return 0; });
    series.forEach(function (s) {
      s.j.forEach(function (x, k) { top[k] += x; });
    });
    // the range of the points in view and the one each side of it
    tt.forEach(function (x, k) {
      if ((k + 1 < tt.length && tt[k + 1] < view.t0) || (k > 0 && tt[k - 1] > view.t1)) return;
      hi = Math.max(hi, top[k]);
      lo = Math.min(lo, top[k]);
    });
    hi = isFinite(hi) && hi > 0 ? hi * 1.06 : 1;
    var Y = axes(svg, lo, hi, 'J', true), base = tt.map(function () { return 0; });
    series.forEach(function (s, si) {
      var up = [], down = [];
      for (var k = 0; k < tt.length; k++) {
        up.push(X(tt[k]).toFixed(1) + ',' + Y(base[k] + s.j[k]).toFixed(1));
        down.push(X(tt[k]).toFixed(1) + ',' + Y(base[k]).toFixed(1));
        base[k] += s.j[k];
      }
      el('polygon', { class: 'pp-stack', points: up.concat(down.reverse()).join(' '),
                      fill: PCOL[si % PCOL.length], 'fill-opacity': 0.85, 'clip-path': svg.clip }, svg);
    });
    while (elegend.firstChild) elegend.removeChild(elegend.firstChild);
    series.forEach(function (s, si) {
      var item = document.createElement('span'), sw = document.createElement('span');
      sw.style.cssText = 'display:inline-block;width:12px;height:8px;margin-right:4px;background:' +
        PCOL[si % PCOL.length];
      item.className = 'pp-legend-item';
      item.style.cssText = 'display:inline-block;margin-right:14px;white-space:nowrap';
      item.appendChild(sw);
      item.appendChild(document.createTextNode(s.name + ' ' + fmt(s.total, 'J')));
      elegend.appendChild(item);
    });
    esvg.Y = Y;
  }

  // a process's or a thread's name: a click folds or unfolds it
  function laneLabel(svg, x, y, text, folded, attr, value, cls) {
    var g = el('text', { class: cls, x: x, y: y + 11, 'font-size': 11, cursor: 'pointer',
                         'font-weight': cls === 'pp-proc-label' ? 'bold' : 'normal' }, svg,
               (folded ? '\u25b8 ' : '\u25be ') + text);
    g.setAttribute(attr, value);
    return g;
  }
  function drawLane() {
    var svg = lane;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    layout();
    if (!procs.length) el('text', { x: 4, y: T + 12, 'font-size': 11 }, svg, 'slices');
    procs.forEach(function (pr) {
      laneLabel(svg, 4, pr.y, pr.tgid === null ? pr.name : (pr.name || 'process') + ' ' + pr.tgid,
                pr.folded, 'data-proc', pr.key, 'pp-proc-label');
      pr.lanes.forEach(function (ln) {
        if (!ln.shown) return;
        laneLabel(svg, 16, ln.y, (ln.name || 'thread') + ' ' + ln.tid +
                  (ln.folded ? ' (' + ln.count + ' slices)' : ''), ln.folded, 'data-tid', ln.tid,
                  'pp-lane-label');
        if (!ln.folded)
          ln.rows.forEach(function (row, depth) { drawRow(svg, row, ln.y0 + depth * LANE); });
      });
    });
    drawMarkers(svg);
  }
  function drawRow(svg, row, y) {
    sliceRuns(row).forEach(function (r) {
      var s = r.slice;
      var rect = el('rect', { class: 'pp-slice', x: r.x0, y: y, width: Math.max(r.x1 - r.x0, 1),
                              height: LANE - 3, fill: '#f2c14e', stroke: '#b8902d' }, svg);
      if (!s) {
        // slices too narrow to draw alone: one labelled run; a click zooms to it
        var what = r.name !== null ? r.name + ' \u00d7' + r.count : r.count + ' slices';
        rect.setAttribute('data-run', r.t0 + ',' + r.t1);
        el('title', {}, rect, what + ': click or zoom in to see them');
        if (r.x1 - r.x0 > what.length * 6.5 + 4)
          el('text', { class: 'pp-slice-label', x: r.x0 + 3, y: y + 11, 'font-size': 10,
                       'pointer-events': 'none' }, svg, what);
        return;
      }
      rect.setAttribute('data-slice', r.idx);
      el('title', {}, rect, s.name + ': ' + fmt(s.dur, 's') + ', ' + fmt(s.j, 'J'));
      if (r.x1 - r.x0 > s.name.length * 6.5 + 4)
        el('text', { class: 'pp-slice-label', x: r.x0 + 3, y: y + 11, 'font-size': 10,
                     'pointer-events': 'none', 'data-slice': r.idx }, svg, s.name);
    });
  }
  function drawMarkers(svg) {
    var my = T + laneH + 10;
    markers.forEach(function (m, idx) {
      if (m.t0 < view.t0 || m.t0 > view.t1) return;
      el('line', { class: 'pp-marker', x1: X(m.t0), x2: X(m.t0), y1: T, y2: my, stroke: '#3b3b98',
                   'stroke-dasharray': '4 3' }, svg);
      var ml = el('text', { class: 'pp-marker-label', x: X(m.t0) + 3, y: my + 2, 'font-size': 10,
                            fill: '#3b3b98', 'data-marker': idx }, svg, m.name);
      el('title', {}, ml, m.name + ' until ' + fmt(m.t1, 's') + ': ' + fmt(m.j, 'J'));
    });
  }

  function drawSelection() {
    var info = $('pp-selection');
    [lane].concat(plots.map(function (pl) { return pl.svg; }), [esvg]).forEach(function (svg) {
      var old = svg.querySelector('.pp-sel');
      if (old) svg.removeChild(old);
      if (!sel) return;
      var a = Math.max(X(sel.t0), L), b = Math.min(X(sel.t1), W - R);
      if (b <= a) return;
      el('rect', { class: 'pp-sel', x: a, y: T, width: b - a, height: svg === lane ? laneH : H, fill: '#3b3b98', 'fill-opacity': 0.12,
                   'pointer-events': 'none' }, svg);
    });
    if (!sel) { info.textContent = 'Drag across a plot, or click a slice, to select a span.'; return; }
    var e = joules(sel.t0, sel.t1), dur = sel.t1 - sel.t0;
    info.textContent = (sel.name ? sel.name + ': ' : '') + fmt(sel.t0, 's') + ' to ' +
      fmt(sel.t1, 's') + ' (' + fmt(dur, 's') + '): ' + fmt(e, 'J') +
      (dur > 0 ? ', mean ' + fmt(e / dur, 'W') : '') +
      (sel.j !== undefined ? '; slice energy in the report ' + fmt(sel.j, 'J') : '');
  }

  var runs0 = [];
  function draw() {
    runs0 = sliceRuns(top);
    plots.forEach(drawPlot);
    drawEnergy();
    drawLane();
    drawSelection();
    drawHover();
    root.setAttribute('data-t0', view.t0);
    root.setAttribute('data-t1', view.t1);
    $('pp-range').textContent = fmt(view.t0, 's') + ' to ' + fmt(view.t1, 's') + ' of ' + fmt(end, 's');
  }

  // ---- hover readout ----------------------------------------------------------
  function nearest(x) {
    var k = lower(x);
    if (k >= n) return n - 1;
    if (k > 0 && x - t[k - 1] < t[k] - x) return k - 1;
    return k;
  }
  function drawHover() {
    var ro = $('pp-readout');
    plots.map(function (pl) { return pl.svg; }).concat([esvg, lane]).forEach(function (svg) {
      var old = svg.querySelector('.pp-cursor');
      if (old) svg.removeChild(old);
      if (hover === null || !n) return;
      el('line', { class: 'pp-cursor', x1: X(hover), x2: X(hover), y1: T, y2: svg === lane ?
                   T + laneH : T + H, stroke: '#222', 'pointer-events': 'none' }, svg);
    });
    if (hover === null || !n) { ro.textContent = 'Point at a plot for values.'; return; }
    var k = nearest(hover), kk = 0, parts = [];
    while (kk < energy.t.length - 1 && energy.t[kk + 1] <= t[k]) kk++;
    energy.series.slice(0, 3).forEach(function (s) { parts.push(s.name + ' ' + fmt(s.j[kk], 'J')); });
    ro.textContent = 't = ' + fmt(t[k], 's') + ': ' + fmt(v[k], 'V') + ', ' + fmt(i[k], 'A') + ', ' +
      fmt(p[k], 'W') + '; energy so far ' + fmt(joules(0, t[k]), 'J') +
      (parts.length ? ' (' + parts.join(', ') + ' at ' + fmt(energy.t[kk], 's') + ')' : '');
  }

  // ---- interaction --------------------------------------------------------------
  function setView(a, b) {
    var span = Math.max(b - a, Math.min(end, 1e-4));
    if (span > end) span = end > 0 ? end : 1;
    a = Math.max(0, Math.min(a, (end > 0 ? end : 1) - span));
    view.t0 = a; view.t1 = a + span;
    draw();
  }
  function zoom(factor, at) {
    setView(at - (at - view.t0) * factor, at + (view.t1 - at) * factor);
  }
  function svgX(ev, svg) {
    var r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) * W / r.width;
  }
  var drag = null;
  plots.map(function (pl) { return pl.svg; }).concat([esvg, lane]).forEach(function (svg) {
    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var x = svgX(ev, svg);
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        var dt = (ev.deltaX || ev.deltaY) / (W - L - R) * (view.t1 - view.t0);
        setView(view.t0 + dt, view.t1 + dt);
      } else {
        zoom(ev.deltaY > 0 ? 1.25 : 0.8, tAt(Math.min(Math.max(x, L), W - R)));
      }
    }, { passive: false });
    svg.addEventListener('mousedown', function (ev) {
      var x = svgX(ev, svg);
      if (x < L || x > W - R) return;
      drag = { svg: svg, x0: x, t0: tAt(x), view0: { t0: view.t0, t1: view.t1 },
               pan: ev.shiftKey || ev.button === 1, moved: false };
      ev.preventDefault();
    });
    svg.addEventListener('mousemove', function (ev) {
      var x = svgX(ev, svg);
      hover = x >= L && x <= W - R ? tAt(x) : null;
      drawHover();
    });
    svg.addEventListener('mouseleave', function () { hover = null; drawHover(); });
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var x = Math.min(Math.max(svgX(ev, drag.svg), L), W - R);
    if (Math.abs(x - drag.x0) > 2) drag.moved = true;
    if (drag.pan) {
      var dt = (drag.x0 - x) / (W - L - R) * (drag.view0.t1 - drag.view0.t0);
      setView(drag.view0.t0 + dt, drag.view0.t1 + dt);
    } else if (drag.moved) {
      var a = tAt(x);
      sel = { t0: Math.min(a, drag.t0), t1: Math.max(a, drag.t0) };
      drawSelection();
    }
  });
  window.addEventListener('mouseup', function () { drag = null; });
  lane.addEventListener('click', function (ev) {
    var fold = ev.target.getAttribute && (ev.target.getAttribute('data-proc') !== null ?
      procs.filter(function (pr) { return pr.key === ev.target.getAttribute('data-proc'); }) :
      ev.target.getAttribute('data-tid') !== null ?
      [].concat.apply([], procs.map(function (pr) { return pr.lanes; })).filter(function (ln) {
        return ln.tid === +ev.target.getAttribute('data-tid');
      }) : []);
    if (fold && fold.length) {
      fold.forEach(function (f) { f.folded = !f.folded; });
      draw();
      return;
    }
    var run = ev.target.getAttribute && ev.target.getAttribute('data-run');
    if (run) {
      var ab = run.split(',');
      setView(+ab[0], +ab[1]);
      return;
    }
    var idx = ev.target.getAttribute && ev.target.getAttribute('data-slice');
    if (idx === null || idx === undefined) return;
    var s = slices[+idx];
    sel = { t0: s.t0, t1: s.t1, name: s.name, j: s.j };
    drawSelection();
  });
  $('pp-zoom-in').addEventListener('click', function () { zoom(0.5, (view.t0 + view.t1) / 2); });
  $('pp-zoom-out').addEventListener('click', function () { zoom(2, (view.t0 + view.t1) / 2); });
  $('pp-zoom-sel').addEventListener('click', function () { if (sel) setView(sel.t0, sel.t1); });
  $('pp-reset').addEventListener('click', function () { setView(0, end); });
  document.addEventListener('keydown', function (ev) {
    var span = view.t1 - view.t0;
    if (ev.key === 'ArrowLeft') setView(view.t0 - span / 4, view.t1 - span / 4);
    else if (ev.key === 'ArrowRight') setView(view.t0 + span / 4, view.t1 + span / 4);
    else if (ev.key === '+' || ev.key === '=') zoom(0.5, (view.t0 + view.t1) / 2);
    else if (ev.key === '-') zoom(2, (view.t0 + view.t1) / 2);
  });
  // a view to share: report.html#t=START,END (seconds from the capture's start)
  var m = /#t=([0-9.eE+-]+),([0-9.eE+-]+)/.exec(location.hash);
  if (m && +m[2] > +m[1]) setView(+m[1], +m[2]); else draw();
  $('pp-help').textContent = 'Wheel: zoom at the pointer; shift+wheel or shift+drag: pan; ' +
    'drag: select a span; click a slice: select it; click a process or thread name: fold it; ' +
    'arrow keys and +/-: pan and zoom.';
})();
