// RFC 9162 Merkle functions against every transparency-dev vector (positive and negative), the
// published roots for sizes 0–8 and a generated-proof property check.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  consistencyProof, inclusionProof, leafHash, rootFromLeafHashes, SubtreeCache, verifyConsistency, verifyInclusion,
} from '../../src/domain/merkle.ts';

const VECTORS = fileURLToPath(new URL('../fixtures/vectors/rfc9162/', import.meta.url));
const b64 = (s: string) => Buffer.from(s, 'base64');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith('.json') ? [path] : [];
  });
}

// The eight leaf inputs behind the vectors and the RFC 6962 / transparency-dev roots of their prefixes.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']
  .map((hex) => Buffer.from(hex, 'hex'));
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const leafHashes = LEAVES.map((d) => leafHash(d));

t.test('roots of the reference tree for sizes 0..8', async (t) => {
  for (let n = 0; n <= 8; n++) {
    t.equal(rootFromLeafHashes(leafHashes.slice(0, n)).toString('hex'), ROOTS[n], `size ${n}`);
  }
  t.equal(ROOTS[0], createHash('sha256').digest('hex'), 'the empty tree is SHA-256 of the empty string');
});

t.test('inclusion vectors', async (t) => {
  const files = jsonFiles(join(VECTORS, 'inclusion'));
  t.ok(files.length >= 90, `found ${files.length} inclusion vectors`);
  for (const file of files) {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    const ok = verifyInclusion(b64(v.leafHash), v.leafIdx, v.treeSize, (v.proof ?? []).map(b64), b64(v.root));
    t.equal(ok, !v.wantErr, `${relative(VECTORS, file)}: ${v.desc}`);
    if (!v.wantErr) {
      // A happy path of the reference tree: the proof we generate is the same path.
      t.same(inclusionProof(leafHashes.slice(0, v.treeSize), v.leafIdx).map((h) => h.toString('base64')), v.proof ?? []);
    }
  }
});

t.test('consistency vectors', async (t) => {
  const files = jsonFiles(join(VECTORS, 'consistency'));
  t.ok(files.length >= 90, `found ${files.length} consistency vectors`);
  for (const file of files) {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    const ok = verifyConsistency(v.size1, v.size2, b64(v.root1), b64(v.root2), (v.proof ?? []).map(b64));
    t.equal(ok, !v.wantErr, `${relative(VECTORS, file)}: ${v.desc}`);
    const reference = v.size2 <= 8 && v.root2 === Buffer.from(ROOTS[v.size2]!, 'hex').toString('base64');
    if (!v.wantErr && reference && v.size1 > 0) {
      t.same(consistencyProof(leafHashes.slice(0, v.size2), v.size1).map((h) => h.toString('base64')), v.proof ?? []);
    }
  }
});

function flipped(h: Uint8Array, byte: number): Buffer {
  const copy = Buffer.from(h);
  copy[byte] = copy[byte]! ^ 0x01;
  return copy;
}

t.test('generated proofs verify and a flipped byte fails (sizes 1..40)', async (t) => {
  const all = Array.from({ length: 40 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
  let checked = 0;
  for (let n = 1; n <= 40; n++) {
    const leaves = all.slice(0, n);
    const root = rootFromLeafHashes(leaves);
    for (let i = 0; i < n; i++) {
      const proof = inclusionProof(leaves, i);
      const good = verifyInclusion(leaves[i]!, i, n, proof, root);
      const badRoot = verifyInclusion(leaves[i]!, i, n, proof, flipped(root, i % 32));
      const badLeaf = verifyInclusion(flipped(leaves[i]!, 0), i, n, proof, root);
      const badPath = proof.some((_, p) => verifyInclusion(leaves[i]!, i, n, proof.map((h, q) => (q === p ? flipped(h, 31) : h)), root));
      if (!good || badRoot || badLeaf || badPath) t.fail(`inclusion size ${n} index ${i}`);
      const oldRoot = rootFromLeafHashes(leaves.slice(0, i + 1));
      const cproof = consistencyProof(leaves, i + 1);
      const cgood = verifyConsistency(i + 1, n, oldRoot, root, cproof);
      const cbad = cproof.some((_, p) => verifyConsistency(i + 1, n, oldRoot, root, cproof.map((h, q) => (q === p ? flipped(h, 7) : h))))
        || verifyConsistency(i + 1, n, flipped(oldRoot, 3), root, cproof);
      if (!cgood || cbad) t.fail(`consistency ${i + 1} → ${n}`);
      checked++;
    }
  }
  t.equal(checked, (40 * 41) / 2, 'every index of every size was checked');
});

t.test('generating a proof outside the tree is a RangeError', async (t) => {
  t.throws(() => inclusionProof(leafHashes, 8), RangeError);
  t.throws(() => inclusionProof(leafHashes, -1), RangeError);
  t.throws(() => consistencyProof(leafHashes, 0), RangeError);
  t.throws(() => consistencyProof(leafHashes, 9), RangeError);
  t.same(consistencyProof(leafHashes, 8), []);
});


t.test('SubtreeCache gives the roots and audit paths of the whole-tree functions, reading few leaves', async (t) => {
  const all = Array.from({ length: 300 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
  for (const minLevel of [0, 2, 3, 8]) {
    let read = 0;
    const cache = new SubtreeCache((from, to) => {
      read += to - from;
      return all.slice(from, to);
    }, minLevel);
    let mismatches = 0;
    // Growing sizes, as a log grows: every root and every audit path equals the reference one.
    for (let n = 1; n <= all.length; n += n < 40 ? 1 : 37) {
      const leaves = all.slice(0, n);
      if (!cache.rootOf(n).equals(rootFromLeafHashes(leaves))) mismatches++;
      for (let i = 0; i < n; i += n < 40 ? 1 : 13) {
        const expected = inclusionProof(leaves, i);
        const got = cache.inclusionProof(i, n);
        if (got.length !== expected.length || got.some((h, p) => !h.equals(expected[p]!))) mismatches++;
      }
    }
    t.equal(mismatches, 0, `minLevel ${minLevel}: the same roots and paths`);
    if (minLevel === 3) {
      // Kept subtrees are never hashed again: once warm, a tree head reads at most 7 leaves per level.
      read = 0;
      cache.rootOf(300);
      cache.inclusionProof(5, 300);
      t.ok(read <= 2 * 7 * 9, `a warm cache reads few leaves (${read} for a root and a path of 300)`);
    }
  }
  t.same(new SubtreeCache(() => [], 0).rootOf(0), rootFromLeafHashes([]), 'the empty tree');
  t.throws(() => new SubtreeCache(() => all, 0).inclusionProof(3, 3), RangeError);
});
