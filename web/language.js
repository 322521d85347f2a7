// Language: the links to the other language and switching without a reload.
import * as i18n from './i18n.js';
import { $ } from './dom.js';
import { query } from './state.js';

export function updateLangLinks() {
  for (const l of i18n.LANGS) {
    const a = $(`lang-${l}`);
    const q = new URLSearchParams(location.search);
    q.set('lang', l);
    a.href = `?${q}${location.hash}`;
    if (l === i18n.language()) a.setAttribute('aria-current', 'true'); else a.removeAttribute('aria-current');
  }
}

/** Switches to `l`, keeps it in the address, and lets `redraw` rebuild what holds words. */
export async function switchLanguage(l, redraw) {
  await i18n.setLanguage(l);
  const q = new URLSearchParams(location.search);
  q.set('lang', l);
  query.set('lang', l);
  history.replaceState(null, '', `${location.pathname}?${q}${location.hash}`);
  i18n.translateDocument();
  redraw();
  updateLangLinks();
}

export function bindLanguage(redraw) {
  for (const l of i18n.LANGS) {
    $(`lang-${l}`).addEventListener('click', (e) => { e.preventDefault(); switchLanguage(l, redraw); });
  }
}
