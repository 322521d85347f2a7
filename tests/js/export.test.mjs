// The page's CSV export (web/export.js): RFC 4180 quoting and formula-cell neutralisation.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { toCsv } from '../../web/export.js';

const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/csv-cells.json', import.meta.url), 'utf8'));

test('RFC 4180: quotes doubled, fields with comma, quote or line break quoted, CRLF rows', () => {
  assert.equal(toCsv([['a', 'b,c', 'say "hi"', 'two\nlines']]), 'a,"b,c","say ""hi""","two\nlines"\r\n');
  assert.equal(toCsv([[1, null, undefined, true]]), '1,,,true\r\n');
});

test('cells a spreadsheet would run as formulas are kept as text; numbers stay numbers', () => {
  assert.equal(toCsv([['=1+1', '+SUM(A1)', '@cmd', '-1+HYPERLINK("http://x")', '\tx']]),
    `'=1+1,'+SUM(A1),'@cmd,"'-1+HYPERLINK(""http://x"")",'\tx\r\n`);
  assert.equal(toCsv([[-4000, 0.5, 'v=1&model=llama-3.1-70b']]), '-4000,0.5,v=1&model=llama-3.1-70b\r\n');
});

test('control characters (ESC, BEL, NUL, DEL, C1) are written out, never raw: the shared fixture', () => {
  for (const { text, csv } of fixture.cells) assert.equal(toCsv([[text]]), `${csv}\r\n`, JSON.stringify(text));
  const out = toCsv(fixture.cells.map((c) => [c.text]));
  assert.doesNotMatch(out, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
});
