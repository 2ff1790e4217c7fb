// The last bytes of a file as text, starting at a line boundary (async, bounded).
import fs from 'node:fs/promises';

export async function tailFile(file, maxBytes = 2048) {
  if (!file) return '';
  let fh;
  try {
    fh = await fs.open(file, 'r');
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
