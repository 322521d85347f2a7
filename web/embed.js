// gpucalc embed helper for host pages: sizes every <iframe data-gpucalc> to its content.
//
//   <iframe data-gpucalc src="https://calc.example.com/?embed=1#v=1&model=llama-3.1-70b"
//           title="GPU comparison calculator" width="100%" height="900" loading="lazy"></iframe>
//   <script src="https://calc.example.com/embed.js" async></script>
//
// A message is trusted only when its source is one of these iframes' windows and its origin is
// the origin of that iframe's src; the hello goes to that origin alone. See EMBED.md.
(() => {
  'use strict';
  if (window.gpucalcEmbed) return;
  const MIN_HEIGHT = 200;
  const MAX_HEIGHT = 20000;

  const frames = () => Array.from(document.querySelectorAll('iframe[data-gpucalc]'));
  const originOf = (frame) => {
    try { return new URL(frame.src, location.href).origin; } catch (e) { return null; }
  };
  const hello = (frame) => {
    const origin = originOf(frame);
    if (origin && origin !== 'null' && frame.contentWindow) {
      frame.contentWindow.postMessage({ type: 'gpucalc:hello', lang: document.documentElement.lang || '' }, origin);
    }
  };

  // A price list the host supplies (data-catalog: its URL, fetched by this page; data-catalog-mode
  // "replace" shows only its offerings), sent to the frame's origin once per loaded page.
  const catalogs = new WeakMap();
  const sendCatalog = (frame) => {
    const url = frame.dataset.catalog;
    const origin = originOf(frame);
    if (!url || !origin || origin === 'null' || !frame.contentWindow) return;
    if (!catalogs.has(frame)) {
      catalogs.set(frame, fetch(new URL(url, location.href)).then((r) => (r.ok ? r.text() : null)).catch(() => null));
    }
    const target = frame.contentWindow;
    catalogs.get(frame).then((text) => {
      if (typeof text !== 'string' || frame.contentWindow !== target) return;
      const abs = new URL(url, location.href);
      const name = abs.pathname.split('/').pop() || 'catalog.json';
      // `url`: where a link made in the frame fetches the same list (EMBED.md, "Links").
      target.postMessage({ type: 'gpucalc:catalog', text, name, url: abs.href, mode: frame.dataset.catalogMode === 'replace' ? 'replace' : 'add' }, origin);
    });
  };

  window.addEventListener('message', (e) => {
    const frame = frames().find((f) => f.contentWindow === e.source);
    if (!frame || e.origin !== originOf(frame)) return;
    const data = e.data;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'gpucalc:ready') {
      hello(frame);
      sendCatalog(frame);
    } else if (data.type === 'gpucalc:height') {
      const h = Number(data.height);
      if (!Number.isFinite(h)) return;
      frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h)))}px`;
      frame.setAttribute('scrolling', 'no');
      frame.dispatchEvent(new CustomEvent('gpucalc:resize', { detail: { height: h } }));
    }
  });

  // A frame still on its initial about:blank (same origin as this page, so readable) would
  // refuse a message for the calculator's origin and the browser would log an error: such a
  // frame is greeted by its load event and its ready messages instead.
  const atItsPage = (frame) => {
    try { return frame.contentWindow.location.href !== 'about:blank'; } catch (e) { return true; }
  };
  const init = () => {
    for (const f of frames()) {
      if (f.dataset.gpucalcBound) continue;
      f.dataset.gpucalcBound = '1';
      f.addEventListener('load', () => hello(f));
      // Loaded after the frame (a tag manager, a slow script): the frame's ready messages may
      // be over, so greet it now; it answers with its height.
      if (f.contentWindow && atItsPage(f)) {
        hello(f);
        sendCatalog(f);
      }
    }
  };
  window.gpucalcEmbed = { init };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
