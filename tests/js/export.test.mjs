// The page's CSV export (web/export.js): RFC 4180 quoting and formula-cell neutralisation (issue 13).
import test from 'node:test';
import assert from 'node:assert/strict';
import { toCsv } from '../../web/export.js';

test('RFC 4180: quotes doubled, fields with comma, quote or line break quoted, CRLF rows', () => {
  assert.equal(toCsv([['a', 'b,c', 'say "hi"', 'two\nlines']]), 'a,"b,c","say ""hi""","two\nlines"\r\n');
  assert.equal(toCsv([[1, null, undefined, true]]), '1,,,true\r\n');
});

test('cells a spreadsheet would run as formulas are kept as text; numbers stay numbers', () => {
  assert.equal(toCsv([['=1+1', '+SUM(A1)', '@cmd', '-1+HYPERLINK("http://x")', '\tx']]),
    `'=1+1,'+SUM(A1),'@cmd,"'-1+HYPERLINK(""http://x"")",'\tx\r\n`);
  assert.equal(toCsv([[-4000, 0.5, 'v=1&model=llama-3.1-70b']]), '-4000,0.5,v=1&model=llama-3.1-70b\r\n');
});
