// CSV and JSON export of the comparison.

// Unicode format characters (general category Cf) and U+2028/U+2029: the ranges of the core's
// escaper (core/src/output/text.cpp kFormatRanges).
const FORMAT = '\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u2028-\\u202e' +
  '\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb\\u{110bd}\\u{110cd}\\u{13430}-\\u{1343f}\\u{1bca0}-\\u{1bca3}' +
  '\\u{1d173}-\\u{1d17a}\\u{e0001}\\u{e0020}-\\u{e007f}';
const ESCAPED = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${FORMAT}]`, 'gu');

/** `text` as the core's CSV writer escapes a cell (core/src/output/text.cpp append_csv_cell): C0
 *  controls but TAB, CR and LF (quoting keeps those) and DEL as \xNN, C1 as \u00NN, format
 *  characters (bidi overrides, zero-width...) as \uXXXX or \UXXXXXXXX. */
export function escapeControls(text) {
  return text.replace(ESCAPED, (c) => {
    const code = c.codePointAt(0);
    const hex = (n) => code.toString(16).padStart(n, '0');
    return code < 0x80 ? `\\x${hex(2)}` : code > 0xffff ? `\\U${hex(8)}` : `\\u${hex(4)}`;
  });
}

/** RFC 4180 CSV; cells starting with = + - @ are prefixed with ' so spreadsheets keep them text;
 *  control and format characters (ESC, BEL, U+202E...) are written out, by the core's rule
 *  (tests/fixtures/csv-cells.json, read by both suites). */
export function toCsv(rows) {
  const cell = (v) => {
    if (v === null || v === undefined) return '';
    let s = escapeControls(String(v));
    // Text that a spreadsheet would read as a formula stays text; numbers are written as numbers.
    if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** Saves `text` as a file through a temporary object URL (no request leaves the page). */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
