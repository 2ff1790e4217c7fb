// The browser benches (dashboard-cost.js, dashboard-screenshot.js) refuse to run, exit 2,
// when Debian's chromium is missing, saying how to get it.
import { noChromium } from '../../test/helpers/chromium.js';

export function needChromium() {
  const why = noChromium();
  if (!why) return;
  process.stderr.write(`bench: ${why}\n`);
  process.exit(2);
}
