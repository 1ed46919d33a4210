// Whether a packet file is current (docs/contract.md §9): the rule gov packet verify and the console
// apply after the integrity checks, and the roles that may write (an auditor alone may not).
import t from 'tap';
import { rolesMayWrite } from '../../src/domain/governance/team.ts';
import { notCurrent } from '../../src/domain/proof-packet.ts';

t.test('a file is current only as the latest issue of its packet_id, and never revoked', async (t) => {
  const file = { packet_status: 'final', packet_sha256: 'sha256:aa' };
  t.equal(notCurrent(file, undefined), null, 'offline: only its own status counts');
  t.equal(notCurrent({ ...file, packet_status: 'revoked' }, undefined), 'revoked');
  t.equal(notCurrent({ ...file, packet_status: 'revoked' }, { packet_status: 'revoked', packet_sha256: 'sha256:aa' }), 'revoked', 'its own status first');
  t.equal(notCurrent(file, null), 'not_issued', 'the service has no issue of the packet_id');
  t.equal(notCurrent(file, { packet_status: 'revoked', packet_sha256: 'sha256:bb' }), 'revoked_since');
  t.equal(notCurrent(file, { packet_status: 'exported', packet_sha256: 'sha256:bb' }), 'not_latest', 'an earlier issue, or a body never issued');
  t.equal(notCurrent(file, { packet_status: 'final', packet_sha256: 'sha256:aa' }), null, 'the latest issue itself');
});

t.test('an auditor alone writes nothing; any other team role beside it, or none said, does', async (t) => {
  t.equal(rolesMayWrite(['auditor']), false);
  t.equal(rolesMayWrite(['auditor', 'contributor']), true);
  t.equal(rolesMayWrite(['agent']), true);
  t.equal(rolesMayWrite([]), true, 'no roles: the team does not say (the preview, a token without the claim)');
});
