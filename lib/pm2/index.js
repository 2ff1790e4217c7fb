// The face of lib/pm2: turn what PM2 knows about a user's apps (its dump, or a PM2
// ecosystem file) into a superd ecosystem.yml, and say what could not be carried over.
import path from 'node:path';
import { readSource, importError } from './read-source.js';
import { mapApp } from './map-app.js';
import { renderEcosystem } from './render-ecosystem.js';
import { workLimits } from '../config/work-limits.js';
import { MAX_FILE_BYTES } from '../config/index.js';

export { importError };

/**
 * @param {{ pm2Home?: string, file?: string, out: string, here?: object }} opts
 *   out: the ecosystem.yml to write (its directory anchors relative paths)
 * @returns {Promise<{ text: string, source: string, apps: object[], notes: string[] }>}
 * @throws {SuperError} E_IMPORT, also when superd could not load the result for its size
 */
export async function importPm2({ pm2Home, file, out, here }) {
  const read = await readSource({ pm2Home, file, here });
  const { apps: maxApps } = workLimits();
  if (read.apps.length > maxApps) {
    throw importError(`${read.source} has ${read.apps.length} apps, more than the ${maxApps} superd loads from one ecosystem file; split them across files and daemons, or raise SUPER_MAX_APPS (in the daemon's environment and this shell's)`);
  }
  const ctx = { baseDir: read.baseDir, outDir: path.dirname(path.resolve(out)) };
  const notes = [...read.notes];
  const apps = [];
  const taken = new Set();
  for (const raw of read.apps) {
    const mapped = mapApp(raw, ctx);
    notes.push(...mapped.notes);
    apps.push(uniquelyNamed(mapped.app, taken, notes));
  }
  const text = renderEcosystem({ source: read.source, apps, notes });
  const size = Buffer.byteLength(text);
  if (size > MAX_FILE_BYTES) {
    throw importError(`the ecosystem file for ${read.source} would be ${size} bytes, more than the ${MAX_FILE_BYTES} superd reads; import part of it (split the PM2 file) or shorten what it carries`);
  }
  return { text, source: read.source, apps, notes };
}

/** PM2 lets two apps share a name; superd's commands need one app per name. */
function uniquelyNamed(app, taken, notes) {
  let name = app.name;
  for (let i = 2; taken.has(name); i++) name = `${app.name}-${i}`;
  taken.add(name);
  if (name !== app.name) {
    notes.push(`${app.name}: another app has this name; this one (${app.script}) is renamed "${name}"`);
    return { ...app, name };
  }
  return app;
}
