// The template gate (contract §7), table-driven: starters fail, filled payloads pass, each closeout
// rule breaks on its own (missing fields, 19/20 characters, copies, placeholders, duplicates,
// outcome-specific members), wrong types answer ok:false without throwing.
import t from 'tap';
import { validateTemplatePayload, type ValidationResult } from '../../src/domain/closeout-gates.ts';
import type { SmartTemplate } from '../../src/domain/templates.ts';
import {
  BLOCKED_CLOSEOUT, clone, COMPLETED_CLOSEOUT, DEFERRED_CLOSEOUT, EVIDENCE_REF, FILLED, testSchemas, testTemplates,
} from '../fixtures/templates.ts';

const registry = testTemplates();
const schemas = testSchemas();
const closeout = registry.resolve('closeout')!;
const validateSchema = schemas.validate;

function gate(template: SmartTemplate, payload: unknown, withSchema = false): ValidationResult {
  const result = validateTemplatePayload(template, payload, withSchema ? { registry, validateSchema } : { registry });
  // Invariants of every answer: schema-valid, one prompt per field, evidence only when failing.
  const problems = schemas.validate('api/validation-result.json', result);
  if (problems.length > 0) throw new Error(`result not schema-valid: ${JSON.stringify(problems)}`);
  if (result.missing_fields.length !== result.repair_prompt.length) throw new Error('prompts not parallel to fields');
  if (result.ok !== (result.blockers.length === 0)) throw new Error('ok disagrees with blockers');
  result.missing_fields.forEach((f, i) => {
    if (!result.repair_prompt[i]!.startsWith(f)) throw new Error(`prompt ${i} does not name ${f}`);
  });
  if (result.ok && result.next_required_evidence.length > 0) throw new Error('evidence asked of a passing payload');
  return result;
}
const codesAt = (r: ValidationResult) => r.blockers.map((b) => [b.code, b.pointer]);
const closeoutWith = (change: Record<string, unknown>, base: object = COMPLETED_CLOSEOUT) => {
  const p: Record<string, unknown> = { ...clone(base), ...change };
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete p[k];
  return p;
};

t.test("every template's own starter payload fails its gate", async (t) => {
  for (const tpl of registry.list()) {
    for (const withSchema of [false, true]) {
      const r = gate(tpl, clone(tpl.starter_payload), withSchema);
      t.equal(r.ok, false, tpl.template_id);
      t.ok(r.blockers.some((b) => b.code === 'placeholder_text' || b.code === 'copied_text' || b.code === 'missing'), tpl.template_id);
    }
  }
});

t.test('a filled payload per template passes, with and without its request schema', async (t) => {
  for (const tpl of registry.list()) {
    for (const withSchema of [false, true]) {
      const r = gate(tpl, clone(FILLED[tpl.template_id]), withSchema);
      t.same(r.blockers, [], tpl.template_id);
      t.same([r.ok, r.template_id, r.missing_fields, r.repair_prompt, r.next_required_evidence], [true, tpl.template_id, [], [], []]);
      t.equal(r.warnings.some((w) => w.code === 'target_template'), tpl.status === 'target', tpl.template_id);
    }
  }
  for (const payload of [BLOCKED_CLOSEOUT, DEFERRED_CLOSEOUT]) t.equal(gate(closeout, clone(payload), true).ok, true, payload.outcome);
});

