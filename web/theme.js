// Theme: embed hosts restyle the page through query parameters (EMBED.md).
import { query } from './state.js';

const THEME = { accent: '--accent', bg: '--bg', fg: '--fg', muted: '--muted', card: '--card',
  border: '--border', s1: '--series-1', s2: '--series-2', s3: '--series-3', s4: '--series-4' };

export function applyTheme() {
  const root = document.documentElement.style;
  for (const [param, prop] of Object.entries(THEME)) {
    const v = query.get(param);
    if (v && /^[0-9a-fA-F]{3}([0-9a-fA-F]{3})?([0-9a-fA-F]{2})?$/.test(v)) root.setProperty(prop, `#${v}`);
    else if (v && /^[a-z]{3,20}$/.test(v)) root.setProperty(prop, v);
  }
  const font = query.get('font');
  if (font && /^[\w \-,']{1,80}$/.test(font)) root.setProperty('--font', font);
  const radius = query.get('radius');
  if (radius && /^\d{1,2}$/.test(radius)) root.setProperty('--radius', `${radius}px`);
}
