// super ping: exit 0 if the daemon answers, 3 if not (for health checks).
import { request } from '../session.js';

export default async function ping() {
  const data = await request('ping', {}, { timeout: 5000 });
  process.stdout.write(`pong (daemon pid ${data.pid}, up ${Math.round(data.uptime_ms / 1000)}s)\n`);
}