t.test('every required closeout member, missing in turn, is named with its own prompt', async (t) => {
  const cases: [string, object, string[]][] = [
    ['outcome', COMPLETED_CLOSEOUT, []],
    ['summary', COMPLETED_CLOSEOUT, []],
    ['context_lines', COMPLETED_CLOSEOUT, []],
    ['future_agent_traps', COMPLETED_CLOSEOUT, []],
    ['verification', COMPLETED_CLOSEOUT, ['verification: the checks you ran (commands, test runs, reviews) and what each showed']],
    ['evidence_refs', COMPLETED_CLOSEOUT, ['an evidence_ref (artifact reference) with sha256 or etag']],
    ['next_actions', BLOCKED_CLOSEOUT, []],
    ['next_actions', DEFERRED_CLOSEOUT, []],
  ];
  const prompts = new Map<string, string>();
  for (const [field, base, evidence] of cases) {
    for (const value of [undefined, [], null]) {
      if (value === null && field !== 'summary') continue;
      if (Array.isArray(value) && ['outcome', 'summary'].includes(field)) continue;
      const r = gate(closeout, closeoutWith({ [field]: value }, base), true);
      const name = `${field}=${JSON.stringify(value)} (${(base as { outcome: string }).outcome})`;
      t.same(r.missing_fields, [field], name);
      t.equal(r.blockers.length, 1, name);
      t.equal(r.blockers[0]!.code, value === null ? 'wrong_type' : 'missing', name);
      t.same(r.next_required_evidence, evidence, name);
      prompts.set(field, r.repair_prompt[0]!);
    }
  }
  t.equal(new Set(prompts.values()).size, prompts.size, 'each field has its own prompt');
  for (const field of ['context_lines', 'future_agent_traps']) {
    // seed Errors 2: the prompt asks for a non-empty list of task-specific 20-character strings, no placeholder copies
    for (const words of ['non-empty list', 'task-specific', 'at least 20 characters', 'placeholder']) t.match(prompts.get(field), words, field);
  }
});

t.test('blocked and deferred need blockers or gaps; completed does not', async (t) => {
  const cases: [string, object, Record<string, unknown>, string[]][] = [
    ['blocked without blockers or gaps', BLOCKED_CLOSEOUT, { blockers: undefined }, ['blockers']],
    ['blocked with empty blockers and gaps', BLOCKED_CLOSEOUT, { blockers: [], gaps: [] }, ['blockers']],
    ['blocked with gaps only', BLOCKED_CLOSEOUT, { blockers: undefined, gaps: ['The signing key owner is unknown'] }, []],
    ['deferred without gaps or blockers', DEFERRED_CLOSEOUT, { gaps: undefined }, ['blockers']],
    ['deferred with blockers only', DEFERRED_CLOSEOUT, { gaps: undefined, blockers: ['Waiting for the hosted key'] }, []],
    ['blocked needs no verification or evidence', BLOCKED_CLOSEOUT, { verification: undefined, evidence_refs: undefined }, []],
    ['completed needs no next_actions or blockers', COMPLETED_CLOSEOUT, { next_actions: undefined, blockers: undefined }, []],
    ['completed with no verification and no evidence', COMPLETED_CLOSEOUT, { verification: [], evidence_refs: [] }, ['verification', 'evidence_refs']],
    ['blocked missing everything of its own', BLOCKED_CLOSEOUT, { blockers: undefined, next_actions: undefined }, ['blockers', 'next_actions']],
  ];
  for (const [name, base, change, missing] of cases) {
    const r = gate(closeout, closeoutWith(change, base), true);
    t.same(r.missing_fields, missing, name);
    t.equal(r.ok, missing.length === 0, name);
  }
  const r = gate(closeout, closeoutWith({ blockers: ['Docs review still pending upstream'] }));
  t.same([r.ok, r.warnings.filter((w) => w.code !== 'safe_default_kept').map((w) => [w.code, w.pointer])], [true, [['blockers_on_completed', '/blockers']]]);
});

t.test('outcome must be one of the three', async (t) => {
  for (const outcome of ['done', 'Completed', '', 7, null, ['completed']]) {
    const r = gate(closeout, closeoutWith({ outcome }), true);
    t.same(codesAt(r), [['invalid_value', '/outcome']], JSON.stringify(outcome));
  }
});

