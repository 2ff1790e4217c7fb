// Compiles config/schema.json into lib/config/schema-validator.generated.js
// with ajv's standalone mode, so loading a file does not pay ajv's import and
// compilation (~200 ms) on every `super start`. Run after editing the schema:
//   node lib/config/build-validator.js
// test/config/schema.test.js fails while the generated file is stale. ajv is a
// devDependency: the generated file needs nothing from it at run time.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

const SCHEMA_URL = new URL('../../config/schema.json', import.meta.url);
export const OUTPUT_URL = new URL('./schema-validator.generated.js', import.meta.url);

/** @returns {string} the source of the generated module */
export function buildValidatorSource() {
  const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8'));
  // ajv is CommonJS: its module.exports is the class, and its `default` the same class (the one TypeScript sees).
  const ajv = new Ajv2020.default({ allErrors: true, allowUnionTypes: true, strict: true, code: { source: true, esm: true } });
  ajv.addVocabulary(['x-expected', 'x-hint', 'x-alias-of', 'x-pm2-only']);
  const code = standaloneCode.default(ajv, ajv.compile(schema));
  // ajv's output requires its runtime helper ucs2length (a string's length in code points,
  // for minLength/maxLength): inlined, so ajv is a build-time (dev) dependency only.
  const inlined = code.replaceAll('require("ajv/dist/runtime/ucs2length")', '{ default: (s) => [...s].length }');
  if (/\brequire\(/.test(inlined)) throw new Error('the generated validator needs another ajv runtime helper: inline it here');
  const header = '// GENERATED from config/schema.json by lib/config/build-validator.js; do not edit.';
  return `${header}\n${inlined.replace(/^"use strict";/, '')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT_URL, buildValidatorSource());
  console.log(`wrote ${fileURLToPath(OUTPUT_URL)}`);
}
