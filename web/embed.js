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

  // A document the host supplies, fetched by this page and sent to the frame's origin once per
  // loaded page: a price list (data-catalog: its URL; data-catalog-mode "replace" shows only its
  // offerings) and a serving calibration (data-calibration: its URL; the frame takes it as a
  // calibration only and names this page's origin as its supplier).
  const fetched = { catalog: new WeakMap(), calibration: new WeakMap() };
  const sendDocument = (frame, kind) => {
    const url = frame.dataset[kind];
    const origin = originOf(frame);
    if (!url || !origin || origin === 'null' || !frame.contentWindow) return;
    const cache = fetched[kind];
    if (!cache.has(frame)) {
      cache.set(frame, fetch(new URL(url, location.href)).then((r) => (r.ok ? r.text() : null)).catch(() => null));
    }
    const target = frame.contentWindow;
    cache.get(frame).then((text) => {
      if (typeof text !== 'string' || frame.contentWindow !== target) return;
      const abs = new URL(url, location.href);
      const name = abs.pathname.split('/').pop() || `${kind}.json`;
      // `url`: where a link made in the frame fetches the same list (EMBED.md, "Links").
      const message = kind === 'catalog'
        ? { type: 'gpucalc:catalog', text, name, url: abs.href, mode: frame.dataset.catalogMode === 'replace' ? 'replace' : 'add' }
        : { type: 'gpucalc:calibration', text, name, url: abs.href };
      target.postMessage(message, origin);
    });
  };
  const sendCatalog = (frame) => {
    sendDocument(frame, 'catalog');
    sendDocument(frame, 'calibration');
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
