// Listens at once, but is ready only once its warm-up is done (a cache filled, a pool
// connected): it then calls ready() from superd/worker (PM2 apps: process.send('ready')).
import http from 'node:http';
import { ready } from 'superd/worker';

const port = Number(process.env.PORT ?? 3002);
let cache = null;

async function warmUp() {
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.WARMUP_MS ?? 1500)));
  cache = { startedAt: new Date().toISOString() };
}

http
  .createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    // Never seen through superd under round-robin: traffic waits for ready().
    if (!cache) {
      res.statusCode = 503;
      res.end('warming up\n');
      return;
    }
    res.end(`warm worker ${process.env.NODE_APP_INSTANCE} (pid ${process.pid}, warm since ${cache.startedAt})\n`);
  })
  .listen(port, process.env.HOST ?? '127.0.0.1', () => warmUp().then(ready));
