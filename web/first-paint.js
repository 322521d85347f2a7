// Runs in <head> before the body is parsed (a classic script: the page's CSP allows no inline
// script). The build (scripts/build-web.mjs) writes the default scenario's answer, in English,
// into index.html's verdict and key figures, and ships <html class="first-answer">, which shows
// them at the HTML's first paint (style.css), before app.js or the module have loaded.
//
// Here the page says whether it opens on that answer: no scenario in the fragment, no price list
// or calibration from the link, the embedding host or this browser (data-opens-on="default",
// which app.js reads before drawing the build's answer from its JSON block). Where it does not,
// or where the page is not in English, the prerendered answer is not shown (class removed):
// app.js draws the right one.
(() => {
  const root = document.documentElement;
  const query = new URLSearchParams(location.search);
  let calibration = null;
  try { calibration = localStorage.getItem('gpucalc.servingCalibration'); } catch (e) { /* no storage */ }
  const opensOnDefault = !location.hash.replace(/^#/, '') && query.get('embed') !== '1'
    && !query.get('catalog') && !query.get('calibration') && !calibration;
  if (opensOnDefault) root.dataset.opensOn = 'default';
  // The page's language as web/i18n.js picks it (its first supported choice: lang=, then the
  // browser's languages); the prerendered words are English.
  const langs = ['en', 'zh'];
  const chosen = [query.get('lang') || '', ...(navigator.languages || [])]
    .map((l) => String(l).toLowerCase().slice(0, 2)).find((l) => langs.includes(l)) || 'en';
  if (!opensOnDefault || chosen !== 'en') root.classList.remove('first-answer');
})();
