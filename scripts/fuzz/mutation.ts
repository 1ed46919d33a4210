// One mutation of a valid-shaped body (the sigstore habit: start from a valid value, break one
// thing): a member of the wrong type, a member dropped, an unknown member, a huge string, deep
// nesting, odd unicode — or the body as a whole: malformed JSON, another content type, no body.
// Deep values are serialized as text: JSON.stringify would overflow the fuzzer's own stack.
import fc from 'fast-check';

export type Mutation =
  | { kind: 'none' }
  | { kind: 'wrong_type'; at: number; replacement: unknown }
  | { kind: 'drop_member'; at: number }
  | { kind: 'extra_member'; at: number; name: string; value: unknown }
  | { kind: 'huge_string'; at: number; length: number }
  | { kind: 'deep_nesting'; at: number; depth: number; shape: 'array' | 'object' }
  | { kind: 'odd_unicode'; at: number; text: string }
  | { kind: 'malformed_json'; cut: number }
  | { kind: 'wrong_content_type'; contentType: string }
  | { kind: 'empty_body' };

export type MutatedBody = { text: string | undefined; contentType: string | undefined; note: string };

/** Texts that break naive handling: NUL, lone surrogates, bidi overrides, joiners, non-characters, NEL, line separators. */
export const ODD_TEXTS = [
  '\u0000', '\ud800', '\udfff', 'a\ud83dz', '\u202e\u0644\u202c', '\u200b\u200d', '\ufeff', '\uffff', '\ufffe', 'e\u0301\u0301\u0301',
  '\u{1F469}\u200d\u{1F469}\u200d\u{1F467}', '\u{10FFFF}', '\u0085\u2028\u2029', 'I\u0307\u0130\u0131', '\ufb01', '<script>alert(1)</script>',
  "'; DROP TABLE events; --", '../../etc/passwd', '%00%ZZ', '\\u0000', '\r\n\t\v\f', 'NaN', '${jndi:x}',
];

const WRONG_TYPES: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'text', [], {}, [null], { '': null }];

/** Every mutation but 'none': the request's one broken thing is in its body. */
export const bodyMutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wrong_type' as const), at: fc.nat(), replacement: fc.constantFrom(...WRONG_TYPES) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop_member' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('extra_member' as const), at: fc.nat(), name: fc.constantFrom('extra', '__proto__', 'constructor', '', 'payload', '\u0000'), value: fc.constantFrom<unknown>(1, 'x', null, {}, []) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge_string' as const), at: fc.nat(), length: fc.constantFrom(4_096, 65_536, 900_000, 1_100_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep_nesting' as const), at: fc.nat(), depth: fc.constantFrom(64, 65, 200, 5_000, 100_000), shape: fc.constantFrom('array' as const, 'object' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('odd_unicode' as const), at: fc.nat(), text: fc.constantFrom(...ODD_TEXTS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('malformed_json' as const), cut: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrong_content_type' as const), contentType: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json-patch+json', 'application/jsonx', '') }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty_body' } as const) },
);

type Path = (string | number)[];
type Location = { path: Path; value: unknown; inObject: boolean };

/** Every node of a JSON value in pre-order, iteratively (the values are small, but stay safe). */
function locations(root: unknown): Location[] {
  const out: Location[] = [];
  const stack: Location[] = [{ path: [], value: root, inObject: false }];
  while (stack.length > 0) {
    const loc = stack.pop()!;
    out.push(loc);
    const v = loc.value;
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push({ path: [...loc.path, i], value: v[i], inObject: false });
    else if (v !== null && typeof v === 'object') for (const k of Object.keys(v).reverse()) stack.push({ path: [...loc.path, k], value: (v as Record<string, unknown>)[k], inObject: true });
  }
  return out;
}

export function pointerOf(path: Path): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('') || '(root)';
}

/** A deep value, written out as text when the body is serialized. */
class Deep {
  constructor(readonly depth: number, readonly shape: 'array' | 'object') {}
  text(): string {
    return this.shape === 'array' ? `${'['.repeat(this.depth)}${']'.repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}{}${'}'.repeat(this.depth)}`;
  }
}

function replaceAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function serialize(value: unknown): string {
  const deep: Deep[] = [];
  const text = JSON.stringify(value, (_k, v) => (v instanceof Deep ? `\u0000deep:${deep.push(v) - 1}` : v)) ?? 'null';
  return deep.reduce((t, d, i) => t.replace(JSON.stringify(`\u0000deep:${i}`), d.text()), text);
}

export function applyMutation(base: unknown, m: Mutation): MutatedBody {
  const json = 'application/json';
  const all = locations(base);
  const pick = (candidates: Location[], at: number) => candidates[at % candidates.length]!;
  const strings = all.filter((l) => typeof l.value === 'string');
  switch (m.kind) {
    case 'none':
      return { text: serialize(base), contentType: json, note: 'valid-shaped, unmutated' };
    case 'wrong_type': {
      const loc = pick(all, m.at);
      const i = WRONG_TYPES.indexOf(m.replacement);
      let replacement = m.replacement;
      for (let k = 1; jsonType(replacement) === jsonType(loc.value) && k < WRONG_TYPES.length; k++) replacement = WRONG_TYPES[(i + k) % WRONG_TYPES.length];
      return { text: serialize(replaceAt(base, loc.path, replacement)), contentType: json, note: `wrong type at ${pointerOf(loc.path)}: ${JSON.stringify(replacement)}` };
    }
    case 'drop_member': {
      const members = all.filter((l) => l.inObject);
      if (members.length === 0) return applyMutation(base, { kind: 'wrong_type', at: m.at, replacement: null });
      const loc = pick(members, m.at);
      const copy = structuredClone(base) as Record<string, unknown>;
      let parent = copy as Record<string | number, unknown>;
      for (const key of loc.path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
      delete parent[loc.path[loc.path.length - 1]!];
      return { text: serialize(copy), contentType: json, note: `member dropped: ${pointerOf(loc.path)}` };
    }
    case 'extra_member': {
      const objects = all.filter((l) => jsonType(l.value) === 'object');
      if (objects.length === 0) return applyMutation(base, { kind: 'wrong_type', at: m.at, replacement: { [m.name]: m.value } });
      const loc = pick(objects, m.at);
      // Written as text so that a member named __proto__ is sent as an own member.
      const inner = serialize(loc.value);
      const extra = `${JSON.stringify(m.name)}:${JSON.stringify(m.value)}`;
      const marker = `\u0001extra\u0001`;
      const text = serialize(replaceAt(base, loc.path, marker)).replace(JSON.stringify(marker), inner === '{}' ? `{${extra}}` : `{${extra},${inner.slice(1)}`);
      return { text, contentType: json, note: `unknown member ${JSON.stringify(m.name)} at ${pointerOf(loc.path)}` };
    }
    case 'huge_string': {
      const loc = pick(strings.length > 0 ? strings : all, m.at);
      return { text: serialize(replaceAt(base, loc.path, 'x'.repeat(m.length))), contentType: json, note: `a ${m.length}-character string at ${pointerOf(loc.path)}` };
    }
    case 'deep_nesting': {
      const loc = pick(all, m.at);
      return { text: serialize(replaceAt(base, loc.path, new Deep(m.depth, m.shape))), contentType: json, note: `${m.depth}-deep ${m.shape}s at ${pointerOf(loc.path)}` };
    }
    case 'odd_unicode': {
      const loc = pick(strings.length > 0 ? strings : all, m.at);
      const old = loc.value;
      const value = typeof old === 'string' ? `${old.slice(0, old.length >> 1)}${m.text}${old.slice(old.length >> 1)}` : m.text;
      return { text: serialize(replaceAt(base, loc.path, value)), contentType: json, note: `odd unicode ${JSON.stringify(m.text)} at ${pointerOf(loc.path)}` };
    }
    case 'malformed_json': {
      const text = serialize(base);
      const cut = text.length <= 1 ? 0 : 1 + (m.cut % (text.length - 1));
      return { text: `${text.slice(0, cut)}${cut % 2 === 0 ? '' : ',}'}`, contentType: json, note: `malformed JSON (cut at ${cut} of ${text.length})` };
    }
    case 'wrong_content_type':
      return { text: serialize(base), contentType: m.contentType || undefined, note: `Content-Type ${JSON.stringify(m.contentType)}` };
    case 'empty_body':
      return { text: undefined, contentType: json, note: 'no body' };
  }
}
