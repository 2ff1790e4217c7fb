// The last bytes of a file as text, starting at a line boundary (async, bounded).
import { openForReading } from '../../logs/open-for-reading.js';

/**
 * The stderr tail shown when slot `slot` of `app` failed, and the label for its lines: a
 * file shared by several workers (merge_logs) cannot say which slot wrote a line.
 * `refused`: the daemon's reason for refusing the worker's listen(), which its agent printed
 * before the crash; kept first when the crash's own lines push it out of the tail (Node 22
 * and 24 print the whole stack of an unhandled 'error' event).
 */
export async function stderrTail(app, slot, refused = null, maxBytes = 1200) {
  const shared = app.config.merge_logs !== false && app.slots.length > 1;
  let stderr = await tailFile(app.logPaths(slot).err, maxBytes);
  if (refused && !stderr.includes(refused)) stderr = `${refused}\n${stderr}`;
  return { stderr, stderr_label: shared ? app.name : `${app.name}#${slot}` };
}

export async function tailFile(file, maxBytes = 2048) {
  if (!file) return '';
  let fh;
  try {
    fh = await openForReading(file);
    const { size } = await fh.stat();
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return text.trimEnd();
  } catch {
    return '';
  } finally {
    await fh?.close();
  }
}
