// A small uPlot chart (a sparkline with axes) as a Preact component. uPlot draws on a
// canvas; the component creates it once and hands it new columns on each render.
import { Component, h } from '/vendor/preact.mjs';

const { uPlot } = globalThis; // /vendor/uplot.js, a classic script before the modules

export class Spark extends Component {
  componentDidMount() {
    const { label, color = '#58a6ff', width = 220, height = 76, format = (v) => String(v) } = this.props;
    this.plot = new uPlot({
      width, height, padding: [6, 6, 2, 0], legend: { show: false }, cursor: { show: false },
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(max ?? 0, this.props.floor ?? 0) * 1.1 || 1] } },
      // a time axis (local time, uPlot's own ticks); a null point is a gap in the line (spanGaps: false)
      axes: [{ size: 16, stroke: '#8593a3', grid: { show: false }, ticks: { size: 3 }, font: '9px sans-serif' }, { size: 58, stroke: '#8593a3', grid: { stroke: '#2a313a' }, ticks: { show: false }, values: (u, vals) => vals.map(format), font: '10px sans-serif' }],
      series: [{}, { label, stroke: color, width: 1.5, fill: `${color}22`, spanGaps: false, points: { show: false } }],
    }, this.props.data, this.el);
  }

  shouldComponentUpdate(next) {
    if (this.plot && next.version !== this.props.version) this.plot.setData(next.data);
    return false; // uPlot owns the canvas
  }

  componentWillUnmount() {
    this.plot?.destroy();
  }

  render() {
    return h('div', { class: 'chart-canvas', ref: (el) => (this.el = el) });
  }
}
