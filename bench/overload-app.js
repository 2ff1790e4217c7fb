// The app of the overload bench (bench/overload.js): each request costs BURN_MS (default
// 10) ms of CPU, so one worker on one core serves about 1000 / BURN_MS requests a second.
import http from 'node:http';

const burnMs = Number(process.env.BURN_MS ?? 10);
http.createServer((req, res) => {
  const end = performance.now() + burnMs;
  while (performance.now() < end);
  res.end(`pid ${process.pid}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
