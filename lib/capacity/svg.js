// The chart of `super capacity` as an SVG file: one bar per instance count (max r/s within
// the objective), its value above it, and the --target rate as a dashed line. Pure.
import { sloText } from './render.js';

const W = 640;
const H = 360;
const PAD = { left: 60, right: 20, top: 50, bottom: 50 };

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** @returns {string} a standalone SVG document */
export function svgChart({ app, plan, rows }) {
  const top = Math.max(1, plan.target ?? 0, ...rows.map((r) => r.max_rps)) * 1.15;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v) => PAD.top + plotH - (v / top) * plotH;
  const slot = plotW / Math.max(1, rows.length);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(`${app}: max r/s within ${sloText(plan.slo)}`)}</text>`,
    `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}" stroke="#333"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#333"/>`,
    `<text x="16" y="${PAD.top + plotH / 2}" transform="rotate(-90 16 ${PAD.top + plotH / 2})" text-anchor="middle">requests per second</text>`,
    `<text x="${PAD.left + plotW / 2}" y="${H - 12}" text-anchor="middle">instances</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = Math.round((top / 4) * i);
    parts.push(`<text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  rows.forEach((r, i) => {
    const x = PAD.left + i * slot + slot * 0.2;
    const w = slot * 0.6;
    const fill = r.generator_saturated ? '#c99' : '#4a7bd0';
    parts.push(`<rect x="${x.toFixed(1)}" y="${y(r.max_rps).toFixed(1)}" width="${w.toFixed(1)}" height="${(PAD.top + plotH - y(r.max_rps)).toFixed(1)}" fill="${fill}"/>`);
    parts.push(`<text x="${(x + w / 2).toFixed(1)}" y="${(y(r.max_rps) - 5).toFixed(1)}" text-anchor="middle">${r.max_rps}</text>`);
    parts.push(`<text x="${(x + w / 2).toFixed(1)}" y="${PAD.top + plotH + 16}" text-anchor="middle">${r.instances}</text>`);
  });
  if (plan.target) {
    parts.push(`<line x1="${PAD.left}" y1="${y(plan.target).toFixed(1)}" x2="${W - PAD.right}" y2="${y(plan.target).toFixed(1)}" stroke="#d33" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${W - PAD.right}" y="${(y(plan.target) - 5).toFixed(1)}" text-anchor="end" fill="#d33">target ${plan.target} r/s</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
