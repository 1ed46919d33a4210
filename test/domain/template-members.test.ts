// The five members every template answers (contract §7): evidence_checklist, default_non_claims,
// missing_field_policy, redaction_defaults, export_blockers. The content must be true of the route:
// the non-claims are the sentences the code emits where it emits one, the missing-field answer is
// the one the route gives, and every enforced blocker names an error code the service has.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { INTEGRITY_NON_CLAIM, SEMANTIC_NON_CLAIM } from '../../src/domain/claim-boundary.ts';
import { POSTURE_NON_CLAIM } from '../../src/domain/governance/regulatory.ts';
import { DEFAULT_NON_CLAIMS } from '../../src/domain/packet-assembly.ts';
import { REDACTION_POLICY_ID } from '../../src/domain/redaction.ts';
import type { SmartTemplate } from '../../src/domain/templates.ts';
import type { Approval } from '../../src/domain/governance/approvals.ts';
import { errorSpecOf } from '../../src/error-catalogue.ts';
import { RISK_POLICY_FILE } from '../../src/deps.ts';
import { approvalView } from '../../src/service/governance/registry-service.ts';
import { PROFILES_NON_CLAIM } from '../../src/service/governance/regulatory-service.ts';
import { SEARCH_NON_CLAIMS } from '../../src/service/search-service.ts';
import { loadTemplateFiles, testTemplates } from '../fixtures/templates.ts';

/**
 * The five members as schemas/api/template.json defines them. Spelled out here rather than read from
 * the generated Template type, so this test compiles whether or not that file was regenerated yet.
 */
type Members = {
  evidence_checklist: string[];
  default_non_claims: string[];
  missing_field_policy: {
    on_missing: 'refuse'; checked_by: 'template_gate' | 'request_schema' | 'route_rules' | 'not_served';
    status: 400 | 422 | null; answer: 'validation_body' | 'problem' | 'none'; problem_code?: string; writes: 'nothing'; repair: string;
  };
  redaction_defaults: { policy_id: string | null; rules: string[] };
  export_blockers: { enforced: { code: string; condition: string }[]; guidance: string[] };
};
type Full = SmartTemplate & Members;

const templates = loadTemplateFiles().map((f) => f.template as Full);
const registry = testTemplates();
const tpl = (id: string) => registry.resolve(id)! as Full;

/** The write routes that run their template's gate (src/service: tasks, events, proofs). */
const GATED = ['task.create.v1', 'checkpoint.write.v1', 'task_closeout.v1', 'evidence.attach.v1', 'session.bind.v1', 'proof_packet.assemble.v1'];

t.test('every template answers the five members with content of its own', async (t) => {
  for (const x of templates) {
    t.ok(x.evidence_checklist.length > 0, `${x.template_id} evidence_checklist`);
    t.ok(x.default_non_claims.length > 0, `${x.template_id} default_non_claims`);
    t.ok(x.redaction_defaults.rules.length > 0, `${x.template_id} redaction rules`);
    const text = JSON.stringify([x.evidence_checklist, x.default_non_claims, x.missing_field_policy, x.redaction_defaults, x.export_blockers]);
    t.notMatch(text, /<[a-z][^<>]*>/, `${x.template_id}: no placeholder text`);
  }
  // Checklists are specific to their interaction: no two templates share one line.
  const lines = templates.flatMap((x) => x.evidence_checklist);
  t.equal(new Set(lines).size, lines.length, 'no checklist line is shared');
});

