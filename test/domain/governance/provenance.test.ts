// Session provenance (docs/governance/sessions.md), the fold alone: who token_principal names and
// which non-claims the view carries, in the preview (tokens name a transport, identities are
// asserted) and in the hosted service (callers authenticated by OIDC tokens, docs/hosting.md).
import t from 'tap';
import { PROVENANCE_NON_CLAIMS, provenanceView, SESSION_BOUND } from '../../../src/domain/governance/provenance.ts';
import { agent, eventMaker, user } from './fixtures.ts';

const KEY = new Uint8Array(32);
const PREVIEW_NON_CLAIM = /local preview authenticates tokens/;

/** A bound session: the binding written by `binder` (as the request's actor), then an agent's task. */
function session(binder = user('user_alice')) {
  const ev = eventMaker();
  const bound = ev(SESSION_BOUND, { principal: { type: 'service_account', id: 'sa-ci' } }, { actor: binder });
  const created = ev('task.created', { task_id: 'task-1' }, { actor: agent('agent-intake') });
  return [bound, created].map((e) => ({ ...e, session_id: 'sess-1' }));
}

t.test('the preview: token_principal is the transport principal, with the preview non-claim', async (t) => {
  const view = provenanceView('sess-1', session(), KEY);
  t.same(view.token_principal, { type: 'service_account', id: 'preview-customer', source: 'token' });
  t.same(view.non_claims, PROVENANCE_NON_CLAIMS.asserted);
  t.ok(view.non_claims.some((c) => PREVIEW_NON_CLAIM.test(c)), 'the preview says its tokens name no person');
  t.same(provenanceView('sess-1', session(), KEY, 'asserted'), view, "'asserted' is the default");
});

t.test('hosted: token_principal is the verified subject, and the preview non-claim is replaced', async (t) => {
  const view = provenanceView('sess-1', session(), KEY, 'verified');
  t.same(view.token_principal, { type: 'user', id: 'user_alice', source: 'token' }, 'the subject of the token the binding was written with');
  t.notOk(view.non_claims.some((c) => PREVIEW_NON_CLAIM.test(c)), 'no preview identity non-claim');
  t.ok(view.non_claims.some((c) => /subjects of the OIDC tokens this service verified/.test(c)), 'the hosted non-claim instead');
  t.same(view.non_claims.length, PROVENANCE_NON_CLAIMS.asserted.length, 'the other non-claims kept');
  t.same(view.principal, { type: 'service_account', id: 'sa-ci', source: 'asserted' }, 'the asserted principal is still marked asserted');

  const unbound = provenanceView('sess-1', session().slice(1), KEY, 'verified');
  t.equal(unbound.token_principal, null, 'never bound: no token principal');
});
