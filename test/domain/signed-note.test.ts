// C2SP signed notes and tlog checkpoints: the Go sumdb/note reference note byte for byte, round
// trips, and each tampered part of a note or checkpoint refused with its own code.
import t from 'tap';
import { readFileSync } from 'node:fs';
import {
  formatCheckpoint, noteKeyHash, parseCheckpoint, signNote, verifyNote,
} from '../../src/domain/signed-note.ts';
import { ed25519FromRaw, ed25519FromSeed, LOG_ORIGIN, logKey, otherKey } from '../fixtures/proof-keys.ts';

const go = JSON.parse(readFileSync(new URL('../fixtures/vectors/signed-note/go-sumdb-note.json', import.meta.url), 'utf8'));
const goSigner = ed25519FromSeed(Buffer.from(go.signer_key.split('+').slice(4).join('+'), 'base64').subarray(1));
const goVerifier = ed25519FromRaw(Buffer.from(go.verifier_key.split('+').slice(2).join('+'), 'base64').subarray(1));
const goKey = { name: go.name as string, privateKey: goSigner.privateKey, publicKey: goVerifier };

t.test('the Go sumdb/note reference note', async (t) => {
  t.ok(goSigner.publicKey.equals(goVerifier), 'the signer and verifier keys are one pair');
  t.equal(noteKeyHash(go.name, goVerifier).toString('hex'), go.key_hash_hex, 'key hash = SHA-256(name || 0x0A || 0x01 || key)[:4]');
  t.equal(signNote(go.text, goKey), go.note, 'signing reproduces the note byte for byte');
  t.same(verifyNote(go.note, goKey), { ok: true, body: go.text });
  t.ok(Buffer.from(go.note, 'utf8').includes(Buffer.from('0a0ae2809420', 'hex')), 'blank line then em dash and space');
});

const ROOT = Buffer.alloc(32, 0xab);
const body = formatCheckpoint({ origin: LOG_ORIGIN, size: 12, rootHash: ROOT });
const logNoteKey = { name: LOG_ORIGIN, privateKey: logKey.privateKey, publicKey: logKey.publicKey };
const note = signNote(body, logNoteKey);

t.test('checkpoint round trip', async (t) => {
  t.equal(body, `${LOG_ORIGIN}\n12\n${ROOT.toString('base64')}\n`);
  t.same(parseCheckpoint(body), { origin: LOG_ORIGIN, size: 12, rootHash: ROOT });
  t.same(verifyNote(note, logNoteKey), { ok: true, body });
  const prefix = `${body}\n\u2014 ${LOG_ORIGIN} `;
  t.equal(note.slice(0, prefix.length), prefix, 'body, blank line, em dash, space, name, space');
  t.equal(Buffer.from(note.slice(prefix.length, -1), 'base64').length, 68, '4-byte key hash and 64-byte signature');
  t.same(parseCheckpoint(`${body}extension line\n`), { origin: LOG_ORIGIN, size: 12, rootHash: ROOT }, 'extension lines are allowed');
  const cosigned = `${note}\u2014 witness.example ${Buffer.alloc(68, 1).toString('base64')}\n`;
  t.same(verifyNote(cosigned, logNoteKey), { ok: true, body }, 'a signature by another key is ignored');
});

t.test('tampered notes fail with their code', async (t) => {
  const sigLine = note.slice(note.lastIndexOf('\u2014'));
  const blob = Buffer.from(sigLine.trim().split(' ')[2]!, 'base64');
  const flipped = Buffer.from(blob);
  flipped[10] = flipped[10]! ^ 1;
  const cases: [string, string, { name: string; publicKey: typeof logKey.publicKey }, string][] = [
    ['size changed', note.replace('\n12\n', '\n13\n'), logNoteKey, 'bad_signature'],
    ['origin changed', note.replace(LOG_ORIGIN, 'gov.local/other-log'), logNoteKey, 'bad_signature'],
    ['signature byte flipped', note.replace(blob.toString('base64'), flipped.toString('base64')), logNoteKey, 'bad_signature'],
    ['another key', note, { name: LOG_ORIGIN, publicKey: otherKey.publicKey }, 'unknown_key'],
    ['another name', note, { name: 'gov.local/other', publicKey: logKey.publicKey }, 'unknown_key'],
    ['no blank line', note.replace('\n\n', '\n'), logNoteKey, 'malformed_note'],
    ['hyphen instead of em dash', note.replace('\u2014', '-'), logNoteKey, 'malformed_note'],
    ['no final newline', note.slice(0, -1), logNoteKey, 'malformed_note'],
    ['a control character', note.replace('12', '1\t2'), logNoteKey, 'malformed_note'],
  ];
  for (const [name, text, key, code] of cases) {
    const result = verifyNote(text, key);
    t.equal(result.ok, false, `${name}: refused`);
    t.equal(result.ok ? undefined : result.code, code, `${name}: ${code}`);
  }
});

t.test('malformed checkpoints and inputs are invalid_checkpoint', async (t) => {
  const root = ROOT.toString('base64');
  const bodies = [
    `${LOG_ORIGIN}\n12\n${root}`, `${LOG_ORIGIN}\n012\n${root}\n`, `${LOG_ORIGIN}\n-1\n${root}\n`,
    `${LOG_ORIGIN}\n12\n${Buffer.alloc(31).toString('base64')}\n`, `${LOG_ORIGIN}\n12\n`, `\n12\n${root}\n`,
    `${LOG_ORIGIN}\n12\n${root}\n\nblank before\n`, `${LOG_ORIGIN}\n1e3\n${root}\n`,
  ];
  for (const [i, text] of bodies.entries()) t.throws(() => parseCheckpoint(text), { code: 'invalid_checkpoint' }, `body ${i}`);
  t.throws(() => formatCheckpoint({ origin: 'a\nb', size: 1, rootHash: ROOT }), { code: 'invalid_checkpoint' });
  t.throws(() => formatCheckpoint({ origin: 'a', size: 1.5, rootHash: ROOT }), { code: 'invalid_checkpoint' });
  t.throws(() => formatCheckpoint({ origin: 'a', size: 1, rootHash: ROOT.subarray(1) }), { code: 'invalid_checkpoint' });
  t.throws(() => signNote('no newline', logNoteKey), { code: 'invalid_checkpoint' });
  t.throws(() => signNote(body, { ...logNoteKey, name: 'has space' }), { code: 'invalid_checkpoint' });
  t.throws(() => signNote(body, { ...logNoteKey, name: 'has+plus' }), { code: 'invalid_checkpoint' });
});
