// CSV and JSON export of the comparison.

/** `text` with its control characters written out, the rule of the CLI's table (cli/safe_io.hpp
 *  printable): C0 but TAB, CR and LF (CSV quoting keeps those) and DEL as \xNN, C1 as \u00NN. */
export function escapeControls(text) {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0x80 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

/** RFC 4180 CSV; cells starting with = + - @ are prefixed with ' so spreadsheets keep them text;
 *  control characters (ESC, BEL...) are written out (tests/fixtures/csv-cells.json). */
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
