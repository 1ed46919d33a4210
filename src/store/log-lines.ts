// The event log's lines as raw bytes with the byte offset each starts at, read in chunks: what
// `gov events verify` checks one by one, compares byte for byte with the index, and names a bad
// line by when its seq cannot be read.
import { closeSync, openSync, readSync } from 'node:fs';

export type LogLine = {
  /** The byte offset of the line's first byte. */
  offset: number;
  /** The line without its newline. */
  bytes: Buffer;
  /** The byte offset just past the line's newline (where the next line starts). */
  end: number;
};

/**
 * Every line of the log's bytes `from` to `to` (`to` ends a line: the tail start-up keeps). A last
 * line without its newline, which only a log changed meanwhile can have, is handed over as it is.
 */
export function* logLines(path: string, from: number, to: number, chunkSize = 4 * 1024 * 1024): Generator<LogLine> {
  const fd = openSync(path, 'r');
  try {
    let position = from;
    let carry = Buffer.alloc(0);
    let carryAt = from;
    while (position < to) {
      const buf = Buffer.alloc(Math.min(chunkSize, to - position));
      const n = readSync(fd, buf, 0, buf.length, position);
      if (n === 0) break;
      position += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        yield { offset: carryAt + start, bytes: data.subarray(start, nl), end: carryAt + nl + 1 };
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryAt += start;
    }
    if (carry.length > 0) yield { offset: carryAt, bytes: carry, end: carryAt + carry.length };
  } finally {
    closeSync(fd);
  }
}
