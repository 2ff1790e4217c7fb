// A service that fails under load, counted in requests rather than time (a window of time
// was the machine's speed: a busy generator spread 20 requests over more than it): the
// first 20 requests it gets are answered 200, every one after them 500. The search
// (--start-rate 10, one connection, steps of 1 s) sends 10 at 10 r/s, which pass; 20 at
// 20 r/s, half of them 500s; then 15 r/s, all 500s: its capacity is 10 r/s.
import http from 'node:http';

const PASSING = 20;
let served = 0;
http.createServer((req, res) => {
  res.statusCode = ++served > PASSING ? 500 : 200;
  res.end('\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
