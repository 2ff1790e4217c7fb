// The heap-snapshot bench's app: before it listens, it retains about HEAP_MB megabytes of
// live JavaScript objects (its first argument, default 500): records of a named class, each with a short
// unique string and an array of 96 numbers, so the heap is many objects, as a real
// service's is (a snapshot's cost grows with the object count, not only the bytes).
// Then a plain http server that names its pid (the bench waits for it).
import http from 'node:http';

const TARGET_BYTES = Number(process.argv[2] ?? 500) * 1024 * 1024;
const PER_BATCH = 10_000;

class RetainedRecord {
  constructor(id) {
    this.id = id;
    this.label = `record-${id}`;
    this.values = Array.from({ length: 96 }, (_, i) => id + i / 7);
  }
}

const retained = [];
while (process.memoryUsage().heapUsed < TARGET_BYTES) {
  const batch = [];
  for (let i = 0; i < PER_BATCH; i++) batch.push(new RetainedRecord(retained.length * PER_BATCH + i));
  retained.push(batch);
}

http
  .createServer((req, res) => res.end(`${retained.length * PER_BATCH} records retained, pid ${process.pid}\n`))
  .listen(Number(process.env.PORT), '127.0.0.1');