t.test('default_non_claims are the sentences the routes emit', async (t) => {
  const has = (id: string, sentence: string, what: string) => t.ok(tpl(id).default_non_claims.includes(sentence), `${id} carries ${what}`);
  const packet = tpl('proof_packet.assemble.v1');
  t.same(packet.default_non_claims, DEFAULT_NON_CLAIMS, 'packet: exactly the non-claims every packet carries');
  t.ok(packet.default_non_claims.includes(INTEGRITY_NON_CLAIM));
  // The assembly drops an exact repeat, so a caller who keeps the safe default adds nothing twice.
  t.same(packet.safe_defaults.non_claims, DEFAULT_NON_CLAIMS, 'packet: the safe default non_claims are the same sentences');
  has('task_closeout.v1', SEMANTIC_NON_CLAIM, 'SEMANTIC_NON_CLAIM');
  has('search.agent_history.v1', SEARCH_NON_CLAIMS[0]!, 'the search answer\'s non-claim');
  has('regulatory.update.v1', POSTURE_NON_CLAIM, 'POSTURE_NON_CLAIM');
  has('regulatory.update.v1', PROFILES_NON_CLAIM, 'PROFILES_NON_CLAIM');
  const policy = JSON.parse(readFileSync(RISK_POLICY_FILE, 'utf8')) as { non_claims: string[] };
  t.same(tpl('risk.evaluate.v1').default_non_claims, policy.non_claims, 'risk: the policy\'s non_claims, which every evaluation carries');
  // An approval's view answers its non-claim whatever its state; a decided one needs no steps.
  const view = approvalView({ outcome: 'approved' } as unknown as Approval, new Date());
  for (const sentence of view.non_claims) has('approval.decide.v1', sentence, 'the approval view\'s non-claim');
  // The asset evidence read writes its non-claim inline (src/service/governance/evidence-service.ts).
  const evidenceService = readFileSync(fileURLToPath(new URL('../../src/service/governance/evidence-service.ts', import.meta.url)), 'utf8');
  const evidenceRead = tpl('evidence.attach.v1').default_non_claims.filter((s) => s.includes('quarantine'));
  t.equal(evidenceRead.length, 1);
  t.ok(evidenceService.includes(`'${evidenceRead[0]}'`), 'evidence: the asset evidence read\'s non-claim');
});

t.test('missing_field_policy says what the route answers', async (t) => {
  for (const x of templates) {
    const p = x.missing_field_policy;
    const id = x.template_id;
    t.equal(p.checked_by === 'template_gate', GATED.includes(id), `${id}: template_gate exactly for the gated routes`);
    if (p.checked_by === 'template_gate') t.same([p.status, p.answer], [422, 'validation_body'], `${id}: 422 validation body`);
    if (p.answer === 'problem') {
      const spec = errorSpecOf(p.problem_code!);
      t.ok(spec, `${id}: ${p.problem_code} is a catalogued code`);
      t.equal(spec?.http?.[0], p.status, `${id}: ${p.problem_code} answers ${p.status}`);
    }
    t.equal(p.checked_by === 'not_served', x.status === 'target', `${id}: not_served exactly for target templates`);
    if (p.checked_by === 'not_served') t.same([p.status, p.answer], [null, 'none'], id);
  }
  t.same(tpl('approval.decide.v1').missing_field_policy.problem_code, 'validation_failed');
  t.same(tpl('search.agent_history.v1').missing_field_policy.problem_code, 'invalid_query');
});

t.test('redaction_defaults name the packet policy by its id', async (t) => {
  for (const x of templates) {
    const id = x.redaction_defaults.policy_id;
    t.ok(id === null || id === REDACTION_POLICY_ID, `${x.template_id}: ${id}`);
  }
  t.equal(tpl('proof_packet.assemble.v1').redaction_defaults.policy_id, REDACTION_POLICY_ID);
  t.equal(tpl('task_closeout.v1').redaction_defaults.policy_id, REDACTION_POLICY_ID);
});

t.test('every enforced export blocker names a catalogued error code', async (t) => {
  let enforced = 0;
  for (const x of templates) {
    for (const b of x.export_blockers.enforced) {
      enforced++;
      t.ok(errorSpecOf(b.code), `${x.template_id}: ${b.code}`);
    }
  }
  t.ok(enforced >= 10, `${enforced} enforced blockers`);
  const packet = tpl('proof_packet.assemble.v1').export_blockers.enforced.map((b) => b.code);
  t.same(packet, ['not_found_in_scope', 'empty_snapshot', 'session_ids_required', 'as_of_in_future']);
});
