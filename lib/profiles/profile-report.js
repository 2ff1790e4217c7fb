// What the CLI makes of a finished .cpuprofile (never the daemon: parsing a profile is
// work no event loop on the path of connections should do): the flame graph written
// beside it as <name>.html, and the top functions by self time. The worker profiled may
// write in that directory: both files are opened without following a link (new-file.js).
import { flameGraphHtml } from './flamegraph.js';
import { topSelfTime } from './profile-summary.js';
import { readRegularFile, writeNewFile } from './new-file.js';
import { MAX_PROFILE_BYTES } from '../config/profile-limits.js';
import { htmlPathOf } from './out-path.js';


/**
 * @param {string} file  a .cpuprofile
 * @param {{title: string, limit?: number, force?: boolean}} o  force: replace an existing <name>.html
 * @returns {Promise<{html: string, top: object[]}>}  the flame graph's path and the top rows
 */
export async function reportProfile(file, { title, limit = 10, force = false }) {
  const profile = JSON.parse(readRegularFile(file, MAX_PROFILE_BYTES).toString('utf8'));
  const html = htmlPathOf(file);
  writeNewFile(html, flameGraphHtml(profile, { title }), { force });
  return { html, top: topSelfTime(profile, { limit }) };
}
