// DOM helpers: elements from data (never HTML from strings), in-place morphing, tables.

export const $ = (id) => document.getElementById(id);

/** createElement with attributes and children (strings become text nodes). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Sets an element's text only when it changed (no restyle for unchanged strings). */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * Makes `box`'s children equal to `nodes` with the fewest DOM changes: a child of the same tag
 * is kept and its attributes, text and children patched in place; only what differs is
 * touched. An edit then restyles and relays out the figures it changed, not whole sections,
 * and a focused figure keeps the focus. `nodes` are freshly built, detached nodes.
 */
export function morph(box, ...nodes) {
  const want = nodes.flat().filter((n) => n !== null && n !== undefined);
  const old = box.childNodes;
  want.forEach((node, i) => {
    const have = old[i];
    if (!have) box.append(node);
    else if (have.nodeType !== node.nodeType || have.nodeName !== node.nodeName) box.replaceChild(node, have);
    else if (have.nodeType === Node.TEXT_NODE) { if (have.data !== node.data) have.data = node.data; }
    else if (have.nodeType !== Node.ELEMENT_NODE) box.replaceChild(node, have);
    else {
      const attrs = node.attributes;
      for (let k = 0; k < attrs.length; k++) {
        const { name, value } = attrs[k];
        if (have.getAttribute(name) !== value) have.setAttribute(name, value);
      }
      if (have.attributes.length !== attrs.length) {
        for (const { name } of [...have.attributes]) if (!node.hasAttribute(name)) have.removeAttribute(name);
      }
      morph(have, ...node.childNodes);
    }
  });
  while (old.length > want.length) box.lastChild.remove();
}

function patchCell(cell, content) {
  morph(cell, content instanceof Node ? content : document.createTextNode(String(content)));
}

/**
 * A data table: `head` the column headings, `rows` [{cls, cells}] (the first cell a row
 * heading unless `rowHeaders` is false). Columns take the compared offerings' colours unless
 * `offeringColumns` is false. Same shape as drawn: only changed cells are patched.
 */
export function table(el, { caption, head, rows, rowHeaders = true, offeringColumns = true }) {
  const shape = `${rows.length}|${head.map(String).join('\u0001')}|${caption || ''}`;
  if (el.dataset.shape === shape && el.tBodies[0]) {
    const trs = el.tBodies[0].rows;
    rows.forEach((row, r) => {
      const tr = trs[r];
      if (tr.className !== (row.cls || '')) tr.className = row.cls || '';
      row.cells.forEach((c, i) => { if (tr.cells[i]) patchCell(tr.cells[i], c); });
    });
    return;
  }
  el.dataset.shape = shape;
  const thead = h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { scope: 'col', class: i === 0 ? 'rowhead' : offeringColumns ? `col s${i}` : null }, c))));
  const tbody = h('tbody', {}, rows.map((row) => h('tr', { class: row.cls || null },
    row.cells.map((c, i) => (i === 0 && rowHeaders ? h('th', { scope: 'row' }, c) : h('td', {}, c))))));
  el.replaceChildren(...(caption ? [h('caption', { class: 'visually-hidden' }, caption)] : []), thead, tbody);
}

/** The CSS class of the i-th compared offering (colours of columns, series, swatches). */
export const seriesClass = (i) => `s${i + 1}`;

/** In-page links (skip links) move the focus without touching the fragment, which holds the
 *  scenario. */
export function bindInPageLinks(root = document) {
  root.addEventListener('click', (e) => {
    const a = e.target.closest('a.skip, a.skip-table, a.to-controls');
    const target = a && document.getElementById(a.getAttribute('href').slice(1));
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'start' });
  });
}
