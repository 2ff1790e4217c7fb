// A service with a known cost: every request takes 10 ms of CPU, so one worker cannot
// serve more than about 100 requests per second, whatever the latency allowed.
import http from 'node:http';

http.createServer((req, res) => {
  const end = performance.now() + 10;
  while (performance.now() < end);
  res.end('ok\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
