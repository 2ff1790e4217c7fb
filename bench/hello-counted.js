// examples/hello/server.js plus a request counter, for the connection bench's per-worker
// balance (bench/connections.js): the same response, and every 200 ms (unref'd) this
// worker's running count is written to COUNT_DIR/<pid>, which the bench reads before and
// after a window. The cost per request is one increment.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';

const port = Number(process.env.PORT ?? 3000);
const slot = process.env.NODE_APP_INSTANCE;
const countFile = process.env.COUNT_DIR ? path.join(process.env.COUNT_DIR, String(process.pid)) : null;
let count = 0;
let written = -1;
const writeCount = () => {
  if (count === written) return;
  written = count;
  fs.writeFileSync(countFile, String(count));
};
if (countFile) {
  setInterval(writeCount, 200).unref();
  process.on('exit', writeCount);
}
// Under the bench's --profile a stop signal exits normally, so that the profile is written.
if (process.env.CPU_PROFILE_DIR) for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));

http
  .createServer((req, res) => {
    count++;
    res.setHeader('content-type', 'text/plain');
    if (req.url === '/health') {
      res.end('ok\n');
      return;
    }
    res.end(`hello from worker ${slot} (pid ${process.pid})\n`);
  })
  .listen(port, process.env.HOST ?? '127.0.0.1', () => console.log(`worker ${slot} listening on port ${port}`));
