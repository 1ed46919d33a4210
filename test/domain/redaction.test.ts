// Redaction policy redaction.default.v1 (contract section 9), table-driven: what is cut from uri and
// source, what passes through, and how the ref's redaction state and the action list follow.
import t from 'tap';
import {
  REDACTION_POLICY_ID, SECRET_NAME_PARTS, isSecretName, redactEvidenceRefs, redactText,
} from '../../src/domain/redaction.ts';
import type { EvidenceRef } from '../../src/domain/event.ts';

t.equal(REDACTION_POLICY_ID, 'redaction.default.v1');

t.test('redactText: cuts and pass-throughs', async (t) => {
  const cases: [string, string, string[]][] = [
    ['https://ci.example.test/logs/42', 'https://ci.example.test/logs/42', []],
    ['git:abc', 'git:abc', []],
    ['git@github.com:org/repo.git', 'git@github.com:org/repo.git', []],
    ['sha256:' + 'a'.repeat(64), 'sha256:' + 'a'.repeat(64), []],
    ['https://alice:s3cret@ci.example.test/x', 'https://REDACTED@ci.example.test/x', ['userinfo']],
    ['https://ghp_abcdef@github.com/org/repo', 'https://REDACTED@github.com/org/repo', ['userinfo']],
    ['https://alice:p@ss@ci.example.test/x?q=1', 'https://REDACTED@ci.example.test/x?q=1', ['userinfo']],
    ['https://ci.example.test/a@b', 'https://ci.example.test/a@b', []],
    ['https://REDACTED@ci.example.test/x', 'https://REDACTED@ci.example.test/x', []],
    ['deploy:hunter2@host.example.test:repo', 'REDACTED@host.example.test:repo', ['userinfo']],
    ['https://x.test/f?token=abc&page=2', 'https://x.test/f?token=REDACTED&page=2', ['secret_param']],
    ['https://x.test/f?page=2&Access_Token=abc', 'https://x.test/f?page=2&Access_Token=REDACTED', ['secret_param']],
    ['https://s3.test/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff00&X-Amz-Date=1', 'https://s3.test/o?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Date=1', ['secret_param']],
    ['https://blob.test/c?sv=2020&sig=abc%3D%3D', 'https://blob.test/c?sv=2020&sig=REDACTED', ['secret_param']],
    ['https://x.test/cb#access_token=abc&state=9', 'https://x.test/cb#access_token=REDACTED&state=9', ['secret_param']],
    ['https://x.test/f?api%5Fkey=abc', 'https://x.test/f?api%5Fkey=REDACTED', ['secret_param']],
    ['https://x.test/f?PASSWD=x;client_secret=y', 'https://x.test/f?PASSWD=REDACTED;client_secret=REDACTED', ['secret_param']],
    ['https://x.test/f?token=', 'https://x.test/f?token=', []],
    ['https://x.test/f?token=REDACTED', 'https://x.test/f?token=REDACTED', []],
    ['https://x.test/f?q=token&author=me', 'https://x.test/f?q=token&author=REDACTED', ['secret_param']],
    ['https://x.test/f?token=a=b==', 'https://x.test/f?token=REDACTED', ['secret_param']],
    ['https://bob:pw@x.test/f?apikey=1', 'https://REDACTED@x.test/f?apikey=REDACTED', ['userinfo', 'secret_param']],
    ['git:abc?token=xyz', 'git:abc?token=REDACTED', ['secret_param']],
    ['ci runner token=abc123 stage=build', 'ci runner token=REDACTED stage=build', ['secret_param']],
    ['mirror of https://u:p@x.test/a', 'mirror of https://REDACTED@x.test/a', ['userinfo']],
    ['the key of success', 'the key of success', []],
  ];
  for (const [input, want, rules] of cases) {
    t.same(redactText(input), { text: want, rules }, input);
  }
});

t.test('redactText: a cut that no longer fits its limit replaces the whole member', async (t) => {
  const long = `https://x.test/${'a'.repeat(2026)}?sig=ab`;
  t.equal(long.length, 2048, 'the input fits the seed limit; the cut text would not');
  t.same(redactText(long, 2048), { text: 'REDACTED', rules: ['secret_param', 'oversize'] });
  t.same(redactText(`https://x.test/${'a'.repeat(2040)}`, 2048).rules, [], 'nothing cut: never replaced for length');
});

