// How deeply caller JSON nests, measured without recursion. Request bodies are refused past a fixed
// nesting (`json_too_deep`) before any recursive code sees them (schema validation, RFC 8785
// serialisation, JSON.stringify), so the answer never depends on the stack left or on JIT warm-up.
import { AppError } from '../errors.ts';
import { pointerFrom } from './json-pointer.ts';

/**
 * The deepest array or object a request body may hold, counted in steps of its JSON pointer: in
 * `{"payload": {...}}` the payload object is one step deep, so a payload may nest 64 levels.
 */
export const MAX_BODY_NESTING = 64;

type Node = { value: object; parent: Node | null; key: string; depth: number };

/**
 * The JSON pointer of the first array or object (depth-first, in member order) that sits more than
 * `limit` steps below the top of `value`, or null when none does. The walk goes no deeper than
 * `limit + 1`, so it ends on a cycle too, and it keeps its own stack instead of the call stack.
 */
export function findTooDeep(value: unknown, limit: number): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Node[] = [{ value, parent: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > limit) return pointerOf(node);
    const keys = Object.keys(node.value);
    // Pushed in reverse so that the first member is visited first.
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = (node.value as Record<string, unknown>)[keys[i]!];
      if (child !== null && typeof child === 'object') stack.push({ value: child, parent: node, key: keys[i]!, depth: node.depth + 1 });
    }
  }
  return null;
}

/** Throws AppError `json_too_deep` when `value` nests deeper than `limit` (see findTooDeep). */
export function assertNesting(value: unknown, limit: number, what: string): void {
  const pointer = findTooDeep(value, limit);
  if (pointer !== null) throw tooDeep(what, limit, pointer);
}

export function tooDeep(what: string, limit: number, pointer: string): AppError {
  const reason = `nested deeper than ${limit} levels`;
  return new AppError('json_too_deep', `The ${what} is ${reason} (each array or object inside another counts one); send a flatter document.`, {
    details: [{ pointer, detail: reason }],
  });
}

/** A value reached by a walk: its parent and member name (or index) give its JSON pointer. */
export type PathNode = { parent: PathNode | null; key: string };

/** The RFC 6901 pointer of a node, built only when a refusal needs it (the root's is ''). */
export function pointerOf(node: PathNode): string {
  const keys: string[] = [];
  for (let n: PathNode | null = node; n !== null && n.parent !== null; n = n.parent) keys.push(n.key);
  return pointerFrom(keys.reverse());
}
