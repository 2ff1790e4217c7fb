// Validates parsed data against config/schema.json (ajv, all errors) and turns
// ajv's errors into friendly problems: one per key path, with "must be <what>
// (got <value>); <what to do>" built from the schema's own annotations:
//   x-expected  what a valid value looks like, in words
//   x-hint      what to do (else: "e.g. <key>: <first of examples>")

import { readFileSync } from 'node:fs';
import { didYouMean } from './did-you-mean.js';
import { describeValue } from './problems.js';
// Precompiled by lib/config/build-validator.js (ajv standalone, allErrors):
// importing and compiling ajv at run time would cost ~200 ms per `super start`.
import check from './schema-validator.generated.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../config/schema.json', import.meta.url), 'utf8'));
const ENV_KEY = /^env_[A-Za-z0-9_-]+$/;

/** The schema, parsed (for docs and tests). */
export function ecosystemSchema() {
  return SCHEMA;
}

/**
 * @typedef {object} SchemaProblem
 * @property {(string|number)[]} segments  key path
 * @property {'key'|'value'} which  where in the file to point
 * @property {string|null} message  `<what is wrong>; <what to do>`; null past `room` (counted, not listed)
 */

/**
 * Check data against the schema.
 * @param {unknown} data  the parsed YAML document
 * @param {number} [room]  how many problems will be listed: past it, a problem is only
 *   counted, and its message (for an unknown key, a "did you mean" search) is not built: null
 * @returns {SchemaProblem[]} empty when valid
 */
export function schemaProblems(data, room = Infinity) {
  if (check(data)) return [];
  const errors = (check.errors ?? []).map((e) => ({ ...e, segments: toSegments(e.instancePath, data) }));
  // An anyOf that failed says it best as a whole ("a string or a list of strings"):
  // drop its branches' errors, at its path and below.
  const wholes = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.segments);
  const covered = (segs) => wholes.some((w) => w.length <= segs.length && w.every((s, i) => s === segs[i]));

  const out = [];
  const seen = new Set();
  const unlisted = (segments) => ({ segments, which: /** @type {'value'} */ ('value'), message: null });
  for (const e of errors) {
    if (e.keyword === 'additionalProperties') {
      const key = e.params.additionalProperty;
      out.push(out.length < room ? unknownKey(e.segments, key) : unlisted([...e.segments, key]));
    } else if (e.keyword === 'required') {
      const key = e.params.missingProperty;
      out.push(out.length < room ? missingKey(e.segments, key) : unlisted([...e.segments, key]));
    } else if (e.keyword === 'propertyNames') {
      continue; // the inner error (with propertyName) says which name
    } else if (e.propertyName !== undefined) {
      // Inside an anyOf (cpu_affinity's per-slot mapping) the whole anyOf says it better.
      if (covered(e.segments)) continue;
      const segs = [...e.segments, e.propertyName];
      if (!seen.has(JSON.stringify(segs))) {
        seen.add(JSON.stringify(segs));
        out.push({ segments: segs, which: 'key', message: 'not a valid variable name; remove "=" from it' });
      }
    } else {
      const key = JSON.stringify(e.segments);
      const whole = e.keyword === 'anyOf' || e.keyword === 'oneOf';
      if (seen.has(key) || (!whole && covered(e.segments))) continue;
      seen.add(key);
      out.push(out.length < room ? badValue(e.segments, e, valueAt(data, e.segments)) : unlisted(e.segments));
    }
  }
  // `sript: app.js` is one mistake: the unknown key's "did you mean script"
  // says it all, without a second "script: required key missing".
  const meant = new Set(out.filter((p) => p.suggestion).map((p) => JSON.stringify([...p.segments.slice(0, -1), p.suggestion])));
  return out.filter((p) => !(p.missing && meant.has(JSON.stringify(p.segments)))).map(({ segments, which, message }) => ({ segments, which: /** @type {'key'|'value'} */ (which), message }));
}

function unknownKey(parent, key) {
  const segments = [...parent, key];
  const props = Object.assign({}, ...schemasAt(parent).map((s) => s.properties ?? {}));
  // PM2-only keys are accepted (and ignored): never suggest one for a typo.
  const known = Object.keys(props).filter((k) => !props[k]['x-pm2-only']);
  let suggestion = didYouMean(key, known);
  if (!suggestion && known.includes('env') && /^env./i.test(key)) {
    // env-production, envProduction, env.production -> env_production
    const guess = `env_${key.slice(3).replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9_-]/g, '_')}`;
    if (ENV_KEY.test(guess)) suggestion = guess;
  }
  let todo;
  if (suggestion) todo = `did you mean "${suggestion}"?`;
  else if (known.length <= 8) todo = `remove it (known keys: ${known.join(', ')})`;
  else todo = 'remove it, or see config/schema.json for the keys';
  return { segments, which: 'key', message: `unknown key; ${todo}`, suggestion };
}

