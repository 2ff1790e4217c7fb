// A background worker that never listens (CommonJS): ready once it has stayed up.
const every = Number(process.env.TICK_MS ?? 5000);
setInterval(() => console.log(`jobs: tick in ${process.env.NODE_ENV} mode`), every);
process.on('SIGINT', () => {
  console.log('jobs: finishing up');
  process.exit(0);
});
