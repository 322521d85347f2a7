// The framed side of the embed protocol (see EMBED.md and embed.js).
//
// 1. The page posts {type: "gpucalc:ready"} to its parent (no data, any origin may read it).
// 2. embed.js in the host answers {type: "gpucalc:hello"}; the page accepts it only from
//    window.parent (the message's source) and, when `parent=` lists origins, only from those.
// 3. From then on the page posts {type: "gpucalc:height", height} to that origin alone.
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

export function initEmbed({ allowed, fullUrl, label }) {
  if (window.parent === window) return;
  const allowedOrigins = allowedParentOrigins(allowed);
  const restricted = (allowed || '').trim() !== '';
  let parentOrigin = null;
  let lastHeight = 0;

  const post = () => {
    if (!parentOrigin) return;
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    window.parent.postMessage({ type: 'gpucalc:height', height }, parentOrigin);
  };

  window.addEventListener('message', (e) => {
    if (e.source !== window.parent) return;
    if (!e.data || typeof e.data !== 'object' || e.data.type !== 'gpucalc:hello') return;
    if (restricted && !allowedOrigins.includes(e.origin)) return;
    if (e.origin === 'null') return;
    parentOrigin = e.origin;
    lastHeight = 0;
    post();
  });
  new ResizeObserver(post).observe(document.documentElement);
  // Repeat the ready message until a host answers: embed.js may load after this page.
  let tries = 0;
  const ready = () => {
    if (parentOrigin || tries++ > 40) return;
    window.parent.postMessage({ type: 'gpucalc:ready' }, '*');
    setTimeout(ready, 250);
  };
  ready();

  // In the embed view, a link to the full calculator with the same scenario.
  const link = document.createElement('a');
  link.className = 'open-full';
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = label;
  const refresh = () => { link.href = fullUrl(); };
  link.addEventListener('focus', refresh);
  link.addEventListener('pointerenter', refresh);
  link.addEventListener('click', refresh);
  refresh();
  document.getElementById('results').prepend(link);
}
