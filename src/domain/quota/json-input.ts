// Parses a JSON input file so that every problem can name the file, the JSON pointer and the line:
// a small scanner maps each pointer to its line and locates syntax errors itself, because V8's
// JSON.parse messages do not always carry a position. JSON.parse still produces the value.
import { AppError } from '../../errors.ts';
import { findTooDeep, MAX_BODY_NESTING } from '../json-depth.ts';
import { escapePointer } from '../json-pointer.ts';

export type JsonInput = {
  fileName: string;
  value: unknown;
  /** The line (1-based) where the member or item at `pointer` starts (or its nearest present parent). */
  lineOf(pointer: string): number | undefined;
  /** Throws AppError `bad_input_file` naming the file, the pointer, its line and the reason. */
  fail(pointer: string, reason: string): never;
};

export function badInputFile(fileName: string, pointer: string, reason: string, line?: number): AppError {
  const where = line === undefined ? '' : ` (line ${line})`;
  return new AppError('bad_input_file', `${fileName}: ${pointer || '(root)'}${where}: ${reason}. Fix the file and run the command again.`, {
    details: [{ pointer, detail: reason }],
    extra: { file: fileName, pointer, ...(line === undefined ? {} : { line }) },
  });
}

export function parseJsonInput(text: string, fileName: string): JsonInput {
  // A byte-order mark is refused by JSON.parse but harmless; editors on some systems write one.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // The position scanner runs only when its answer is needed (a problem to report): on a large,
  // valid file it would cost more than the evaluation itself.
  let lines: Map<string, number> | null = null;
  const scanned = () => {
    if (lines === null) {
      lines = new Map<string, number>();
      scanJson(body, lines);
    }
    return lines;
  };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const where = scanJson(body, new Map()) ?? { offset: -1, reason: (err as Error).message };
    const line = where.offset < 0 ? undefined : lineAt(body, where.offset);
    const column = where.offset < 0 ? undefined : where.offset - body.lastIndexOf('\n', where.offset - 1);
    const at = line === undefined ? '' : `:${line}:${column}`;
    throw new AppError('bad_input_file', `${fileName}${at}: not valid JSON: ${where.reason}. Fix the file and run the command again.`, {
      details: [{ pointer: '', detail: `not valid JSON: ${where.reason}` }],
      extra: { file: fileName, pointer: '', ...(line === undefined ? {} : { line, column }) },
      cause: err,
    });
  }
  // The scanner below recurses once per level, so depth is bounded as for request bodies; no
  // input file has a reason to nest this deep.
  const deep = findTooDeep(value, MAX_BODY_NESTING);
  if (deep !== null) {
    const where = scanJson(body, new Map());
    throw badInputFile(fileName, deep, `nested deeper than ${MAX_BODY_NESTING} levels`, where === undefined ? undefined : lineAt(body, where.offset));
  }
  // A missing member has no line of its own: the object that lacks it gives the line.
  const lineOf = (pointer: string): number | undefined => {
    const known = scanned();
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const line = known.get(p);
      if (line !== undefined || p === '') return line;
    }
  };
  return {
    fileName,
    value,
    lineOf,
    fail(pointer, reason) {
      throw badInputFile(fileName, pointer, reason, lineOf(pointer));
    },
  };
}

const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function lineAt(text: string, offset: number): number {
  return lineFinder(text)(offset);
}

/** Offset → 1-based line, by binary search over the line starts. */
function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

type SyntaxProblem = { offset: number; reason: string };

/** Walks RFC 8259 JSON, recording the offset of every pointer; returns the first syntax problem. */
function scanJson(text: string, lines: Map<string, number>): SyntaxProblem | undefined {
  const offsets = new Map<string, number>();
  let i = 0;
  class Stop extends Error {
    constructor(readonly problem: SyntaxProblem) {
      super(problem.reason);
    }
  }
  const stop = (reason: string, at = i): never => {
    throw new Stop({ offset: at, reason });
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const describe = () => (i >= text.length ? 'unexpected end of file' : `unexpected character ${JSON.stringify(text[i])}`);
  const string = () => {
    const start = i++;
    let out = '';
    for (;;) {
      if (i >= text.length) stop('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 32) stop('control character in a string (escape it)');
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          out += JSON.parse(`"\\${e}"`) as string;
          i += 2;
        } else stop('invalid escape in a string');
        continue;
      }
      out += text[i++];
    }
    i++;
    return out;
  };
  const value = (pointer: string, depth: number): void => {
    ws();
    offsets.set(pointer, offsets.get(pointer) ?? i);
    const c = text[i];
    if ((c === '{' || c === '[') && depth > MAX_BODY_NESTING) stop(`nested deeper than ${MAX_BODY_NESTING} levels`);
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') stop(`expected a member name in double quotes, found ${describe().replace('unexpected ', '')}`);
        const keyAt = i;
        const child = `${pointer}/${escapePointer(string())}`;
        offsets.set(child, keyAt);
        ws();
        if (text[i] !== ':') stop(`expected ":" after a member name, ${describe()}`);
        i++;
        value(child, depth + 1);
        offsets.set(child, keyAt); // a member's line is its name's line
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') return void i++;
        stop(`expected "," or "}" in an object, ${describe()}`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(`${pointer}/${n}`, depth + 1);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') return void i++;
        stop(`expected "," or "]" in an array, ${describe()}`);
      }
    }
    if (c === '"') return void string();
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (literal === null) return stop(`expected a value, ${describe()}`);
    i += literal[0].length;
  };
  try {
    value('', 0);
    ws();
    if (i < text.length) stop(`unexpected content after the JSON value, ${describe()}`);
  } catch (err) {
    if (err instanceof Stop) return err.problem;
    throw err;
  }
  const line = lineFinder(text);
  for (const [pointer, offset] of offsets) lines.set(pointer, line(offset));
  return undefined;
}
