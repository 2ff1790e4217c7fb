// The `super run` log printer process (lib/ctl/run-log-printer.js starts it): follows
// every app's log files over the control channel and prints each line with its prefix.
// On {drain: true} from the parent (every app has stopped), it prints what the daemon
// still sends, and exits once nothing has come for QUIET_MS since the drain began and since
// the last line (at most DRAIN_MAX_MS).
import { connect } from '../ipc/client.js';
import { superHome } from '../home.js';
import { makeRenderer, colorWanted } from './render-log.js';

const QUIET_MS = 300; // three of the daemon's follow ticks (100 ms)
const DRAIN_MAX_MS = 3000;

// SIGINT/SIGTERM reach the whole foreground process group (Ctrl-C): the daemon decides
// when we stop (drain), so ignore them here, from the start (a Ctrl-C while we connect).
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

const json = process.argv.includes('--json');
const render = makeRenderer({ json, color: !json && colorWanted(process.stdout) });
// Whoever reads our output went away (a pipe closed): stop printing, the apps run on.
for (const out of [process.stdout, process.stderr]) out.on('error', () => process.exit(0));
let client;
try {
  client = await connect(superHome());
  await client.request('logs', { target: 'all', lines: 0, follow: true });
} catch (err) {
  process.send?.({ error: err.message }); // forked by log-printer.js: the channel is there
  process.exit(1);
}
process.send?.({ following: true });

let lastEvent = Date.now();
client.onEvent((e) => {
  if (e.closed) process.exit(0);
  if (e.event !== 'log') return;
  lastEvent = Date.now();
  const d = e.data;
  if (d.skipped) {
    process.stderr.write(`super run: skipped ${d.skipped} lines of ${d.app}${d.slot === null ? '' : `#${d.slot}`} ${d.stream}: printed slower than written\n`);
    return;
  }
  const lines = d.text.split('\n');
  lines.pop(); // the text ends with a newline
  const out = d.stream === 'err' && !json ? process.stderr : process.stdout;
  const readAt = Date.now();
  // Backpressure: while the output is full, stop reading; the daemon then skips, not queues.
  if (!out.write(lines.map((l) => render(d.app, d.slot, d.stream, l, readAt)).join(''))) {
    client.pause();
    out.once('drain', () => client.resume());
  }
});

process.on('message', (/** @type {{drain?: boolean}} */ m) => {
  if (!m?.drain) return;
  const started = Date.now();
  const check = setInterval(() => {
    // Quiet since the drain began too: the workers' last lines, written as they exited,
    // arrive with the daemon's next follow tick, however long the apps were silent before.
    if (Date.now() - Math.max(lastEvent, started) >= QUIET_MS || Date.now() - started >= DRAIN_MAX_MS) {
      clearInterval(check);
      client.close();
      process.stdout.write('', () => process.exit(0));
    }
  }, 50);
});
// The parent is the daemon: if it is gone, so are we.
process.on('disconnect', () => process.exit(0));
