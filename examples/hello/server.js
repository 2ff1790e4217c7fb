// A plain http server: superd runs it unchanged, one copy per worker.
// GET /health answers 200 "ok" for load balancers and orchestrators (examples/haproxy).
import http from 'node:http';

const port = Number(process.env.PORT ?? 3000);
const slot = process.env.NODE_APP_INSTANCE;

http
  .createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    if (req.url === '/health') {
      res.end('ok\n');
      return;
    }
    res.end(`hello from worker ${slot} (pid ${process.pid})\n`);
  })
  .listen(port, process.env.HOST ?? '127.0.0.1', () => console.log(`worker ${slot} listening on port ${port}`)); // HOST=0.0.0.0 in a container
