// What the toolbar does: CSV and JSON export, copy link, print.
import { t } from './i18n.js';
import { $, h } from './dom.js';
import { state } from './state.js';
import { shareUrl } from './compute.js';

// The downloads' code (export-files.js), fetched on the first click.
const exporting = (name) => async () => (await import('./export-files.js'))[name]();

export async function copyLink() {
  const url = shareUrl();
  const status = $('copy-status');
  try {
    await navigator.clipboard.writeText(url);
    status.textContent = t('copied');
  } catch {
    status.replaceChildren(h('input', { type: 'text', readonly: true, value: url, 'aria-label': t('copy_link'), class: 'copy-fallback' }));
    status.firstChild.select();
  }
  setTimeout(() => { if (status.textContent === t('copied')) status.textContent = ''; }, 4000);
}

/** The footer's embed snippet, for the scenario on screen and this page's address (the markup
 *  carries no Markdown link: the guide is web/EMBED.md in the source, not a page of the site). */
function fillEmbedSnippet() {
  const base = `${location.origin}${location.pathname.replace(/[^/]*$/, '')}`;
  const scenario = state.evaluation ? state.evaluation.scenario : 'v=1';
  $('embed-snippet').textContent = `<iframe data-gpucalc src="${base}?embed=1#${scenario}" title="${t('title')}" width="100%" height="1200" loading="lazy"></iframe>\n<script src="${base}embed.js" async></script>`;
}

export function bindActions() {
  $('embed-help').addEventListener('toggle', (e) => { if (e.target.open) fillEmbedSnippet(); });
  $('copy-link').addEventListener('click', copyLink);
  $('export-csv').addEventListener('click', exporting('exportCsv'));
  $('export-json').addEventListener('click', exporting('exportJson'));
  $('print').addEventListener('click', () => window.print());
}
