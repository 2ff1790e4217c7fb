// The daemon's face for the CLI: `super daemon` and `super run` start it in the foreground.
export { startDaemon } from './core/index.js';
