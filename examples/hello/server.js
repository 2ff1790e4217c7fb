// A plain http server: superd runs it unchanged, one copy per worker.
import http from 'node:http';

const port = Number(process.env.PORT ?? 3000);
const slot = process.env.NODE_APP_INSTANCE;

http
  .createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from worker ${slot} (pid ${process.pid})\n`);
  })
  .listen(port, '127.0.0.1');
