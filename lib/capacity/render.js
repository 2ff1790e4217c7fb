// What `super capacity` prints: the table (instances -> max r/s at the objective, p99 at
// that rate, CPU and event-loop delay p99 per worker), a bar chart for the terminal, why it
// stopped adding instances, and the recommendation for --target. Pure: data in, text out.

/**
 * The fewest instances whose max rate reaches `target`, and the headroom left at it.
 * @returns {{target_rps: number, instances: number|null, max_rps: number, headroom_pct: number|null, best_instances?: number}|null}
 */
export function recommend(rows, target) {
  if (!target) return null;
  const fit = rows.find((r) => r.max_rps >= target);
  const best = rows.reduce((a, r) => (r.max_rps > a.max_rps ? r : a), rows[0] ?? { max_rps: 0, instances: null });
  if (!fit) return { target_rps: target, instances: null, max_rps: best.max_rps, best_instances: best.instances, headroom_pct: null };
  return { target_rps: target, instances: fit.instances, max_rps: fit.max_rps, headroom_pct: Math.round((fit.max_rps / target - 1) * 100) };
}

/** 0.42 -> "42%" (a share of one CPU). */
export const pct = (x) => `${Math.round(x * 100)}%`;

export const sloText = (slo) => Object.entries(slo).map(([k, v]) => `${k} <= ${v} ms`).join(', ');

/** The whole report for a terminal. */
export function renderReport({ app, plan, rows, stopped, recommendation, svg }) {
  const out = [`${app}: max request rate within ${sloText(plan.slo)} on ${plan.path}, no errors (steps of ${plan.stepMs / 1000} s, ${plan.connections} connections)`, ''];
  out.push(table(rows), '', chart(rows), '');
  out.push(`stopped: ${stopped.detail}`);
  const saturated = rows.filter((r) => r.generator_saturated).map((r) => r.instances);
  if (saturated.length) out.push(`note: the load generator was saturated (>= 90% of a CPU) at ${saturated.join(', ')} instance(s): those rates are limits of the generator, not of the app`);
  if (recommendation) out.push(recommendationText(recommendation, plan.slo));
  if (svg) out.push(`chart: ${svg}`);
  return `${out.join('\n')}\n`;
}

function recommendationText(r, slo) {
  if (r.instances === null) return `for ${r.target_rps} r/s: no instance count measured reaches it within ${sloText(slo)} (best ${r.max_rps} r/s at ${r.best_instances ?? 0} instance(s))`;
  return `for ${r.target_rps} r/s: ${r.instances} instance(s) (${r.max_rps} r/s within the objective, ${r.headroom_pct}% headroom)`;
}

const num = (x, unit = '') => (x === null || x === undefined ? '-' : `${x}${unit}`);

function table(rows) {
  const head = ['instances', 'max r/s', 'p99 ms', 'CPU/worker', 'loop p99/worker', 'generator CPU', 'machine CPU', 'above it'];
  const body = rows.map((r) => [
    String(r.instances),
    String(r.max_rps),
    num(r.p99_ms),
    r.cpu_per_worker.map((c) => num(c, '%')).join(' ') || '-',
    r.loop_p99_ms_per_worker.map((l) => num(l, 'ms')).join(' ') || '-',
    `${pct(r.generator_cpu)}${r.generator_saturated ? ' (saturated)' : ''}`,
    pct(r.machine_cpu),
    r.limit ?? '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

const BAR_WIDTH = 40;

/** Horizontal bars of max r/s per instance count. */
export function chart(rows) {
  const top = Math.max(1, ...rows.map((r) => r.max_rps));
  const label = String(Math.max(...rows.map((r) => r.instances))).length;
  return rows.map((r) => {
    const n = Math.round((r.max_rps / top) * BAR_WIDTH);
    return `${String(r.instances).padStart(label)} | ${'#'.repeat(n)}${' '.repeat(BAR_WIDTH - n)} ${r.max_rps} r/s`;
  }).join('\n');
}
