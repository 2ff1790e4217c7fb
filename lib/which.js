// Finds an executable on PATH, like which(1). Synchronous: called once per process
// (results are cached by the callers), never per request.
import fs from 'node:fs';
import path from 'node:path';

/** @returns {string|null} the absolute path of `name` on PATH, or null */
export function which(name, PATH = process.env.PATH || '/usr/bin:/bin') {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}