t.test('context lines and traps: at least 20 characters after trimming', async (t) => {
  const cases: [string, number, boolean][] = [
    ['Index rebuild takes', 19, false],
    ['Index rebuild takes.', 20, true],
    ['   Index rebuild takes   ', 19, false],
    ['\tIndex rebuild takes\n', 19, false],
    ['  Index rebuild takes.  ', 20, true],
    ['🔒 lock takeover ok!', 19, false],
    ['🔒 lock takeover ok!!', 20, true],
    ['', 0, false],
    ['     ', 0, false],
  ];
  for (const field of ['context_lines', 'future_agent_traps']) {
    for (const [text, length, ok] of cases) {
      t.equal([...text.trim()].length, length, `fixture length of ${JSON.stringify(text)}`);
      const list = [...(COMPLETED_CLOSEOUT[field as 'context_lines'])];
      list[1] = text;
      const r = gate(closeout, closeoutWith({ [field]: list }));
      t.same(codesAt(r), ok ? [] : [['too_short', `/${field}/1`]], `${field}: ${JSON.stringify(text)}`);
      if (!ok) t.match(r.repair_prompt[0], /item 1 has \d+ characters after trimming/);
    }
  }
});

t.test('copied starter or example text of any template is rejected', async (t) => {
  const tpl = (id: string) => registry.resolve(id)!;
  const exampleLine = (tpl('closeout').examples![0]!.payload.context_lines as string[])[0]!;
  const blockedTrap = (tpl('closeout').examples![1]!.payload.future_agent_traps as string[])[1]!;
  const cases: [string, string][] = [
    ['closeout starter context line', (tpl('closeout').starter_payload.context_lines as string[])[0]!],
    ['closeout starter trap', (tpl('closeout').starter_payload.future_agent_traps as string[])[0]!],
    ['checkpoint starter context line', (tpl('checkpoint.write.v1').starter_payload.context_lines as string[])[0]!],
    ['closeout example context line', exampleLine],
    ['closeout blocked example trap', blockedTrap],
    ['checkpoint example context line', (tpl('checkpoint.write.v1').examples![0]!.payload.context_lines as string[])[0]!],
    ['checkpoint example progress', tpl('checkpoint.write.v1').examples![0]!.payload.progress as string],
    ['task example description', tpl('task.create.v1').examples![0]!.payload.description as string],
    ['example in other case and spacing', `  ${exampleLine.toUpperCase().replace(/ /g, '   ')} `],
    ['example with a word added', `Note: ${exampleLine}`],
    ['example with its end cut', exampleLine.slice(0, -6)],
    // Everything else a template serves is generic too (an acceptance pass got these through).
    ['closeout obligation', tpl('closeout').agent_obligations[0]!],
    ['closeout checklist item', tpl('closeout').evidence_checklist[0]!],
    ['a clause of a repair prompt', 'Write a non-empty list of task-specific strings, each at least 20 characters'],
    ['task non-claim', tpl('task.create.v1').default_non_claims[0]!],
  ];
  for (const field of ['context_lines', 'future_agent_traps']) {
    for (const [name, text] of cases) {
      const list = [...COMPLETED_CLOSEOUT[field as 'context_lines'], text];
      const r = gate(closeout, closeoutWith({ [field]: list }));
      t.same(codesAt(r), [['copied_text', `/${field}/2`]], `${field}: ${name}`);
    }
  }
  // A short common phrase inside a longer sentence of one's own is not a copy.
  const own = 'Check the checkpoint ordering before trusting any packet built from this task';
  t.equal(gate(closeout, closeoutWith({ context_lines: [...COMPLETED_CLOSEOUT.context_lines, own] })).ok, true);
});

t.test("the closeout template's own examples fail only on their copied lines", async (t) => {
  for (const ex of closeout.examples!) {
    const r = gate(closeout, clone(ex.payload), true);
    t.equal(r.ok, false, ex.description);
    t.same([...new Set(r.blockers.map((b) => b.code))], ['copied_text'], ex.description);
    t.same(r.missing_fields, ['context_lines', 'future_agent_traps'], ex.description);
  }
});

