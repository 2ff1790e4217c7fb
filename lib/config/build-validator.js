// Compiles config/schema.json into lib/config/schema-validator.generated.js
// with ajv's standalone mode, so loading a file does not pay ajv's import and
// compilation (~200 ms) on every `super start`. Run after editing the schema:
//   node lib/config/build-validator.js
// test/config/schema.test.js fails while the generated file is stale.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

export const SCHEMA_URL = new URL('../../config/schema.json', import.meta.url);
export const OUTPUT_URL = new URL('./schema-validator.generated.js', import.meta.url);

/** @returns {string} the source of the generated module */
export function buildValidatorSource() {
  const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true, code: { source: true, esm: true } });
  ajv.addVocabulary(['x-expected', 'x-hint', 'x-alias-of', 'x-pm2-only']);
  const code = standaloneCode(ajv, ajv.compile(schema));
  // ajv's ESM output still calls require() for its runtime helpers (ucs2length).
  const header = [
    '// GENERATED from config/schema.json by lib/config/build-validator.js; do not edit.',
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
  ].join('\n');
  return `${header}\n${code.replace(/^"use strict";/, '')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT_URL, buildValidatorSource());
  console.log(`wrote ${fileURLToPath(OUTPUT_URL)}`);
}
