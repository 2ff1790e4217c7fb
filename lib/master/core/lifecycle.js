// The daemon's parts in the order they were opened, closed in reverse (as fastify's avvio
// closes plugins): what was opened last, and may use what came before it, closes first.
// A part that fails to close does not keep the others open.

export class Lifecycle {
  #parts = [];

  /**
   * @param {string} name  for the log, when closing it fails
   * @param {() => unknown} close  may return a promise
   */
  add(name, close) {
    this.#parts.push({ name, close });
  }

  /** Closes every part added so far, last first, each once. */
  async closeAll(onError = () => {}) {
    while (this.#parts.length) {
      const { name, close } = this.#parts.pop();
      try {
        await close();
      } catch (err) {
        onError(name, err);
      }
    }
  }
}
