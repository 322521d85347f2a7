// Hand-drawn SVG charts. Each has <title> and <desc>; the page shows the same numbers in a table.
// Colours come from CSS classes (series s1..s4, segments), so themes and print restyle them.
const NS = 'http://www.w3.org/2000/svg';
let uid = 0;

function svgEl(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function frame(width, height, title, desc, name) {
  const id = name ? `chart-${name}` : `chart${++uid}`;
  const svg = svgEl('svg', { id, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-labelledby': `${id}-t ${id}-d`, class: 'chart' });
  svg.append(svgEl('title', { id: `${id}-t` }, title), svgEl('desc', { id: `${id}-d` }, desc));
  return svg;
}

/** Round tick step for about `count` intervals up to `max`: 1, 2, 2.5 or 5 x 10^k. */
function niceTicks(max, count = 4) {
  if (!(max > 0)) return { step: 1, top: 1 };
  const raw = max / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw);
  return { step, top: Math.ceil(max / step - 1e-9) * step };
}

/**
 * Horizontal stacked bars on one absolute scale.
 * rows: [{label, sublabel, total, segments: [{cls, value, label, text}]}]; fmt formats an axis value,
 * `text` is the segment's figure as shown (the core's, formatted).
 */
export function stackedBars({ width, title, desc, rows, fmt, axisLabel, name }) {
  const narrow = width < 560;
  const labelW = narrow ? 0 : 130;
  const rowH = narrow ? 60 : 50;
  const barH = narrow ? 26 : 30;
  const top = 8;
  const bottom = 40;
  const right = 12;
  const height = top + rows.length * rowH + bottom;
  const svg = frame(width, height, title, desc, name);
  const max = Math.max(...rows.map((r) => r.total), 1);
  const { step } = niceTicks(max, narrow ? 3 : 6);
  const plotW = width - labelW - right - 4;
  const x = (v) => labelW + 4 + (Math.max(0, v) / max) * plotW;
  const grid = svgEl('g', { class: 'grid' });
  for (let v = 0; v <= max + 1e-9; v += step) {
    grid.append(svgEl('line', { x1: x(v), x2: x(v), y1: top, y2: height - bottom + 4 }));
    const tx = svgEl('text', { x: x(v), y: height - bottom + 18, 'text-anchor': v === 0 ? 'start' : 'middle', class: 'tick' }, fmt(v));
    grid.append(tx);
  }
  if (axisLabel) grid.append(svgEl('text', { x: width - right, y: height - 1, 'text-anchor': 'end', class: 'axis-label' }, axisLabel));
  svg.append(grid);
  rows.forEach((row, i) => {
    const y0 = top + i * rowH;
    const g = svgEl('g', { class: 'bar-row' });
    const barY = narrow ? y0 + 20 : y0 + (rowH - barH) / 2;
    if (narrow) {
      g.append(svgEl('text', { x: labelW + 4, y: y0 + 14, class: 'bar-label' }, row.sublabel ? `${row.label} · ${row.sublabel}` : row.label));
    } else {
      g.append(svgEl('text', { x: labelW - 8, y: barY + 13, 'text-anchor': 'end', class: 'bar-label' }, row.label));
      if (row.sublabel) g.append(svgEl('text', { x: labelW - 8, y: barY + 27, 'text-anchor': 'end', class: 'bar-sublabel' }, row.sublabel));
    }
    let acc = 0;
    for (const seg of row.segments) {
      if (!(seg.value > 0)) continue;
      const rect = svgEl('rect', { x: x(acc), y: barY, width: Math.max(0.5, x(acc + seg.value) - x(acc)), height: barH, class: `seg ${seg.cls}` });
      rect.append(svgEl('title', {}, `${row.label}: ${seg.label}${seg.text === undefined ? ` ${fmt(seg.value)}` : seg.text ? ` ${seg.text}` : ''}`));
      g.append(rect);
      acc += seg.value;
    }
    g.append(svgEl('rect', { x: x(0), y: barY, width: Math.max(0, x(row.total) - x(0)), height: barH, class: 'bar-outline' }));
    svg.append(g);
  });
  return svg;
}

/**
 * Line chart over categorical x positions (e.g. powers of two).
 * series: [{name, cls, values: [number|null]}]; gaps where null.
 */
export function lineChart({ width, title, desc, xs, xFmt, yFmt, series, xLabel, name }) {
  const height = width < 560 ? 220 : 260;
  const left = width < 560 ? 46 : 58;
  const right = 26;
  const top = 14;
  const bottom = 44;
  const svg = frame(width, height, title, desc, name);
  const all = series.flatMap((s) => s.values).filter((v) => typeof v === 'number' && Number.isFinite(v));
  const { step, top: max } = niceTicks(Math.max(...all, 0), 4);
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i) => left + (xs.length === 1 ? plotW / 2 : (i / (xs.length - 1)) * plotW);
  const y = (v) => top + plotH - (v / max) * plotH;
  const grid = svgEl('g', { class: 'grid' });
  for (let v = 0; v <= max + 1e-9; v += step) {
    grid.append(svgEl('line', { x1: left, x2: width - right, y1: y(v), y2: y(v) }));
    grid.append(svgEl('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, yFmt(v)));
  }
  const every = width < 560 && xs.length > 6 ? 2 : 1;
  xs.forEach((xv, i) => {
    if (i % every !== 0 && i !== xs.length - 1) return;
    grid.append(svgEl('text', { x: x(i), y: height - bottom + 18, 'text-anchor': 'middle', class: 'tick' }, xFmt(xv)));
  });
  if (xLabel) grid.append(svgEl('text', { x: left + plotW / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label' }, xLabel));
  svg.append(grid);
  // One marker per series draws the dots at every vertex of its path.
  const defs = svgEl('defs');
  series.forEach((s, k) => {
    const m = svgEl('marker', { id: `${svg.id}-m${k}`, viewBox: '0 0 10 10', refX: 5, refY: 5,
      markerWidth: 8, markerHeight: 8, markerUnits: 'userSpaceOnUse', class: `series ${s.cls}` });
    m.append(svgEl('circle', { cx: 5, cy: 5, r: 3.2, class: 'dot' }));
    defs.append(m);
  });
  svg.append(defs);
  for (const [k, s] of series.entries()) {
    const g = svgEl('g', { class: `series ${s.cls}` });
    let d = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (typeof v === 'number' && Number.isFinite(v)) {
        d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
        pen = true;
      } else {
        pen = false;
      }
    });
    if (d) {
      const marker = `url(#${svg.id}-m${k})`;
      g.append(svgEl('path', { d, class: 'line', 'marker-start': marker, 'marker-mid': marker, 'marker-end': marker }));
    }
    svg.append(g);
  }
  return svg;
}

/** Axis over [lo, hi]: logarithmic when the data spans more than 20x, else linear from 0. */
function axis(values, lo, hi) {
  const pos = values.filter((v) => v > 0);
  const min = pos.length ? Math.min(...pos) : 1;
  const max = pos.length ? Math.max(...pos) : 1;
  if (max / min > 20) {
    const a = Math.floor(Math.log10(min));
    const b = Math.ceil(Math.log10(max));
    const ticks = [];
    for (let e = a; e <= b; e++) for (const m of b - a > 3 ? [1] : [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= 10 ** a && v <= 10 ** b) ticks.push(v);
    }
    return { log: true, ticks, at: (v) => lo + ((Math.log10(Math.max(v, 10 ** a)) - a) / Math.max(1e-9, b - a)) * (hi - lo) };
  }
  const { step, top } = niceTicks(max, 4);
  const ticks = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  return { log: false, ticks, at: (v) => lo + (v / top) * (hi - lo) };
}

/**
 * Pareto fronts: one line of points per series, x and y on log or linear axes as the data
 * needs. series: [{name, cls, points: [{x, y, label}], you: {x, y, label} | null, measured:
 * [{x, y, label, cls}]}] (`you`: the scenario's own operating point, a square; `measured`: measured
 * runs, diamonds without a line, `cls` added to their class); `marker` {x}: a vertical line (the chosen speed).
 * Points are one tab stop (arrow keys move between them); hovering or focusing a point calls
 * `onPoint(seriesIndex, pointIndex)` (null when left).
 */
export function paretoChart({ width, title, desc, series, xLabel, yLabel, xFmt, yFmt, marker, name, onPoint, onPick }) {
  const height = width < 560 ? 260 : 320;
  const right = 18;
  const top = 14;
  const bottom = 46;
  const svg = frame(width, height, title, desc, name);
  const all = series.flatMap((s) => s.points.concat(s.measured || []));
  // The y axis first: the left margin holds its longest tick label beside the axis title.
  const ya = axis(all.map((p) => p.y), height - bottom, top);
  const left = Math.max(width < 560 ? 50 : 64, 26 + 7 * Math.max(...ya.ticks.map((v) => yFmt(v).length)));
  const xa = axis(all.map((p) => p.x).concat(marker && marker.x > 0 ? [marker.x] : []), left, width - right);
  const grid = svgEl('g', { class: 'grid' });
  for (const v of ya.ticks) {
    grid.append(svgEl('line', { x1: left, x2: width - right, y1: ya.at(v), y2: ya.at(v) }));
    grid.append(svgEl('text', { x: left - 6, y: ya.at(v) + 4, 'text-anchor': 'end', class: 'tick' }, yFmt(v)));
  }
  for (const v of xa.ticks) {
    grid.append(svgEl('line', { x1: xa.at(v), x2: xa.at(v), y1: top, y2: height - bottom, class: 'vgrid' }));
    grid.append(svgEl('text', { x: xa.at(v), y: height - bottom + 16, 'text-anchor': 'middle', class: 'tick' }, xFmt(v)));
  }
  grid.append(svgEl('text', { x: left + (width - left - right) / 2, y: height - 8, 'text-anchor': 'middle', class: 'axis-label' }, xLabel));
  grid.append(svgEl('text', { x: 12, y: top + (height - top - bottom) / 2, 'text-anchor': 'middle', class: 'axis-label',
    transform: `rotate(-90 12 ${top + (height - top - bottom) / 2})` }, yLabel));
  svg.append(grid);
  if (marker && marker.x > 0) {
    const mx = xa.at(marker.x).toFixed(1);
    svg.append(svgEl('line', { x1: mx, x2: mx, y1: top, y2: height - bottom, class: 'operating' }));
    if (marker.label) svg.append(svgEl('text', { x: Number(mx) + 4, y: top + 10, class: 'tick operating-label' }, marker.label));
  }
  const dots = [];
  series.forEach((s, k) => {
    const g = svgEl('g', { class: `series ${s.cls}` });
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    if (pts.length > 1) g.append(svgEl('path', { class: 'line', d: pts.map((p, i) => `${i ? 'L' : 'M'}${xa.at(p.x).toFixed(1)},${ya.at(p.y).toFixed(1)}`).join('') }));
    if (s.you) {
      const mark = svgEl('rect', { x: (xa.at(s.you.x) - 6).toFixed(1), y: (ya.at(s.you.y) - 6).toFixed(1), width: 12, height: 12, class: 'you' });
      mark.append(svgEl('title', {}, `${s.name}: ${s.you.label}`));
      g.append(mark);
    }
    for (const m of s.measured || []) {
      const x = xa.at(m.x);
      const y = ya.at(m.y);
      // gpucalc's own runs a size larger: a run both measured stays visible as a filled diamond
      // inside an open one.
      const r = m.cls === 'validation' ? 8 : 6;
      const mark = svgEl('path', { class: `measured ${m.cls || ''}`.trim(), d: `M${x.toFixed(1)},${(y - r).toFixed(1)}l${r},${r}l-${r},${r}l-${r},-${r}z` });
      mark.append(svgEl('title', {}, `${s.name}: ${m.label}`));
      g.append(mark);
    }
    s.points.forEach((p, i) => {
      const dot = svgEl('circle', { cx: xa.at(p.x).toFixed(1), cy: ya.at(p.y).toFixed(1), r: 4.5, class: 'dot point',
        tabindex: dots.length === 0 ? 0 : -1, role: 'img', 'aria-label': `${s.name}: ${p.label}`, 'data-s': k, 'data-p': i });
      dot.append(svgEl('title', {}, `${s.name}: ${p.label}`));
      g.append(dot);
      dots.push(dot);
    });
    svg.append(g);
  });
  if (onPoint) {
    const show = (e) => {
      const d = e.target.closest('circle.point');
      onPoint(d ? Number(d.dataset.s) : null, d ? Number(d.dataset.p) : null);
    };
    svg.addEventListener('pointerover', show);
    svg.addEventListener('focusin', show);
    svg.addEventListener('pointerleave', () => onPoint(null, null));
    // Click, Enter or Space on a point picks it (the caller sets the operating point).
    if (onPick) {
      svg.addEventListener('click', (e) => {
        const d = e.target.closest('circle.point');
        if (d) onPick(Number(d.dataset.s), Number(d.dataset.p));
      });
    }
    svg.addEventListener('keydown', (e) => {
      const i = dots.indexOf(e.target);
      if (onPick && i >= 0 && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        onPick(Number(e.target.dataset.s), Number(e.target.dataset.p));
        return;
      }
      if (i < 0 || !['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(e.key)) return;
      e.preventDefault();
      const j = e.key === 'Home' ? 0 : e.key === 'End' ? dots.length - 1
        : Math.max(0, Math.min(dots.length - 1, i + (e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : -1)));
      dots[i].setAttribute('tabindex', -1);
      dots[j].setAttribute('tabindex', 0);
      dots[j].focus();
    });
  }
  return svg;
}
