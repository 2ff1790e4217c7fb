// A service that fails under load: a request that arrives when more than 15 came in the
// last 300 ms gets a 500. On one connection, which sends each second's requests back to
// back, 10 or 15 r/s pass and 20 r/s does not.
import http from 'node:http';

const recent = [];
http.createServer((req, res) => {
  const now = performance.now();
  recent.push(now);
  while (recent[0] < now - 300) recent.shift();
  res.statusCode = recent.length > 15 ? 500 : 200;
  res.end('\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