t.test('placeholder text is rejected in context lines and traps', async (t) => {
  const rejected = [
    'Context: <describe what the next agent needs>',
    '<fill this in before closing the task>',
    'TODO: write the real context line here',
    'Work left over, todo for the next session',
    'TBD once the hosted receipts route ships',
    'TBC after the platform team answers us',
    'FIXME before this task is closed out',
    'Lorem ipsum dolor sit amet, consectetur',
    'This is an example context line for you',
    'See the examples in the template for this',
    'placeholder context for the next agent',
    'Place-holder context for the next agent',
    'n/a for this particular task, nothing new',
    'Nothing to report here (N/A) for the task',
    'xxx xxx xxx xxx xxx xxx xxx xxx',
    'Same as above, nothing else to add here',
    'As above: the index is the tricky part',
    'Ditto for the trap list, nothing special',
    'Your context line goes here, please add',
    'Insert the task specific context here now',
    'Fill in the context before closing it',
    'To be determined after the review is done',
    'Sample text for a context line in closeouts',
  ];
  const accepted = [
    'For example, the takeover needs a lock older than ten seconds',
    'Map<string, number> keys are sorted before the index hashes them',
    'The fixture host api.example.com is never contacted by tests',
    'Latency stays < 20ms when the index is warm, > 50ms when cold',
    'Ordering uses seq, not recorded_at, because clocks may repeat',
    'The run log is at <https://ci.test.invalid/runs/5120> for a week',
    'Questions about the key go to <keys@platform.test.invalid> first',
    'The `<select>` of the export form keeps its old id for the e2e tests',
  ];
  for (const field of ['context_lines', 'future_agent_traps']) {
    for (const text of rejected) {
      t.ok([...text.trim()].length >= 20, `fixture is long enough: ${text}`);
      const r = gate(closeout, closeoutWith({ [field]: [text, ...COMPLETED_CLOSEOUT[field as 'context_lines']] }));
      t.same(codesAt(r), [['placeholder_text', `/${field}/0`]], `${field}: ${text}`);
      t.match(r.repair_prompt[0], /item 0 is placeholder text/);
    }
    for (const text of accepted) {
      const r = gate(closeout, closeoutWith({ [field]: [text, ...COMPLETED_CLOSEOUT[field as 'context_lines']] }));
      t.same(codesAt(r), [], `${field} accepts: ${text}`);
    }
  }
});

t.test('duplicates within one list are rejected (trimmed, case-insensitive); across lists warned', async (t) => {
  const [first, second] = COMPLETED_CLOSEOUT.context_lines as [string, string];
  const cases: [string[], [string, string][]][] = [
    [[first, second, first], [['duplicate', '/context_lines/2']]],
    [[first, `  ${first.toUpperCase()}\t`, second], [['duplicate', '/context_lines/1']]],
    [[first, first, first], [['duplicate', '/context_lines/1'], ['duplicate', '/context_lines/2']]],
  ];
  for (const [list, expected] of cases) {
    const r = gate(closeout, closeoutWith({ context_lines: list }));
    t.same(codesAt(r), expected, JSON.stringify(list));
    t.match(r.repair_prompt[0], /repeats item 0/);
  }
  const r = gate(closeout, closeoutWith({ future_agent_traps: [...COMPLETED_CLOSEOUT.future_agent_traps, first] }));
  t.same([r.ok, r.warnings.filter((w) => w.code === 'repeated_across_lists').map((w) => w.pointer)], [true, ['/future_agent_traps/2']]);
});

t.test('one prompt per field names every failed item index and why', async (t) => {
  const r = gate(closeout, closeoutWith({ context_lines: ['Too short to count', 'TODO: decide what the next agent needs', COMPLETED_CLOSEOUT.context_lines[0], ` ${COMPLETED_CLOSEOUT.context_lines[0]}`] }));
  t.same(r.missing_fields, ['context_lines']);
  t.same(codesAt(r), [['too_short', '/context_lines/0'], ['placeholder_text', '/context_lines/1'], ['duplicate', '/context_lines/3']]);
  t.match(r.repair_prompt[0], /^context_lines was rejected: item 0 has 18 characters after trimming; at least 20 are needed; item 1 is placeholder text \("TODO"\); item 3 repeats item 2/);
});