t.test('isSecretName: every listed part, any case, percent-encoded', async (t) => {
  for (const part of SECRET_NAME_PARTS) {
    t.ok(isSecretName(part), part);
    t.ok(isSecretName(`X-${part.toUpperCase()}-v2`), `${part} inside a longer name`);
  }
  for (const name of ['page', 'q', 'state', 'sv', 'se', 'expires']) t.notOk(isSecretName(name), name);
  t.ok(isSecretName('access%5Ftoken'), 'decoded before matching');
  t.ok(isSecretName('token%'), 'a malformed escape is judged raw');
});

const base: EvidenceRef = {
  artifact_id: 'art-1', uri: 'https://ci.example.test/logs/1', evidence_type: 'log', sha256: 'a'.repeat(64),
  confidence: 'verified', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2025-01-10T00:00:00Z',
};

t.test('redactEvidenceRefs: states, actions and summary', async (t) => {
  const cases: [string, Partial<EvidenceRef>, Partial<EvidenceRef>, { field: string; rule: string }[]][] = [
    ['clean ref unchanged', {}, {}, []],
    ['secret in uri → partial', { uri: 'https://ci.test/l?token=x' }, { uri: 'https://ci.test/l?token=REDACTED', redaction: 'partial' }, [{ field: 'uri', rule: 'secret_param' }]],
    ['secret in source → partial', { source: 'https://bot:pw@ci.test' }, { source: 'https://REDACTED@ci.test', redaction: 'partial' }, [{ field: 'source', rule: 'userinfo' }]],
    ['both members', { uri: 'https://u:p@ci.test/?sig=1', source: 'key=v' }, { uri: 'https://REDACTED@ci.test/?sig=REDACTED', source: 'key=REDACTED', redaction: 'partial' },
      [{ field: 'uri', rule: 'userinfo' }, { field: 'uri', rule: 'secret_param' }, { field: 'source', rule: 'secret_param' }]],
    ['removed stays removed after a cut', { redaction: 'removed', uri: 'https://ci.test/?auth=1' }, { uri: 'https://ci.test/?auth=REDACTED' }, [{ field: 'uri', rule: 'secret_param' }]],
    ['removed stays removed without a cut', { redaction: 'removed' }, {}, []],
    ['partial stays partial without a cut (never un-redacted)', { redaction: 'partial' }, {}, []],
    ['oversize source', { source: `token=${'x'.repeat(250)}` }, { source: 'token=REDACTED', redaction: 'partial' }, [{ field: 'source', rule: 'secret_param' }]],
    ['non-URL uri passes', { uri: 'git:abc', evidence_type: 'commit' }, {}, []],
  ];
  for (const [name, over, changed, actions] of cases) {
    const input = { ...base, ...over };
    const snapshot = structuredClone(input);
    const result = redactEvidenceRefs([input]);
    t.same(result.refs, [{ ...input, ...changed }], `${name}: ref`);
    t.same(result.actions, actions.map((a) => ({ artifact_id: 'art-1', ...a })), `${name}: actions`);
    const state = result.refs[0]!.redaction;
    t.same(result.summary, { none: 0, partial: 0, removed: 0, [state]: 1 }, `${name}: summary`);
    t.same(input, snapshot, `${name}: input not mutated`);
  }
});

t.test('redactEvidenceRefs: several refs keep order and are counted', async (t) => {
  const refs: EvidenceRef[] = [
    { ...base, artifact_id: 'a1' },
    { ...base, artifact_id: 'a2', uri: 'https://x.test/?password=1' },
    { ...base, artifact_id: 'a3', redaction: 'removed' },
    { ...base, artifact_id: 'a4', redaction: 'partial' },
    { ...base, artifact_id: 'a5', source: 'session token=zz' },
  ];
  const result = redactEvidenceRefs(refs);
  t.same(result.refs.map((r) => [r.artifact_id, r.redaction]), [['a1', 'none'], ['a2', 'partial'], ['a3', 'removed'], ['a4', 'partial'], ['a5', 'partial']]);
  t.same(result.summary, { none: 1, partial: 3, removed: 1 });
  t.same(result.actions, [{ artifact_id: 'a2', field: 'uri', rule: 'secret_param' }, { artifact_id: 'a5', field: 'source', rule: 'secret_param' }]);
  t.same(redactEvidenceRefs([]), { refs: [], actions: [], summary: { none: 0, partial: 0, removed: 0 } }, 'no refs');
});
