// Preset buttons of the form (web/presets.js): request shapes, latency limits, speed per user.
// A preset writes its keys into the controls and recomputes; the one matching the form is
// marked pressed. Controls of keys the core's schema does not have are hidden.
import { t } from './i18n.js';
import * as i18n from './i18n.js';
import { $, h } from './dom.js';
import { hooks } from './state.js';
import { keyInfo } from './schema.js';
import { WORKLOADS, INTERACTIVITY, LATENCY } from './presets.js';

const set = (keys) => {
  for (const [k, v] of Object.entries(keys)) if ($(`in-${k}`)) $(`in-${k}`).value = String(v);
  hooks.update();
};
const value = (k) => ($(`in-${k}`) ? Number($(`in-${k}`).value) : NaN);

function buttons(box, items) {
  box.replaceChildren(...items.map(({ label, keys, title }) => {
    const b = h('button', { type: 'button', 'aria-pressed': 'false', title }, label);
    b.addEventListener('click', () => set(keys));
    b.dataset.keys = JSON.stringify(keys);
    return b;
  }));
}

/** Builds the preset rows and the choices of choice keys (labels from the dictionaries). */
export function renderPresets(model) {
  buttons($('workload-presets'), WORKLOADS.map((w) => ({ label: t(`preset_${w.id}`), keys: w.keys })));
  buttons($('interactivity-presets'), INTERACTIVITY.map((x) => ({
    label: x ? t('preset_speed', { n: i18n.num(x) }) : t('preset_any_speed'), keys: { interactivity: x } })));
  buttons($('latency-presets'), LATENCY.map((p) => ({ p, limits: p.limits(model) })).filter((x) => x.limits)
    .map(({ p, limits }) => ({ label: t(`preset_${p.id}`), keys: { ttft_max: limits[0], tpot_max: limits[1] },
      title: t('preset_limits', { ttft: i18n.seconds(limits[0]), tpot: i18n.seconds(limits[1]) }) })));
  for (const select of document.querySelectorAll('select[data-choices]')) {
    const info = keyInfo(select.dataset.choices);
    if (!info || !info.choices) continue;
    const current = select.value;
    select.replaceChildren(...info.choices.map((c) => h('option', { value: c },
      i18n.has(`choice_${info.key}_${c}`) ? t(`choice_${info.key}_${c}`) : c)));
    if (current) select.value = current;
  }
  markPresets();
}

/** Marks the presets whose keys all hold the form's values. */
export function markPresets() {
  for (const b of document.querySelectorAll('.presets button')) {
    const keys = JSON.parse(b.dataset.keys);
    const on = Object.entries(keys).every(([k, v]) => value(k) === v);
    b.setAttribute('aria-pressed', String(on));
  }
}

/** Hides the controls (and fieldsets) of keys the core's schema does not have. */
export function hideUnknownKeys() {
  for (const el of document.querySelectorAll('#controls [data-key]')) el.hidden = !keyInfo(el.dataset.key);
  for (const fs of document.querySelectorAll('#controls fieldset')) {
    const keyed = fs.querySelectorAll('[data-key]');
    if (keyed.length && [...keyed].every((el) => el.hidden)) fs.hidden = true;
  }
}
