// packet_sha256, hash_chain_root and an event's hash: what each covers and leaves out.
import t from 'tap';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { eventHash } from '../../src/domain/event-hash.ts';
import { leafHash, rootFromLeafHashes } from '../../src/domain/merkle.ts';
import { hashBytes, hashChainRoot, packetSha256 } from '../../src/domain/packet-hash.ts';
import { baseLog, proofScenario } from '../fixtures/proof-packet.ts';

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

t.test('packet_sha256 leaves out integrity and the top-level receipt_id, nothing else', async (t) => {
  const { packet } = proofScenario('signed_and_receipted');
  const { integrity: _i, receipt_id: _r, ...rest } = packet;
  t.equal(packetSha256(packet), sha(canonicalJson(rest)));
  t.equal(packetSha256(packet), packet.integrity.packet_sha256);
  t.equal(packetSha256({ ...packet, integrity: { other: true }, receipt_id: 'evt_other' }), packetSha256(packet));
  t.not(packetSha256({ ...packet, packet_status: 'draft' }), packetSha256(packet));
  t.not(packetSha256({ ...packet, extra: null }), packetSha256(packet));
  const reordered = Object.fromEntries(Object.entries(packet).reverse());
  t.equal(packetSha256(reordered), packetSha256(packet), 'member order does not matter');
  t.throws(() => packetSha256({ ...packet, assembled_at: new Date(0) }), { code: 'not_plain_json' });
});

t.test('hash_chain_root: RFC 9162 root over the raw 32-byte event hashes', async (t) => {
  const hashes = baseLog().map((e) => e.event_hash);
  const expected = rootFromLeafHashes(hashes.map((h) => leafHash(Buffer.from(h.slice(7), 'hex')))).toString('hex');
  t.equal(hashChainRoot(hashes), `sha256:${expected}`);
  t.equal(hashChainRoot([]), sha(''), 'the empty tree');
  t.not(hashChainRoot(hashes.slice().reverse()), hashChainRoot(hashes), 'order matters');
  const one = hashes[0]!;
  t.equal(hashChainRoot([one]), `sha256:${createHash('sha256').update(Buffer.from([0])).update(hashBytes(one)).digest('hex')}`);
  for (const bad of ['sha256:ABC', `sha256:${'A'.repeat(64)}`, `sha512:${'a'.repeat(64)}`, 'a'.repeat(64), '']) {
    t.throws(() => hashChainRoot([bad]), { code: 'invalid_hash' }, JSON.stringify(bad));
  }
});

t.test('an event hash covers everything but event_hash', async (t) => {
  const [event] = baseLog();
  const { event_hash: _h, ...rest } = event!;
  t.equal(eventHash(event!), sha(canonicalJson(rest)));
  t.equal(eventHash(event!), event!.event_hash);
  t.equal(eventHash(rest), event!.event_hash, 'absent event_hash is the same');
  t.not(eventHash({ ...event!, prev_hash: `sha256:${'1'.repeat(64)}` }), event!.event_hash, 'prev_hash is covered');
  t.not(eventHash({ ...event!, payload: { progress: 'changed' } }), event!.event_hash);
});
