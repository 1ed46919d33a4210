// C2SP tlog checkpoints ("origin\nsize\nbase64(root)\n") carried in C2SP signed notes signed with
// the log's ed25519 key: what a receipt's `checkpoint` is, and how a verifier opens it.
// API: formatCheckpoint, parseCheckpoint, noteKeyHash, signNote, verifyNote.
import { createHash, sign, verify, type KeyObject } from 'node:crypto';
import { AppError } from '../errors.ts';

export type Checkpoint = { origin: string; size: number; rootHash: Buffer };
export type NoteKey = { name: string; publicKey: KeyObject };
export type NoteVerification =
  | { ok: true; body: string }
  | { ok: false; code: 'malformed_note' | 'unknown_key' | 'bad_signature'; detail: string };

const SIG_PREFIX = '\u2014 '; // em dash U+2014 then a space: bytes E2 80 94 20
const ED25519_SIG_TYPE = 0x01;
const CONTROL = /[\u0000-\u0009\u000b-\u001f]/; // control characters other than the newline
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The checkpoint body of C2SP tlog-checkpoint; the root is standard base64 of the 32 bytes. */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash } = checkpoint;
  if (origin.length === 0 || origin.includes('\n') || CONTROL.test(origin)) throw malformed('the origin must be one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw malformed('the size must be a non-negative integer');
  if (rootHash.length !== 32) throw malformed('the root hash must be 32 bytes');
  return `${origin}\n${size}\n${Buffer.from(rootHash).toString('base64')}\n`;
}

/** Parse a checkpoint body; extension lines after the root are allowed (and ignored) by the spec. */
export function parseCheckpoint(body: string): Checkpoint {
  if (!body.endsWith('\n')) throw malformed('a checkpoint ends with a newline');
  const [origin, size, root, ...extensions] = body.slice(0, -1).split('\n');
  if (!origin || size === undefined || root === undefined) throw malformed('a checkpoint has origin, size and root lines');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) throw malformed('the size is not a decimal integer');
  if (!BASE64.test(root)) throw malformed('the root is not base64');
  const rootHash = Buffer.from(root, 'base64');
  if (rootHash.length !== 32 || rootHash.toString('base64') !== root) throw malformed('the root is not 32 bytes of base64');
  if (extensions.some((line) => line.length === 0)) throw malformed('a checkpoint has no blank lines');
  return { origin, size: Number(size), rootHash };
}

/** Key hash of the signed-note spec: SHA-256(name || 0x0A || 0x01 || 32-byte ed25519 key)[:4]. */
export function noteKeyHash(name: string, publicKey: KeyObject): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.from([ED25519_SIG_TYPE]))
    .update(rawEd25519(publicKey))
    .digest()
    .subarray(0, 4);
}

/** The signed note: body, a blank line, `— <name> base64(key hash || signature over the body)`. */
export function signNote(body: string, key: NoteKey & { privateKey: KeyObject }): string {
  checkName(key.name);
  if (!body.endsWith('\n') || CONTROL.test(body)) throw malformed('a note text ends with a newline and has no control characters');
  if (body.includes('\n\n')) throw malformed('a note text has no blank line');
  const signature = sign(null, Buffer.from(body, 'utf8'), key.privateKey);
  const blob = Buffer.concat([noteKeyHash(key.name, key.publicKey), signature]).toString('base64');
  return `${body}\n${SIG_PREFIX}${key.name} ${blob}\n`;
}

/**
 * Open a note with one trusted key. Lines from other keys are ignored (the spec lets notes carry
 * co-signatures), but the first line naming this key and key hash decides: a bad one fails.
 */
export function verifyNote(note: string, key: NoteKey): NoteVerification {
  if (typeof note !== 'string' || CONTROL.test(note) || !note.endsWith('\n')) return bad('malformed_note', 'not a note');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return bad('malformed_note', 'no blank line before the signatures');
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  const keyHash = noteKeyHash(key.name, key.publicKey);
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+={0,2})$/.exec(line);
    if (!match) return bad('malformed_note', 'a signature line is malformed');
    const blob = Buffer.from(match[2]!, 'base64');
    if (match[1] !== key.name || blob.length < 4 || !blob.subarray(0, 4).equals(keyHash)) continue;
    const signature = blob.subarray(4);
    const ok = signature.length === 64 && verify(null, Buffer.from(body, 'utf8'), key.publicKey, signature);
    return ok ? { ok: true, body } : bad('bad_signature', 'the signature does not verify over the note text');
  }
  return bad('unknown_key', `no signature by ${key.name} with this key`);
}

function rawEd25519(key: KeyObject): Buffer {
  if (key.asymmetricKeyType !== 'ed25519') throw malformed('signed notes here use ed25519 keys');
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url');
}

function checkName(name: string): void {
  // The spec: non-empty, no Unicode spaces, no plus sign (it separates fields of a verifier key).
  if (name.length === 0 || /[\s+]/u.test(name) || CONTROL.test(name)) throw malformed('the key name is not valid');
}

function bad(code: 'malformed_note' | 'unknown_key' | 'bad_signature', detail: string): NoteVerification {
  return { ok: false, code, detail };
}

function malformed(reason: string): AppError {
  return new AppError('invalid_checkpoint', `Invalid checkpoint or note: ${reason}.`, {
    details: [{ pointer: '', detail: reason }],
  });
}