t.test('evidence refs: bound by sha256 or etag; completed asks for one', async (t) => {
  const { sha256: _drop, ...unbound } = EVIDENCE_REF;
  const ARTIFACT = 'an evidence_ref (artifact reference) with sha256 or etag';
  const BIND_0 = 'a sha256 or etag for evidence_refs[0], binding the reference to the artifact content';
  const cases: [string, unknown, [string, string][], string[]][] = [
    ['sha256 only', [EVIDENCE_REF], [], []],
    ['etag only', [{ ...unbound, etag: 'W/"5120"' }], [], []],
    ['neither', [unbound], [['evidence_unbound', '/evidence_refs/0']], [BIND_0, ARTIFACT]],
    ['empty etag', [{ ...unbound, etag: '' }], [['evidence_unbound', '/evidence_refs/0']], [BIND_0, ARTIFACT]],
    ['placeholder hash', [{ ...EVIDENCE_REF, sha256: '<sha256 of the log>' }], [['placeholder_text', '/evidence_refs/0/sha256']], [ARTIFACT]],
    ['a string', 'ci-run-5120', [['wrong_type', '/evidence_refs']], [ARTIFACT]],
    ['a list of strings', ['ci-run-5120'], [['wrong_type', '/evidence_refs/0']], [ARTIFACT]],
  ];
  for (const [name, refs, codes, evidence] of cases) {
    const r = gate(closeout, closeoutWith({ evidence_refs: refs }));
    t.same(codesAt(r), codes, name);
    t.same(r.next_required_evidence, evidence, name);
  }
  const verified = gate(closeout, closeoutWith({ evidence_refs: [{ ...EVIDENCE_REF, confidence: 'verified' }] }));
  t.same([verified.ok, verified.warnings.map((w) => [w.code, w.pointer])], [true, [
    ['self_verified_evidence', '/evidence_refs/0/confidence'],
    ['safe_default_kept', '/evidence_refs/0/redaction'],
    ['safe_default_kept', '/evidence_refs/0/content_trust'],
  ]]);
  const kept = gate(closeout, clone(COMPLETED_CLOSEOUT));
  t.same(kept.warnings.map((w) => [w.code, w.pointer]), [
    ['safe_default_kept', '/evidence_refs/0/confidence'],
    ['safe_default_kept', '/evidence_refs/0/redaction'],
    ['safe_default_kept', '/evidence_refs/0/content_trust'],
  ]);
});

t.test('wrong types answer ok:false, never throw', async (t) => {
  const closeoutCases: [string, unknown, string][] = [
    ['context_lines', 'Snippet cleaning happens in the projection writer', 'wrong_type'],
    ['context_lines', { 0: 'Snippet cleaning happens in the projection writer' }, 'wrong_type'],
    ['future_agent_traps', 42, 'wrong_type'],
    ['verification', 'npx tap passed', 'wrong_type'],
    ['summary', ['a list'], 'wrong_type'],
    ['summary', '   ', 'blank'],
    ['summary', 'TBD', 'placeholder_text'],
  ];
  for (const [field, value, code] of closeoutCases) {
    const r = gate(closeout, closeoutWith({ [field]: value }), true);
    t.same([r.ok, r.missing_fields, r.blockers[0]?.code], [false, [field], code], `${field}=${JSON.stringify(value)}`);
  }
  const items = gate(closeout, closeoutWith({ context_lines: [42, null, 'Snippet cleaning happens in the projection writer'] }));
  t.same(codesAt(items), [['wrong_type', '/context_lines/0'], ['wrong_type', '/context_lines/1']]);
  for (const payload of [null, 'closeout', 42, true, [], [COMPLETED_CLOSEOUT]]) {
    for (const tpl of registry.list()) {
      const r = gate(tpl, payload, true);
      t.same([r.ok, r.missing_fields, codesAt(r)], [false, ['$'], [['wrong_type', '']]], `${tpl.template_id}: ${JSON.stringify(payload)}`);
    }
  }
  // Every member of every filled payload replaced by every odd value: an answer, never an exception.
  const odd: unknown[] = [null, 0, -1.5, true, '', 'x', [], {}, [null], [{}], [[]], { a: { b: [] } }];
  for (const tpl of registry.list()) {
    for (const key of Object.keys(FILLED[tpl.template_id]!)) {
      for (const value of odd) {
        for (const withSchema of [false, true]) {
          const r = gate(tpl, { ...clone(FILLED[tpl.template_id]), [key]: value }, withSchema);
          if (tpl.required_fields.includes(key) && (value === null || value === '')) t.equal(r.ok, false, `${tpl.template_id}.${key}=${JSON.stringify(value)}`);
        }
      }
    }
  }
  t.pass('no payload made the gate throw');
});

