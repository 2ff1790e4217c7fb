// The daemon's boot runs once, yet it is hot enough (the module loader resolving ~130 files)
// for V8's optimizing compiler to start, which pages ~3 MB of the node binary's compiler code
// into the daemon for as long as it lives, idle or not. `super daemon` holds TurboFan off
// (the interpreter and Sparkplug's baseline code run the boot) until the daemon is ready;
// from then on V8 optimizes as usual, so what serves connections is as fast as it ever was.
import v8 from 'node:v8';

let held = false;

/** Before the daemon's modules load; not when the user chose the compiler's flags himself. */
export function holdOptimizingTiers() {
  if (/--(no-)?(opt|turbofan)\b/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return;
  v8.setFlagsFromString('--no-opt');
  held = true;
}

/** Once the daemon is ready (a no-op unless held). */
export function releaseOptimizingTiers() {
  if (!held) return;
  v8.setFlagsFromString('--opt');
  held = false;
}
