// The app of `npm run bench:logs`: on SIGUSR2 it writes LINES numbered lines of a fixed
// length with console.log, 1,000 per turn of the event loop (as a busy real app would),
// then stays up. Slot from NODE_APP_INSTANCE (superd and PM2 both set it).
const slot = process.env.NODE_APP_INSTANCE ?? '0';
const total = Number(process.env.LINES ?? 250000);
const pad = 'x'.repeat(Number(process.env.PAD ?? 52));

process.on('SIGUSR2', () => {
  let i = 0;
  (function batch() {
    const end = Math.min(i + 1000, total);
    for (; i < end; i++) console.log(`w${slot} ${String(i).padStart(7, '0')} ${pad}`);
    if (i < total) setImmediate(batch);
  })();
});
setInterval(() => {}, 60000);
