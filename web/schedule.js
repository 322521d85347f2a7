// When work runs: the first results first, everything they do not show after they are painted;
// sections redrawn only when their inputs change; chart widths from a ResizeObserver.
import { $ } from './dom.js';

let painted = false;
const waiting = [];

/** Runs `fn` in its own task once the first results are painted (at once when they are):
 *  what the first paint does not show must not delay it. */
export function afterFirstPaint(fn) {
  if (painted) setTimeout(fn, 0);
  else if (!waiting.includes(fn)) waiting.push(fn);
}

export const isPainted = () => painted;

/**
 * Calls `fn` once the first results are on screen: when the browser reports the summary line
 * painted (Element Timing: after raster and presentation, so the work that waited does not
 * compete with them for the CPU); two frames later where Element Timing is missing or the
 * summary is below the fold (phones); at the latest after 1 s (a hidden tab paints nothing).
 */
export function whenPresented(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  const twoFrames = () => requestAnimationFrame(() => requestAnimationFrame(once));
  const types = typeof PerformanceObserver === 'function' ? PerformanceObserver.supportedEntryTypes || [] : [];
  // After the build's first answer the summary's paint was reported already (Element Timing
  // reports an element once): the live result's frames are waited for instead.
  if (types.includes('element') && !performance.getEntriesByName('gpucalc:first-answer').length) {
    const observer = new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.identifier === 'first-result')) {
        observer.disconnect();
        once();
      }
    });
    observer.observe({ type: 'element', buffered: true });
    // The frame lays the page out anyway: reading the summary's position costs nothing more.
    requestAnimationFrame(() => {
      const box = $('verdict-summary').getBoundingClientRect();
      if (box.bottom <= 0 || box.top >= innerHeight) { observer.disconnect(); twoFrames(); }
    });
  } else {
    twoFrames();
  }
  setTimeout(once, 1000);
}

/** Marks the first results drawn; what waited for their paint runs once they are presented. */
export function firstResultDrawn() {
  performance.mark('gpucalc:first-result');
  whenPresented(() => {
    performance.mark('gpucalc:first-result-painted');
    painted = true;
    for (const fn of waiting.splice(0)) setTimeout(fn, 0);
  });
}

// Sections whose content depends on few inputs are redrawn only when those change.
const drawn = new Map();
export function memo(name, key, draw) {
  if (drawn.get(name) === key) return;
  draw();
  drawn.set(name, key);
}
/** Forgets what was drawn (a language switch, newly learnt formula buttons). */
export function redrawAll() { drawn.clear(); }

// Chart widths come from a ResizeObserver, so drawing never forces a layout mid-update.
const chartWidths = new Map();
export function chartWidth(box) {
  const w = chartWidths.get(box.id) || 600;
  return Math.max(280, Math.min(1100, Math.floor(w)));
}
/** Charts are drawn once the first layout has told their width (after the first paint). */
export const chartReady = (box) => chartWidths.has(box.id);

/** Watches the chart boxes; `onChange` runs (after the first paint) when a width changed. */
export function observeChartWidths(ids, onChange) {
  let timer = 0;
  const observer = new ResizeObserver((entries) => {
    let changed = false;
    for (const e of entries) {
      const w = Math.floor(e.contentRect.width);
      if (w > 0 && Math.abs((chartWidths.get(e.target.id) || 0) - w) > 1) {
        chartWidths.set(e.target.id, w);
        changed = true;
      }
    }
    if (!changed) return;
    clearTimeout(timer);
    if (painted) timer = setTimeout(onChange, 0);
    else afterFirstPaint(onChange);
  });
  for (const id of ids) observer.observe($(id));
}

/** Lays the page out now. Work that runs between edits (the charts after an edit's frame, the
 *  what-fits table when idle) ends with it, so its layout is done in its own task and not by
 *  the next edit's frame, which then lays out only what that edit changed. */
export function layOut() { void document.body.offsetHeight; }

/** `fn` when the browser is idle (at the latest after `timeoutMs`). */
export function whenIdle(fn, timeoutMs = 600) {
  return typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: timeoutMs }) : setTimeout(fn, 50);
}

// Charts draw after the figures: during an edit (`figuresFirst`), a chart's drawing is queued
// and runs once the frame with the new figures is presented (one job per chart: the newest
// wins, so a burst of edits draws each chart once). Elsewhere (start-up, resize, language) it
// runs at once.
let deferring = false;
let chartsDue = 0;
const chartJobs = new Map();
export function drawChart(name, fn) {
  if (!deferring) { fn(); return; }
  chartJobs.set(name, fn);
  if (chartsDue) return;
  const start = performance.now();
  chartsDue = requestAnimationFrame(() => setTimeout(() => {
    chartsDue = 0;
    const t0 = performance.now();
    const jobs = [...chartJobs.values()];
    chartJobs.clear();
    for (const job of jobs) job();
    layOut();
    performance.measure('gpucalc:charts', { start: t0, end: performance.now() });
    performance.measure('gpucalc:edit-to-charts', { start, end: performance.now() });
  }, 0));
}
/** Runs `fn` (an edit's recompute and redraw) with the charts queued after it. */
export function figuresFirst(fn) {
  deferring = true;
  try { fn(); } finally { deferring = false; }
}
