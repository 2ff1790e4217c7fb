// One line of health per worker, for `super describe`: what `super ls` has no room for.
import { formatBytes, formatMs } from './format.js';

/** @param {object} w  a worker of `ls`/`describe` with its `metrics` */
export function metricsLine(w) {
  const m = w.metrics;
  if (!m) return null;
  const loop = m.loop_delay_ms ? `loop p50/p99/max ${formatMs(m.loop_delay_ms.p50)}/${formatMs(m.loop_delay_ms.p99)}/${formatMs(m.loop_delay_ms.max)}` : 'loop -';
  const http = m.http_rps != null ? `, http ${m.http_rps} req/s${m.http_p99_ms != null ? ` p99 ${formatMs(m.http_p99_ms)}` : ''}` : '';
  const shed = m.shed_requests != null ? `, ${m.shedding ? 'shedding, ' : ''}${m.shed_requests} shed` : '';
  const conns = m.connections != null ? `, ${m.connections} connection(s)${m.websockets ? ` (${m.websockets} websocket)` : ''}` : '';
  const res = Object.entries(m.resources ?? {}).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  return `  #${w.slot} ${loop}, elu ${m.elu ?? '-'}, heap ${formatBytes(m.heap_used)}/${formatBytes(m.heap_total)}, ${m.processes ?? '?'} process(es)${http}${shed}${conns}${res ? `, active: ${res}` : ''}`;
}
