#!/usr/bin/env node
// The catalog files as the WASM modules embed them (core/CMakeLists.txt runs this when it
// configures an Emscripten build and embeds the output in place of data/; the native build, the
// CLI and its tests embed data/ as written).
//
//   node scripts/embed-data.mjs <out-dir> <data-dir> <file.json>...
//
// Each file (a path relative to <data-dir>) is written to <out-dir>/<same path>:
//   - minified (JSON.stringify of the parsed document: every number prints as the shortest text
//     that reads back as the same double, so no value changes);
//   - in the files below, without the keys their loaders accept and read nothing from (the prose
//     saying where a constant comes from and how it was set). Those loaders keep no text of
//     these documents, so no reply of the module changes;
//   - in gpus.json, models.json and offerings.json, without each entry's free-text `note` (and
//     its `note_zh`): the core prints it only in the catalog listing (`--list`, catalogJson),
//     and the page shows no note of a listing (web/: the price's source and date, the tier and
//     the offering's description are what it shows, and they stay). Nothing else is dropped
//     from these files: the nested notes the core does print (a model's `checkpoint.note` is in
//     the weights' trace) are not an entry's `note`, and `sources` is required by the loaders.
// tests/js/embedded-data.test.mjs compares the page module's replies (evaluations with their
// traces, the fit table, the catalog listings without exactly the entry notes) with the native
// CLI's, which reads data/ whole.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** file -> keys dropped at any depth, with the loader that accepts and ignores them. */
const UNREAD = {
  // core/src/catalog/engines.cpp: {"value", "source", "note"} objects; "sources" is required, kept.
  'engines.json': ['source', 'note'],
  // core/src/catalog/model_constants.cpp
  'performance.json': ['source', 'note'],
  // core/src/catalog/kernels.cpp
  'kernels.json': ['source', 'note'],
  // core/src/validation/error_bands.cpp (the summary's printed sources are constants in C++).
  'error-bands.json': ['source', 'note', 'generated_by'],
};

/** file -> list -> keys dropped from each entry of that top-level list (the loader in
 *  core/src/catalog/catalog.cpp and model_fields.cpp keeps them for the listing only). Exported
 *  for tests/js/embedded-data.test.mjs, which compares the listings without exactly these. */
export const ENTRY_PROSE = {
  'gpus.json': { gpus: ['note', 'note_zh'] },
  'models.json': { models: ['note'] },
  'offerings.json': { offerings: ['note', 'note_zh'] },
};

/** `doc` without the ENTRY_PROSE keys of `lists` in each entry of those top-level lists. */
export function stripEntryProse(doc, lists) {
  const out = { ...doc };
  for (const [list, keys] of Object.entries(lists || {})) {
    if (!Array.isArray(out[list])) continue;
    out[list] = out[list].map((e) => (e && typeof e === 'object'
      ? Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k))) : e));
  }
  return out;
}

function strip(value, keys) {
  if (Array.isArray(value)) return value.map((v) => strip(v, keys));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) if (!keys.has(k)) out[k] = strip(v, keys);
  return out;
}

function embed(outDir, dataDir, files) {
  if (!outDir || !dataDir || files.length === 0) {
    console.error('usage: node scripts/embed-data.mjs <out-dir> <data-dir> <file.json>...');
    process.exit(2);
  }
  for (const rel of files) {
    const text = fs.readFileSync(path.join(dataDir, rel), 'utf8');
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      console.error(`${rel}: ${e.message}`);
      process.exit(1);
    }
    const keys = new Set(UNREAD[rel] || []);
    if (ENTRY_PROSE[rel]) doc = stripEntryProse(doc, ENTRY_PROSE[rel]);
    const out = JSON.stringify(keys.size ? strip(doc, keys) : doc);
    // The text is embedded in a C++ raw string literal R"gpucalc_json(...)gpucalc_json".
    if (out.includes(')gpucalc_json"')) {
      console.error(`${rel}: holds the raw string's delimiter`);
      process.exit(1);
    }
    const to = path.join(outDir, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    // Unchanged output is not rewritten (the configure step runs on every data/ edit).
    if (!fs.existsSync(to) || fs.readFileSync(to, 'utf8') !== out) fs.writeFileSync(to, out);
  }
}

// Run as a script; imported (tests/js/embedded-data.test.mjs), it only exports the tables above.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  embed(process.argv[2], process.argv[3], process.argv.slice(4));
}
