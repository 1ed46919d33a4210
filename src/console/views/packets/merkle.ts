// The RFC 9162 audit path of one leaf, computed in the page: which subtree each proof hash covers
// (§2.1.3.1 splits at the largest power of two below the size, so the tree is not balanced), and the
// node hashes recomputed with WebCrypto. src/domain/merkle.ts is the server's copy of this math; it
// needs node:crypto, so the page keeps its own.

/** A subtree: leaves [from, to). */
export type Span = { from: number; to: number };

/** One level of the path, leaf to root: the node on the path, its sibling (the proof hash) and its side. */
export type PathStep = { node: Span; parent: Span; sibling: Span; side: 'left' | 'right' };

function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The steps of PATH(index, D[size]), leaf first: step i is the subtree proof[i] hashes. */
export function auditPath(index: number, size: number): PathStep[] {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return [];
  const down: PathStep[] = [];
  let from = 0;
  let to = size;
  while (to - from > 1) {
    const k = splitPoint(to - from);
    const parent = { from, to };
    if (index < from + k) {
      down.push({ parent, node: { from, to: from + k }, sibling: { from: from + k, to }, side: 'right' });
      to = from + k;
    } else {
      down.push({ parent, node: { from: from + k, to }, sibling: { from, to: from + k }, side: 'left' });
      from += k;
    }
  }
  return down.reverse();
}

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function base64ToHex(text: string): string | null {
  try {
    return bytesToHex(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', all));
}

/**
 * The hashes on the path, leaf first then one per step (the last is the root): the leaf is
 * SHA-256(0x00 || event_hash bytes), a node SHA-256(0x01 || left || right).
 */
export async function pathHashes(eventHash: string, steps: readonly PathStep[], proof: readonly string[]): Promise<string[]> {
  let current = await sha256(new Uint8Array([0]), hexToBytes(eventHash.replace(/^sha256:/, '')));
  const out = [bytesToHex(current)];
  for (const [i, step] of steps.entries()) {
    const sibling = hexToBytes(proof[i] ?? '');
    current = step.side === 'left' ? await sha256(new Uint8Array([1]), sibling, current) : await sha256(new Uint8Array([1]), current, sibling);
    out.push(bytesToHex(current));
  }
  return out;
}

/** The C2SP checkpoint inside the signed note: origin, tree size, root hash (hex), and the signature lines. */
export type ParsedCheckpoint = { origin: string; size: number; rootHex: string | null; signatures: string[] };

export function parseCheckpoint(note: string): ParsedCheckpoint | null {
  const [body = '', sigs = ''] = note.split('\n\n');
  const [origin, size, root] = body.split('\n');
  if (!origin || size === undefined || !/^(0|[1-9][0-9]*)$/.test(size) || root === undefined) return null;
  return { origin, size: Number(size), rootHex: base64ToHex(root), signatures: sigs.split('\n').filter((l) => l !== '') };
}
