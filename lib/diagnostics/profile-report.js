// What the CLI makes of a finished .cpuprofile (never the daemon: parsing a profile is
// work no event loop on the path of connections should do): the flame graph written
// beside it as <name>.html, and the top functions by self time.
import fs from 'node:fs/promises';
import path from 'node:path';
import { flameGraphHtml } from './flamegraph.js';
import { topSelfTime } from './profile-summary.js';

/** `/x/api-0-....cpuprofile` -> `/x/api-0-....html` */
export const htmlPathOf = (file) => path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.html`);

/**
 * @param {string} file  a .cpuprofile
 * @param {{title: string, limit?: number}} o
 * @returns {Promise<{html: string, top: object[]}>}  the flame graph's path and the top rows
 */
export async function reportProfile(file, { title, limit = 10 }) {
  const profile = JSON.parse(await fs.readFile(file, 'utf8'));
  const html = htmlPathOf(file);
  await fs.writeFile(html, flameGraphHtml(profile, { title }), { mode: 0o600 });
  return { html, top: topSelfTime(profile, { limit }) };
}
