// RFC 9162 §2.1 Merkle tree hashing: leaf and node hashes, the tree head, inclusion and consistency
// proofs and their verifiers. One implementation serves the packet's hash_chain_root, the receipt's
// audit path and `gov events verify`; it passes the transparency-dev test vectors.
import { createHash, hash } from 'node:crypto';

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH({d0}) = SHA-256(0x00 || d0): the prefix keeps a leaf from being passed off as a node. */
export function leafHash(data: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The one-shot `crypto.hash` over a reused 0x01||l||r buffer: the per-call cost dominates here. */
function nodeHashInto(scratch: Buffer, left: Uint8Array, right: Uint8Array): Buffer {
  scratch.set(left, 1);
  scratch.set(right, 33);
  return hash('sha256', scratch, 'buffer');
}

/**
 * The tree head over leaf hashes (MTH of §2.1.1). Built bottom-up level by level: pairing adjacent
 * nodes and carrying an odd last node up unchanged gives the same tree as splitting at the largest
 * power of two below n, with n-1 hashes and no recursion. Empty tree: SHA-256 of the empty string.
 */
export function rootFromLeafHashes(hashes: readonly Uint8Array[]): Buffer {
  if (hashes.length === 0) return createHash('sha256').digest();
  if (!hashes.every(isHash)) throw new RangeError('every leaf hash must be 32 bytes');
  const level: Uint8Array[] = hashes.slice();
  const scratch = Buffer.alloc(65);
  scratch[0] = 0x01;
  // Each level is reduced in place: node i of the next level overwrites slot i.
  for (let n = level.length; n > 1; n = Math.ceil(n / 2)) {
    let w = 0;
    for (let i = 0; i + 1 < n; i += 2) level[w++] = nodeHashInto(scratch, level[i]!, level[i + 1]!);
    if (n % 2 === 1) level[w] = level[n - 1]!;
  }
  return Buffer.from(level[0]!);
}

/** Largest power of two strictly smaller than n (n ≥ 2): the split point k of §2.1.1. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** PATH(m, D[n]) of §2.1.3.1: the audit path of leaf `index`, leaf to root. */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Buffer[] {
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${leafHashes.length}`);
  }
  return path(leafHashes, index, 0, leafHashes.length);
}

function path(leaves: readonly Uint8Array[], m: number, from: number, to: number): Buffer[] {
  const n = to - from;
  if (n === 1) return [];
  const k = splitPoint(n);
  if (m < k) return [...path(leaves, m, from, from + k), rootFromLeafHashes(leaves.slice(from + k, to))];
  return [...path(leaves, m - k, from + k, to), rootFromLeafHashes(leaves.slice(from, from + k))];
}

/** §2.1.3.2: recompute the root from a leaf hash and its audit path; any mismatch is false. */
export function verifyInclusion(
  leaf: Uint8Array, index: number, treeSize: number, proof: readonly Uint8Array[], root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false;
  if (!isHash(leaf) || !isHash(root) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/**
 * PROOF(m, D[n]) of §2.1.4.1: proves the tree of the first `oldSize` leaves is a prefix. Defined
 * for 0 < oldSize ≤ n (equal sizes: the empty proof).
 */
export function consistencyProof(leafHashes: readonly Uint8Array[], oldSize: number): Buffer[] {
  const n = leafHashes.length;
  if (!Number.isInteger(oldSize) || oldSize <= 0 || oldSize > n) {
    throw new RangeError(`old size ${oldSize} is outside 1..${n}`);
  }
  if (oldSize === n) return [];
  return subproof(leafHashes, oldSize, 0, n, true);
}

function subproof(leaves: readonly Uint8Array[], m: number, from: number, to: number, complete: boolean): Buffer[] {
  const n = to - from;
  if (m === n) return complete ? [] : [rootFromLeafHashes(leaves.slice(from, to))];
  const k = splitPoint(n);
  if (m <= k) return [...subproof(leaves, m, from, from + k, complete), rootFromLeafHashes(leaves.slice(from + k, to))];
  return [...subproof(leaves, m - k, from + k, to, false), rootFromLeafHashes(leaves.slice(from, from + k))];
}

/**
 * §2.1.4.2: check that `newRoot` extends `oldRoot`. A proof only exists for 0 < oldSize < newSize;
 * equal sizes need an empty proof and equal roots; an old size of 0 proves nothing and is refused
 * (as the transparency-dev vectors require).
 */
export function verifyConsistency(
  oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize <= 0 || oldSize > newSize) return false;
  if (oldSize === newSize) return proof.length === 0 && equal(oldRoot, newRoot);
  if (!isHash(oldRoot) || !isHash(newRoot) || proof.length === 0 || !proof.every(isHash)) return false;
  // Step 1: when the old size is a power of two, the old root itself is the first node of the path.
  const path: Uint8Array[] = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, oldRoot) && equal(sr, newRoot);
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

function isHash(h: Uint8Array): boolean {
  return h instanceof Uint8Array && h.length === 32;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** The lowest level whose subtree hashes a SubtreeCache keeps: below it, subtrees are hashed from their leaves. */
export const CACHED_SUBTREE_LEVEL = 8;

/**
 * Tree heads and audit paths of a log that only grows, without hashing the whole log each time.
 * In RFC 9162's tree every left subtree is perfect (2^level leaves, aligned), and a perfect subtree
 * never changes as leaves are added: its hash is kept from level `minLevel` up (a log of a million
 * events keeps ~8,000 hashes), so a tree head or an audit path costs O(log n) kept hashes and at
 * most a few hundred leaves read through `leaves(from, to)` (leaf hashes of [from, to)).
 */
export class SubtreeCache {
  private readonly kept = new Map<string, Buffer>();

  constructor(
    private readonly leaves: (from: number, to: number) => readonly Uint8Array[],
    private readonly minLevel = CACHED_SUBTREE_LEVEL,
  ) {}

  /** MTH of the tree of `size` leaves (the first `size` of the log). */
  rootOf(size: number): Buffer {
    return size === 0 ? createHash('sha256').digest() : this.range(0, size);
  }

  /** PATH(index, D[size]): the audit path of leaf `index` in the tree of `size` leaves, leaf to root. */
  inclusionProof(index: number, size: number): Buffer[] {
    if (!Number.isInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf index ${index} is outside a tree of size ${size}`);
    const out: Buffer[] = [];
    let from = 0;
    let to = size;
    let m = index;
    // Top-down, each step's sibling is the other half; the path lists them leaf to root.
    while (to - from > 1) {
      const k = splitPoint(to - from);
      if (m < k) {
        out.push(this.range(from + k, to));
        to = from + k;
      } else {
        out.push(this.range(from, from + k));
        from += k;
        m -= k;
      }
    }
    return out.reverse();
  }

  /** MTH of leaves [from, to), `from` aligned as the tree's splits make it (a multiple of the left part). */
  private range(from: number, to: number): Buffer {
    const n = to - from;
    if (isPowerOfTwo(n) && from % n === 0) return this.perfect(Math.log2(n), from / n);
    const k = splitPoint(n);
    return nodeHash(this.range(from, from + k), this.range(from + k, to));
  }

  private perfect(level: number, index: number): Buffer {
    if (level < this.minLevel) return rootFromLeafHashes(this.leaves(index * 2 ** level, (index + 1) * 2 ** level));
    const key = `${level}:${index}`;
    let node = this.kept.get(key);
    if (node === undefined) {
      node = level === this.minLevel
        ? rootFromLeafHashes(this.leaves(index * 2 ** level, (index + 1) * 2 ** level))
        : nodeHash(this.perfect(level - 1, 2 * index), this.perfect(level - 1, 2 * index + 1));
      this.kept.set(key, node);
    }
    return node;
  }
}