t.test('an event template checks its payload against the kind\'s payload schema, as the raw door does', async (t) => {
  const tpl = (id: string) => registry.resolve(id)!;
  const cases: [string, Record<string, unknown>, [string, string][]][] = [
    ['evidence.attach.v1', { note: '' }, [['schema_violation', '/payload/note']]],
    ['evidence.attach.v1', { note: 'Run log', colour: 'red' }, [['schema_violation', '/payload/colour']]],
  ];
  for (const [id, payload, codes] of cases) {
    const body = { ...clone(FILLED[id]), payload };
    t.same(codesAt(gate(tpl(id), body, true)), codes, `${id} ${JSON.stringify(payload)}`);
    t.same(codesAt(gate(tpl(id), body)), [], `${id}: without the schema registry only the rules run`);
  }
  t.same(codesAt(gate(tpl('evidence.attach.v1'), { ...clone(FILLED['evidence.attach.v1']), kind: 'session.bound', payload: { note: '' } }, true)), [['invalid_value', '/kind']], 'another kind: the kind is the finding, not its payload');
});

t.test('schema findings fold in without repeating a rule finding', async (t) => {
  const unknown = gate(closeout, closeoutWith({ surprise: 1 }), true);
  t.same([unknown.missing_fields, codesAt(unknown)], [['surprise'], [['schema_violation', '/surprise']]]);
  t.same(gate(closeout, closeoutWith({ surprise: 1 })).ok, true, 'the schema is the only thing that knows members');
  const badHash = gate(closeout, closeoutWith({ evidence_refs: [{ ...EVIDENCE_REF, sha256: 'ABC' }] }), true);
  t.same([badHash.missing_fields, codesAt(badHash)], [['evidence_refs'], [['schema_violation', '/evidence_refs/0/sha256']]]);
  const missing = gate(closeout, closeoutWith({ context_lines: undefined }), true);
  t.same(codesAt(missing), [['missing', '/context_lines']]);
  const short = gate(closeout, closeoutWith({ context_lines: ['Too short to count'] }), true);
  t.same(codesAt(short), [['too_short', '/context_lines/0']]);
});

