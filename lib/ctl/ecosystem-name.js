// Which `super start` argument is an ecosystem file rather than an app's script, by its name:
// ecosystem*.js / *.config.js (and .cjs, .mjs), and any .json, .yml, .yaml or .ts (.cts, .mts).
// Any other .js file is a script (`super start app.js`), as in PM2.
import path from 'node:path';

const ECOSYSTEM_JS = /^ecosystem[^/]*\.[cm]?js$|\.config\.[cm]?js$/i;
const ECOSYSTEM_EXT = /\.(json|ya?ml|[cm]?ts)$/i;

export function isEcosystemFile(arg) {
  const base = path.basename(arg);
  return ECOSYSTEM_JS.test(base) || ECOSYSTEM_EXT.test(base);
}
