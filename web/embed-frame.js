// The framed side of the embed protocol (see EMBED.md and embed.js).
//
// 1. The page posts {type: "gpucalc:ready"} to its parent (no data, any origin may read it).
// 2. embed.js in the host answers {type: "gpucalc:hello", lang}; the page accepts it only from
//    window.parent (the message's source) and, when `parent=` lists origins, only from those.
// 3. From then on the page posts {type: "gpucalc:height", height} to that origin alone, and
//    accepts {type: "gpucalc:catalog", text, name, url, mode} (a price list the host supplies,
//    `url` where it is published) from that origin alone. The list is loaded as a price list:
//    offerings, prices and names; the core refuses GPU figures, model constants, error bands.
// 4. "Open the full calculator" opens the page with `catalog=opener` when a host price list is
//    loaded, and names the list; the new page (same origin as this frame) asks for it with
//    {type: "gpucalc:want-catalog"} and gets the same catalog message back. Links made there
//    (Copy link) carry `catalog=<url>`.
// 5. {type: "gpucalc:calibration", text, name, url} from that origin alone: a serving
//    calibration the host supplies. The core takes it as that and nothing else (no GPU figures,
//    error bands, engines, prices) and names its supplier on every result built on it.
export const MAX_CATALOG_CHARS = 2 * 1024 * 1024;

/**
 * The origins `parent=` lists, normalised as a browser writes an origin ("https://Host.example/"
 * -> "https://host.example", default port dropped); an entry that is no URL matches nothing.
 */
export function allowedParentOrigins(allowed) {
  const originOf = (entry) => {
    try { return new URL(entry).origin; } catch (e) { return 'null'; }
  };
  return (allowed || '').split(/[\s,]+/).filter(Boolean).map(originOf).filter((o) => o !== 'null');
}

/** The fields of a catalog message the page keeps: {text, name, url, mode}, or null. */
function catalogMessage(d) {
  if (typeof d.text !== 'string' || d.text.length > MAX_CATALOG_CHARS) return null;
  return { text: d.text, name: typeof d.name === 'string' ? d.name.slice(0, 200) : 'catalog.json',
    url: typeof d.url === 'string' ? d.url.slice(0, 2000) : '', mode: d.mode === 'replace' ? 'replace' : 'add' };
}

export function initEmbed({ allowed, fullUrl, label, listLabel, onCatalog, onCalibration, onLanguage }) {
  if (window.parent === window) return;
  const allowedOrigins = allowedParentOrigins(allowed);
  const restricted = (allowed || '').trim() !== '';
  let parentOrigin = null;
  let lastHeight = 0;
  let hostCatalog = null; // {text, name, mode} as the host sent it

  const post = () => {
    if (!parentOrigin) return;
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    window.parent.postMessage({ type: 'gpucalc:height', height }, parentOrigin);
  };

  window.addEventListener('message', (e) => {
    const data = e.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'gpucalc:want-catalog') {
      // Only the full calculator this frame opened (same origin as this page) gets the list.
      if (hostCatalog && e.origin === location.origin && e.source && e.source !== window) {
        e.source.postMessage({ type: 'gpucalc:catalog', ...hostCatalog }, location.origin);
      }
      return;
    }
    if (e.source !== window.parent) return;
    if (data.type === 'gpucalc:hello') {
      if (restricted && !allowedOrigins.includes(e.origin)) return;
      if (e.origin === 'null') return;
      parentOrigin = e.origin;
      lastHeight = 0;
      // The host page's language (its <html lang>), used when the frame's URL names none.
      if (typeof data.lang === 'string' && onLanguage) onLanguage(data.lang.slice(0, 35));
      post();
    } else if (data.type === 'gpucalc:calibration' && parentOrigin && e.origin === parentOrigin) {
      const doc = catalogMessage(data);
      // The supplier is the sender's origin, whatever the message says.
      if (doc && onCalibration) onCalibration({ text: doc.text, url: doc.url, origin: e.origin });
    } else if (data.type === 'gpucalc:catalog' && parentOrigin && e.origin === parentOrigin) {
      const list = catalogMessage(data);
      if (!list || (hostCatalog && hostCatalog.text === list.text)) return;
      Promise.resolve(onCatalog(list)).then((loaded) => {
        // A list the core refused is not passed on to the full calculator.
        hostCatalog = loaded ? list : null;
        refresh();
      });
    }
  });
  new ResizeObserver(post).observe(document.documentElement);
  // Repeat the ready message until a host answers (embed.js also greets frames it finds).
  let tries = 0;
  const ready = () => {
    if (parentOrigin || tries++ > 40) return;
    window.parent.postMessage({ type: 'gpucalc:ready' }, '*');
    setTimeout(ready, 250);
  };
  ready();

  // In the embed view, a link to the full calculator with the same scenario (and price list).
  const link = document.createElement('a');
  link.className = 'open-full';
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = label;
  link.dataset.i18n = 'open_full'; // re-worded when the host's language arrives after the link
  const refresh = () => {
    const url = new URL(fullUrl());
    if (hostCatalog) url.searchParams.set('catalog', 'opener');
    link.href = url.href;
    // Which price list the full calculator opens with, said on the link.
    if (hostCatalog && listLabel) {
      link.textContent = listLabel(hostCatalog.name);
      delete link.dataset.i18n;
    }
  };
  // The label names the list in the page's language: re-worded when the language changes.
  new MutationObserver(refresh).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  link.addEventListener('focus', refresh);
  link.addEventListener('pointerenter', refresh);
  link.addEventListener('click', (e) => {
    refresh();
    if (!hostCatalog) return;
    // The new page must be able to ask this frame for the list: no noopener here.
    e.preventDefault();
    window.open(link.href, '_blank');
  });
  refresh();
  document.getElementById('results').prepend(link);
  return { refresh };
}

/** The full page opened with `catalog=opener`: the host's price list from the frame that opened
 *  it (same origin), or null after `timeoutMs`. */
export function catalogFromOpener(timeoutMs = 3000) {
  const opener = window.opener;
  if (!opener) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (value) => { window.removeEventListener('message', onMessage); resolve(value); };
    const onMessage = (e) => {
      const d = e.data;
      if (e.source !== opener || e.origin !== location.origin || !d || d.type !== 'gpucalc:catalog') return;
      const list = catalogMessage(d);
      if (list) done(list);
    };
    window.addEventListener('message', onMessage);
    opener.postMessage({ type: 'gpucalc:want-catalog' }, location.origin);
    setTimeout(() => done(null), timeoutMs);
  });
}
