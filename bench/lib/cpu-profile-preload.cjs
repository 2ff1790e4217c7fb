'use strict';
// --profile of bench/connections.js: preloaded through NODE_OPTIONS (--require; Node 20
// refuses --cpu-prof there) into every process of a target, it runs V8's sampling profiler
// from the start and writes CPU_PROFILE_DIR/<pid>.cpuprofile when the process exits
// normally (the in-thread inspector session answers synchronously, so 'exit' can write).
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
