// The request, result and event-payload schemas of templates and tasks: each accepts its filled
// fixture and rejects an unknown member (and the specific breakages named in the contract).
import t from 'tap';
import { validateTemplatePayload } from '../../src/domain/closeout-gates.ts';
import {
  BLOCKED_CLOSEOUT, clone, COMPLETED_CLOSEOUT, DEFERRED_CLOSEOUT, FILLED, testSchemas, testTemplates,
} from '../fixtures/templates.ts';

const schemas = testSchemas();
const registry = testTemplates();

const { evidence_refs: _refs, ...closedPayload } = COMPLETED_CLOSEOUT;
const failed = validateTemplatePayload(registry.resolve('closeout')!, { outcome: 'completed' }, { registry });
const { template_id: _id, ...failed422 } = failed;

const valid: [string, string, unknown][] = [
  ['api/task-create-request.json', 'task create', FILLED['task.create.v1']],
  ['api/task-create-request.json', 'task create, minimal', { title: 'Strip control characters', session_id: 'sess-test-1' }],
  ['api/checkpoint-request.json', 'checkpoint', FILLED['checkpoint.write.v1']],
  ['api/checkpoint-request.json', 'checkpoint, minimal', { progress: 'Cleaner written.' }],
  ['api/closeout-request.json', 'completed closeout', COMPLETED_CLOSEOUT],
  ['api/closeout-request.json', 'blocked closeout', { ...BLOCKED_CLOSEOUT, session_id: 'sess-test-1' }],
  ['api/closeout-request.json', 'deferred closeout', DEFERRED_CLOSEOUT],
  ['api/template-validate-request.json', 'validate request', { template_id: 'closeout', payload: COMPLETED_CLOSEOUT }],
  ['api/template-validate-request.json', 'validate request, any payload', { template_id: 'task.create.v1', payload: 'not an object' }],
  ['api/validation-result.json', 'passing result', validateTemplatePayload(registry.resolve('closeout')!, clone(COMPLETED_CLOSEOUT), { registry })],
  ['api/validation-result.json', 'failing result', failed],
  ['api/validation-result.json', '422 closeout body without template_id', failed422],
  ['api/template-list.json', 'template list', { templates: registry.list() }],
  ['events/task-created.json', 'task.created', { title: 'Strip control characters', description: 'Snippets break --json.', labels: ['search'] }],
  ['events/task-checkpoint-written.json', 'task.checkpoint.written', { progress: 'Cleaner written.', blockers: [], next_actions: ['Test the rebuild'], context_lines: ['The cleaner lives in the projection'] }],
  ['events/task-closed.json', 'task.closed (closeout minus envelope members)', closedPayload],
  ['events/task-closed.json', 'task.closed, blocked', BLOCKED_CLOSEOUT],
  ['events/evidence-attached.json', 'evidence.attached {}', {}],
  ['events/evidence-attached.json', 'evidence.attached {note}', { note: 'Test run log' }],
  ['api/session-bind-request.json', 'session bind (POST /v1/sessions)', FILLED['session.bind.v1']],
  ['events/session-bound.json', 'session.bound', { principal: { type: 'service_account', id: 'svc-ci' }, agent: 'builder 1.2', client_app: 'gov-cli', host: 'runner-7', ip_class: 'loopback', transport: 'stdio', source_harness: 'tap' }],
  ['events/session-bound.json', 'session.bound, principal only', { principal: { type: 'user', id: 'user-1' } }],
];

t.test('each schema accepts its filled payload', async (t) => {
  for (const [ref, name, value] of valid) t.same(schemas.validate(ref, value), [], `${ref}: ${name}`);
});

t.test('each schema rejects an unknown member', async (t) => {
  for (const [ref, name, value] of valid) {
    const broken = { ...(clone(value) as object), surprise: true };
    t.same(schemas.validate(ref, broken), [{ pointer: '/surprise', detail: 'unknown member "surprise" is not allowed' }], `${ref}: ${name}`);
  }
});

t.test('specific rejections', async (t) => {
  const cases: [string, string, unknown, string][] = [
    ['api/task-create-request.json', 'title over 200', { ...FILLED['task.create.v1'], title: 'x'.repeat(201) }, '/title'],
    ['api/task-create-request.json', 'blank title', { ...FILLED['task.create.v1'], title: '   ' }, '/title'],
    ['api/task-create-request.json', 'no session_id', { title: 'Strip control characters' }, '/session_id'],
    ['api/checkpoint-request.json', 'no progress', { blockers: [] }, '/progress'],
    ['api/closeout-request.json', 'summary not a string', { ...COMPLETED_CLOSEOUT, summary: ['x'] }, '/summary'],
    ['api/closeout-request.json', 'context_lines a string', { ...COMPLETED_CLOSEOUT, context_lines: 'one line' }, '/context_lines'],
    ['api/closeout-request.json', 'trap not a string', { ...COMPLETED_CLOSEOUT, future_agent_traps: [7] }, '/future_agent_traps/0'],
    ['api/closeout-request.json', 'outcome unknown', { ...COMPLETED_CLOSEOUT, outcome: 'done' }, '/outcome'],
    ['api/closeout-request.json', 'no context_lines', { ...BLOCKED_CLOSEOUT, context_lines: undefined }, '/context_lines'],
    ['api/closeout-request.json', 'unbound evidence_ref', { ...COMPLETED_CLOSEOUT, evidence_refs: [{ ...COMPLETED_CLOSEOUT.evidence_refs[0], sha256: undefined }] }, '/evidence_refs/0'],
    ['api/template-validate-request.json', 'no payload', { template_id: 'closeout' }, '/payload'],
    ['api/validation-result.json', 'blocker with unknown code', { ...failed, blockers: [{ code: 'nope', field: 'x', pointer: '', detail: 'x' }] }, '/blockers/0/code'],
    ['events/task-closed.json', 'empty traps', { ...closedPayload, future_agent_traps: [] }, '/future_agent_traps'],
    ['events/session-bound.json', 'raw IP as ip_class', { principal: { type: 'user', id: 'user-1' }, ip_class: '10.0.0.1' }, '/ip_class'],
    ['events/session-bound.json', 'agent principal', { principal: { type: 'agent', id: 'agent-1' } }, '/principal/type'],
    ['events/evidence-attached.json', 'empty note', { note: '' }, '/note'],
  ];
  for (const [ref, name, value, pointer] of cases) {
    const json = JSON.parse(JSON.stringify(value)) as unknown;
    const errors = schemas.validate(ref, json);
    t.ok(errors.some((e) => e.pointer === pointer), `${ref}: ${name} → ${pointer} in ${JSON.stringify(errors)}`);
  }
});
