// How a worker's exit is put into words, in logs, replies and `super ls`.
export function describeExit(exit) {
  if (exit.error) return `could not start: ${exit.error}`;
  return exit.signal ? `exited on signal ${exit.signal}` : `exited with code ${exit.code}`;
}
