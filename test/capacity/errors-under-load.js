// A service that fails under load: a request that arrives with more than 15 others in the
// last 300 ms gets a 500. A burst of 10 requests (10 r/s) passes, one of 20 does not.
import http from 'node:http';

const recent = [];
http.createServer((req, res) => {
  const now = performance.now();
  recent.push(now);
  while (recent[0] < now - 300) recent.shift();
  res.statusCode = recent.length > 15 ? 500 : 200;
  res.end('\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
