// An API server that reads its settings from the environment.
import http from 'node:http';

const port = Number(process.env.PORT ?? 3100);
http
  .createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ app: 'api', env: process.env.NODE_ENV, worker: process.env.NODE_APP_INSTANCE }));
  })
  .listen(port, '127.0.0.1');