t.test('other templates: required members, placeholder values, template-specific rules', async (t) => {
  const tpl = (id: string) => registry.resolve(id)!;
  const cases: [string, Record<string, unknown>, [string, string][], string[]][] = [
    ['task.create.v1', { title: undefined }, [['missing', '/title']], ['title']],
    ['task.create.v1', { title: 'TBD' }, [['placeholder_text', '/title']], ['title']],
    ['task.create.v1', { title: '<describe the task in one line>' }, [['placeholder_text', '/title']], ['title']],
    ['task.create.v1', { title: 'Add example config for the docs' }, [], []],
    ['task.create.v1', { title: 'Todo list sync for the mobile app' }, [], []],
    ['task.create.v1', { title: 'TODO: name this task' }, [['placeholder_text', '/title']], ['title']],
    ['task.create.v1', { labels: ['search', 'todo', 'examples', 'none'] }, [], []],
    ['task.create.v1', { labels: ['search', ' '] }, [['blank', '/labels/1']], ['labels']],
    ['task.create.v1', { labels: ['<label of the area>'] }, [['placeholder_text', '/labels/0']], ['labels']],
    ['checkpoint.write.v1', { progress: 'TODO' }, [['placeholder_text', '/progress']], ['progress']],
    ['checkpoint.write.v1', { progress: 'Replaced the <select> with a combobox' }, [['placeholder_text', '/progress']], ['progress']],
    ['checkpoint.write.v1', { progress: 'Replaced the `<select>` with a combobox' }, [], []],
    ['checkpoint.write.v1', { blockers: ['none'] }, [['placeholder_text', '/blockers/0']], ['blockers']],
    ['task.create.v1', { session_id: '' }, [['blank', '/session_id']], ['session_id']],
    ['checkpoint.write.v1', { progress: 'n/a' }, [['placeholder_text', '/progress']], ['progress']],
    ['checkpoint.write.v1', { evidence_refs: [{ artifact_id: 'x' }] }, [['evidence_unbound', '/evidence_refs/0']], ['evidence_refs']],
    ['evidence.attach.v1', { kind: 'task.created' }, [['invalid_value', '/kind']], ['kind']],
    ['evidence.attach.v1', { evidence_refs: [] }, [['missing', '/evidence_refs']], ['evidence_refs']],
    ['evidence.attach.v1', { payload: 'note' }, [['wrong_type', '/payload']], ['payload']],
    ['evidence.attach.v1', { payload: { note: '<describe what this evidence shows>' } }, [['placeholder_text', '/payload/note']], ['payload']],
    ['search.agent_history.v1', { q: undefined }, [['missing', '/q']], ['q']],
    ['search.agent_history.v1', { limit: '20' }, [['wrong_type', '/limit']], ['limit']],
    ['risk.evaluate.v1', { risk_inputs: { autonomy: 1 } }, [
      ['missing', '/risk_inputs/data_sensitivity'], ['missing', '/risk_inputs/decision_impact'],
      ['missing', '/risk_inputs/vendor_maturity'], ['missing', '/risk_inputs/prohibited_practice'],
    ], ['risk_inputs.data_sensitivity', 'risk_inputs.decision_impact', 'risk_inputs.vendor_maturity', 'risk_inputs.prohibited_practice']],
    ['session.bind.v1', { principal: { type: 'user' } }, [['missing', '/principal/id']], ['principal.id']],
    ['session.bind.v1', { agent: '<agent name and version>' }, [['placeholder_text', '/agent']], ['agent']],
    ['session.bind.v1', { transport: 'http from 10.0.0.1' }, [['schema_violation', '/transport']], ['transport']],
    ['session.bind.v1', { principal: { type: 'user', id: '192.168.0.9' } }, [['schema_violation', '/principal/id']], ['principal']],
    ['session.bind.v1', { ip: '192.168.0.9' }, [], []],
    ['proof_packet.assemble.v1', { task_ids: [] }, [['missing', '/task_ids']], ['task_ids']],
  ];
  for (const [id, change, codes, missing] of cases) {
    const payload: Record<string, unknown> = { ...clone(FILLED[id]), ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete payload[k];
    const r = gate(tpl(id), payload);
    t.same([codesAt(r), r.missing_fields], [codes, missing], `${id} ${JSON.stringify(change)}`);
  }
  const kept = gate(tpl('proof_packet.assemble.v1'), { task_ids: ['task-search-1'], integrity_class: 'hash_bound' });
  t.same(kept.warnings.map((w) => [w.code, w.pointer]), [['safe_default_kept', '/integrity_class']], 'a preview template (served route) has no target warning');
  t.ok(gate({ ...tpl('access_log.query.v1'), status: 'target' }, clone(FILLED['access_log.query.v1'])).warnings.some((w) => w.code === 'target_template'), 'a target one has (no template is target now: a copy marked so)');
  t.notOk(gate(tpl('access_log.query.v1'), clone(FILLED['access_log.query.v1'])).warnings.some((w) => w.code === 'target_template'), 'the access-log template is preview now that its route is served');
  t.same(gate(tpl('regulatory.update.v1'), clone(FILLED['regulatory.update.v1'])).warnings.map((w) => w.code), [], 'the regulatory template is preview now that its route is served');
  t.same(gate(tpl('risk.evaluate.v1'), clone(FILLED['risk.evaluate.v1'])).warnings.map((w) => w.code), [], 'the risk template is preview now that its route is served');
});

t.test('a body of thousands of refused items is judged in time linear in its size', async (t) => {
  // Under the 1 MiB body limit fit ~100,000 one-word items. Looking up whether a place was already
  // blocked by scanning every earlier blocker made this quadratic: 8,000 items held the event loop
  // for 24 s, and these 90,000 would take many minutes. Each check must stay linear, with the lists
  // context_lines and traps compared too. No time is asserted: linear, both gates take about a
  // second here, and the test's timeout (30 times that) fails a quadratic gate.
  t.setTimeout(60_000);
  const n = 40_000;
  const checkpoint = registry.resolve('checkpoint')!;
  const { sha256: _drop, ...unbound } = EVIDENCE_REF;
  const refused = gate(checkpoint, {
    progress: 'Rounding fixed in the ledger totals',
    blockers: Array.from({ length: n }, () => 'TBD'),
    next_actions: Array.from({ length: n }, () => 'TODO'),
    evidence_refs: Array.from({ length: n / 4 }, () => unbound),
  });
  t.equal(refused.blockers.length, 2 * n + n / 4);
  t.same(refused.missing_fields, ['blockers', 'next_actions', 'evidence_refs']);
  // The prompt spells out the first problems of each field and counts the rest (every one is a blocker).
  const prompt = refused.repair_prompt[1]!;
  t.match(prompt, /^next_actions was rejected: item 0 .*; item 19 [^;]*; and 39,980 more problems of next_actions \(each is a blocker\)\. /);
  t.notMatch(prompt, /item 20 /);
  t.ok(JSON.stringify(refused.repair_prompt).length < 20_000, 'three prompts of bounded size');

  const lines = (what: string) => Array.from({ length: n / 2 }, (_, i) => `${what} ${i} of the ledger rounding fix`);
  const passed = gate(closeout, closeoutWith({ context_lines: lines('Context line'), future_agent_traps: lines('Trap line') }));
  t.equal(passed.ok, true);
});

t.test('a member path longer than 1,024 characters: one blocker at the root, nothing judged under it', async (t) => {
  // Each blocker carries its pointer: under a 100,000-character name, 2,000 refused items made a
  // 401 MB answer (and names past ~16K characters defeat the string hashing of blocked places).
  const key = 'k'.repeat(100_000);
  const refused = gate(closeout, { [key]: Array.from({ length: 2_000 }, () => '<a>') });
  t.equal(refused.ok, false);
  t.equal(refused.blockers.length, 1);
  t.match(refused.blockers[0], { code: 'schema_violation', field: '$', pointer: '' });
  t.equal(refused.blockers[0]!.detail, `holds a member whose path is longer than 1,024 characters (/${'k'.repeat(63)}…); no template takes member names that long, so the body was not judged further: send the template's own members`);
  t.ok(JSON.stringify(refused).length < 2_000, 'the answer stays small');

  // Long in depth too: the path counts every level, escapes included (~1 and ~0 are two characters each).
  const nested = (depth: number, name: string): Record<string, unknown> => (depth === 0 ? { leaf: '<a>' } : { [name]: nested(depth - 1, name) });
  const at = (payload: Record<string, unknown>) => gate(closeout, closeoutWith(payload));
  // "/extra", then n levels of "/aaaaaaaa~1" (11 characters each), then "/leaf": 11 + 11n characters.
  const judged = at({ extra: nested(92, 'aaaaaaaa/') });
  t.notMatch(judged.blockers.map((b) => b.detail).join('\n'), /longer than 1,024/, 'a 1,023-character path is judged');
  t.ok(judged.blockers.some((b) => b.pointer.endsWith('/leaf') && b.code === 'placeholder_text'), 'down to its leaf');
  t.match(at({ extra: nested(93, 'aaaaaaaa/') }).blockers, [{ pointer: '', detail: /longer than 1,024 characters \(\/extra\/aaaaaaaa~1\/aaaa/ }], 'a 1,034-character path is not');
});
