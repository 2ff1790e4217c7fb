// A CPU-bound HTTP app for the agent-overhead bench: each request does a fixed amount of
// pure JavaScript work (about a millisecond), so throughput is bounded by the worker's CPU.
import http from 'node:http';

function work() {
  let h = 2166136261;
  for (let i = 0; i < 200000; i++) h = Math.imul(h ^ (i & 0xff), 16777619);
  return h >>> 0;
}

http.createServer((req, res) => res.end(`${work()} pid ${process.pid}\n`)).listen(Number(process.env.PORT), '127.0.0.1');
