// A CPU-bound http service: GET /<n> computes the n-th Fibonacci number with BigInt,
// iteratively (GET / is n = 10000, about a millisecond of pure CPU), and answers with its
// last digits, the worker's slot and pid. Used by `npm run bench:affinity` (GET /10000).
import http from 'node:http';

const port = Number(process.env.PORT ?? 3001);
const slot = process.env.NODE_APP_INSTANCE ?? '-';
const MAX_N = 1_000_000;

function fib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a;
}

http
  .createServer((req, res) => {
    const n = req.url === '/' ? 10000 : Number(req.url.slice(1));
    res.setHeader('content-type', 'text/plain');
    if (!Number.isInteger(n) || n < 0 || n > MAX_N) {
      res.statusCode = 400;
      res.end(`GET /<n> with n from 0 to ${MAX_N}\n`);
      return;
    }
    res.end(`fib(${n}) ends ${fib(n).toString().slice(-8)}; worker ${slot} (pid ${process.pid})\n`);
  })
  .listen(port, '127.0.0.1');