function missingKey(parent, key) {
  const segments = [...parent, key];
  const schemas = schemasAt(segments);
  const hint = annotation(schemas, 'x-hint') ?? example(key, schemas) ?? 'add it';
  const message = `required key missing; ${hint.startsWith('e.g.') ? `add it, ${hint}` : hint}`;
  return { segments, which: 'value', message, missing: true };
}

function badValue(segments, error, value) {
  const schemas = schemasAt(segments);
  const expected = annotation(schemas, 'x-expected') ?? expectedFrom(error);
  const key = segments.at(-1);
  let hint = annotation(schemas, 'x-hint');
  if (!hint && error.keyword === 'enum' && typeof value === 'string') {
    // PM2 spells modes `cluster_mode` / `fork_mode`: a prefix match is as good as a typo.
    const allowed = error.params.allowedValues;
    const guess = didYouMean(value, allowed) ?? allowed.find((a) => typeof a === 'string' && value.startsWith(a));
    if (guess) hint = `did you mean "${guess}"?`;
  }
  hint ??= (typeof key === 'string' && example(key, schemas)) || 'fix the value';
  const got = segments.length === 0 && value == null ? 'an empty file'
    : inEnv(segments) && typeof value === 'string' ? 'a string' : describeValue(value);
  return { segments, which: 'value', message: `must be ${expected} (got ${got}); ${hint}` };
}

/** An app's env (env, env_<name>) holds secrets: a problem there never echoes a value. */
const inEnv = (segments) => segments.some((s) => typeof s === 'string' && (s === 'env' || s.startsWith('env_')));

/** Words for a failed keyword, when the schema has no x-expected. */
function expectedFrom(e) {
  switch (e.keyword) {
    case 'type': return [].concat(e.params.type).map(typeWord).join(' or ');
    case 'enum': return `one of: ${e.params.allowedValues.join(', ')}`;
    case 'const': return JSON.stringify(e.params.allowedValue);
    case 'minimum': return `a number >= ${e.params.limit}`;
    case 'maximum': return `a number <= ${e.params.limit}`;
    case 'minLength': return 'a non-empty string';
    case 'minItems': return `a list of at least ${e.params.limit}`;
    default: return 'valid here'; // unreachable with the current schema: every other keyword carries x-expected
  }
}

function typeWord(t) {
  return { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', array: 'a list', object: 'a mapping', null: 'empty' }[t] ?? t;
}

function annotation(schemas, name) {
  return schemas.find((s) => s[name] !== undefined)?.[name];
}

function example(key, schemas) {
  const ex = annotation(schemas, 'examples')?.[0];
  return ex === undefined ? undefined : `e.g. ${key}: ${flow(ex)}`;
}

/** A value as YAML flow text, for hints. */
function flow(v) {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${flow(x)}`).join(', ')} }`;
  // Plain when YAML would read it back as the same string; quoted otherwise.
  if (typeof v === 'string' && (!/^[\w/.][\w./ :-]*$/.test(v) || /^([\d.+-]+|true|false|null|~)$/i.test(v))) {
    return JSON.stringify(v);
  }
  return String(v);
}

/**
 * The schema nodes that apply at a key path, most specific first
 * (the property's own schema, then what it refers to, then its anyOf branches).
 */
function schemasAt(segments) {
  let nodes = expand([SCHEMA]);
  for (const seg of segments) {
    const next = [];
    for (const n of nodes) {
      if (typeof seg === 'number') {
        if (n.items && typeof n.items === 'object') next.push(n.items);
      } else if (n.properties?.[seg]) {
        next.push(n.properties[seg]);
      } else {
        const pattern = Object.keys(n.patternProperties ?? {}).find((p) => new RegExp(p, 'u').test(seg));
        if (pattern) next.push(n.patternProperties[pattern]);
        else if (n.additionalProperties && typeof n.additionalProperties === 'object') next.push(n.additionalProperties);
      }
    }
    nodes = expand(next);
  }
  return nodes;
}

function expand(nodes) {
  const out = [];
  for (const n of nodes) {
    out.push(n);
    if (n.$ref) out.push(...expand([resolveRef(n.$ref)]));
    for (const branch of n.anyOf ?? []) out.push(...expand([branch]));
  }
  return out;
}

function resolveRef(ref) {
  return ref.replace(/^#\//, '').split('/').reduce((node, part) => node[part], SCHEMA);
}

/** JSON pointer -> key path, with array indexes as numbers (the data tells which). */
function toSegments(pointer, data) {
  if (!pointer) return [];
  const segs = [];
  let cur = data;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const seg = Array.isArray(cur) ? Number(part) : part;
    segs.push(seg);
    cur = cur?.[seg];
  }
  return segs;
}

function valueAt(data, segments) {
  return segments.reduce((cur, seg) => cur?.[seg], data);
}
