// A JSON input file (POLICY.json, USAGE.json, a forge data set) whose problems name the file, the
// JSON pointer and the line:column. JSON.parse produces the value; jsonc-parser (a maintained
// parser, in strict JSON mode) locates syntax errors and maps a pointer to its place in the text,
// and only when a problem is reported: on a large, valid file it would cost more than the work.
import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { AppError, type ErrorDetail } from '../../errors.ts';
import { findTooDeep, MAX_BODY_NESTING } from '../json-depth.ts';
import { escapePointer } from '../json-pointer.ts';

/** 1-based, the column in UTF-16 code units as editors count them. */
export type TextPosition = { line: number; column: number };

/** Reports problems at JSON pointers of the file (the first names the line) and does not return. */
export type Fail = (problems: ErrorDetail | readonly ErrorDetail[]) => never;

export type JsonInput = {
  fileName: string;
  value: unknown;
  /** Where the member (its name) or item at `pointer` starts; a missing one: its nearest present parent. */
  positionOf(pointer: string): TextPosition | undefined;
  /** Throws AppError `bad_input_file` naming the file, the first problem's pointer, line and column, and every problem. */
  fail: Fail;
};

function badInputFile(fileName: string, problems: readonly ErrorDetail[], at?: TextPosition): AppError {
  const { pointer, detail } = problems[0]!;
  const where = at === undefined ? '' : ` (line ${at.line}, column ${at.column})`;
  return new AppError('bad_input_file', `${fileName}: ${pointer || '(root)'}${where}: ${detail}. Fix the file and run the command again.`, {
    details: [...problems],
    extra: { file: fileName, pointer, ...at },
  });
}

export function parseJsonInput(text: string, fileName: string): JsonInput {
  // A byte-order mark is refused by JSON.parse but harmless; editors on some systems write one.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw notJson(body, fileName, err);
  }
  // jsonc-parser recurses once per level, so it only ever sees a file whose depth is bounded, as
  // request bodies are; no input file has a reason to nest this deep.
  const deep = findTooDeep(value, MAX_BODY_NESTING);
  if (deep !== null) {
    const offset = tooDeepAt(body);
    throw badInputFile(fileName, [{ pointer: deep, detail: `nested deeper than ${MAX_BODY_NESTING} levels` }], offset === undefined ? undefined : positionAt(body, offset));
  }
  let offsets: Map<string, number> | null = null;
  let lines: number[] | null = null;
  const positionOf = (pointer: string): TextPosition | undefined => {
    offsets ??= offsetsOf(parseTree(body, [], STRICT));
    lines ??= lineStarts(body);
    // A missing member has no place of its own: the object that lacks it gives it.
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const offset = offsets.get(p);
      if (offset !== undefined) return positionIn(lines, offset);
      if (p === '') return undefined;
    }
  };
  return {
    fileName,
    value,
    positionOf,
    fail(problems) {
      const list: readonly ErrorDetail[] = 'pointer' in problems ? [problems] : problems;
      throw badInputFile(fileName, list, positionOf(list[0]!.pointer));
    },
  };
}

const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/** `file:line:column: not valid JSON: reason`, from the first error jsonc-parser finds. */
function notJson(body: string, fileName: string, cause: unknown): AppError {
  const deep = tooDeepAt(body);
  let problem: { offset: number; reason: string } | undefined;
  if (deep !== undefined) problem = { offset: deep, reason: `nested deeper than ${MAX_BODY_NESTING} levels` };
  else {
    const errors: ParseError[] = [];
    parseTree(body, errors, STRICT);
    const first = errors[0];
    if (first !== undefined) problem = { offset: first.offset, reason: `${SYNTAX[printParseErrorCode(first.error)] ?? 'not JSON'}, found ${found(body, first)}` };
  }
  // Both parsers refuse the same texts; should they ever differ, V8's words still say why.
  const reason = problem?.reason ?? (cause as Error).message;
  const at = problem === undefined ? undefined : positionAt(body, problem.offset);
  return new AppError('bad_input_file', `${fileName}${at === undefined ? '' : `:${at.line}:${at.column}`}: not valid JSON: ${reason}. Fix the file and run the command again.`, {
    details: [{ pointer: '', detail: `not valid JSON: ${reason}` }],
    extra: { file: fileName, pointer: '', ...at },
    cause,
  });
}

const SYNTAX: Record<string, string> = {
  InvalidSymbol: 'expected a JSON value (strings in double quotes; true, false, null; decimal numbers)',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'expected a member name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after a member name',
  CommaExpected: 'expected "," between two items or members',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the array',
  EndOfFileExpected: 'unexpected content after the JSON value',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'an unterminated string',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'an invalid \\u escape in a string',
  InvalidEscapeCharacter: 'an invalid escape in a string',
  InvalidCharacter: 'a control character in a string (escape it)',
};

function found(body: string, error: ParseError): string {
  if (error.offset >= body.length) return 'the end of the file';
  const token = body.slice(error.offset, error.offset + Math.min(Math.max(error.length, 1), 20));
  return JSON.stringify(token);
}

/**
 * The offset of the first `[` or `{` more than MAX_BODY_NESTING levels below the top, found with
 * jsonc-parser's scanner, which (unlike its parser) does not recurse.
 */
function tooDeepAt(body: string): number | undefined {
  const scanner = createScanner(body, true);
  let depth = 0;
  for (scanner.scan(); scanner.getTokenOffset() < body.length; scanner.scan()) {
    const c = body[scanner.getTokenOffset()];
    if (c === '{' || c === '[') {
      if (++depth > MAX_BODY_NESTING + 1) return scanner.getTokenOffset();
    } else if (c === '}' || c === ']') depth--;
  }
  return undefined;
}

/**
 * The offset of every member (its name) and item by JSON pointer, walking jsonc-parser's tree with
 * a stack of its own. A later member of the same name replaces an earlier one, as in JSON.parse.
 */
function offsetsOf(root: Node | undefined): Map<string, number> {
  const offsets = new Map<string, number>();
  const stack: [Node, string, number][] = root === undefined ? [] : [[root, '', root.offset]];
  while (stack.length > 0) {
    const [node, pointer, offset] = stack.pop()!;
    offsets.set(pointer, offset);
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      if (node.type === 'array') stack.push([child, `${pointer}/${i}`, child.offset]);
      else if (child.type === 'property' && child.children?.[1] !== undefined) {
        stack.push([child.children[1], `${pointer}/${escapePointer(String(child.children[0]?.value))}`, child.offset]);
      }
    }
  }
  return offsets;
}

function positionAt(text: string, offset: number): TextPosition {
  return positionIn(lineStarts(text), offset);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Offset → line and column, by binary search over the line starts. */
function positionIn(starts: readonly number[], offset: number): TextPosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}
