// Smart templates as data (seed "Smart template", contract §7): every file is schema-valid, every id
// and alias resolves, nothing prefills `verified`, and the registry refuses collisions.
import t from 'tap';
import { createTemplateRegistry, type SmartTemplate } from '../../src/domain/templates.ts';
import { normaliseText } from '../../src/domain/placeholder-text.ts';
import {
  clone, FILLED, LIVE_IDS, loadTemplateFiles, TARGET_IDS, testSchemas, testTemplates,
} from '../fixtures/templates.ts';

const files = loadTemplateFiles();
const templates = files.map((f) => f.template);
const schemas = testSchemas();
const registry = testTemplates();

t.test('every template file validates against api/template.json and is named after its id', async (t) => {
  t.equal(files.length, LIVE_IDS.length + TARGET_IDS.length);
  for (const { file, template } of files) {
    t.same(schemas.validate('api/template.json', template), [], file);
    t.equal(file, `${template.template_id}.json`);
  }
  t.same(schemas.validate('api/template-list.json', { templates: registry.list() }), []);
});

t.test('the five seed templates are live, the others preview or target', async (t) => {
  // TARGET_IDS are the templates the contract calls target until their routes exist; which of them
  // are preview (route served) is derived in test/server/route-classes.test.ts.
  const status = (s: string) => templates.filter((x) => x.status === s).map((x) => x.template_id).sort();
  t.same(status('live'), [...LIVE_IDS].sort());
  t.same([...status('preview'), ...status('target')].sort(), [...TARGET_IDS].sort());
});

t.test('routes and interactions of the seed table', async (t) => {
  const cases: [string, string, string, string][] = [
    ['search.agent_history.v1', 'Search', 'GET', '/v1/search'],
    ['task.create.v1', 'New task', 'POST', '/v1/tasks'],
    ['checkpoint.write.v1', 'Update', 'POST', '/v1/tasks/{task_id}/checkpoints'],
    ['evidence.attach.v1', 'Evidence', 'POST', '/v1/events'],
    ['task_closeout.v1', 'Closeout', 'POST', '/v1/tasks/{task_id}/closeout'],
  ];
  for (const [id, interaction, method, path] of cases) {
    const tpl = registry.resolve(id);
    t.equal(tpl?.interaction, interaction, id);
    t.same(tpl?.route, { method, path }, id);
  }
});

t.test('the closeout aliases are exactly the seed', async (t) => {
  t.same(registry.resolve('task_closeout.v1')?.aliases, ['task.closeout.v1', 'task-closeout', 'task_closeout', 'closeout']);
});

t.test('resolve: by id and by every alias; unknown names are undefined', async (t) => {
  for (const tpl of templates) {
    for (const name of [tpl.template_id, ...tpl.aliases]) t.equal(registry.resolve(name)?.template_id, tpl.template_id, name);
  }
  for (const name of ['', 'nope', 'Task_Closeout.v1', 'closeout ', 'task_closeout.v2', 'toString', '__proto__']) {
    t.equal(registry.resolve(name), undefined, JSON.stringify(name));
  }
  t.equal(registry.list().length, templates.length);
});

t.test('no starter payload, safe default or example prefills verified', async (t) => {
  let confidences = 0;
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}/${i}`));
    if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        if (/confidence/i.test(key)) {
          confidences++;
          t.not(v, 'verified', `${path}/${key}`);
        }
        walk(v, `${path}/${key}`);
      }
      return;
    }
    if (typeof value === 'string') t.not(value.trim().toLowerCase(), 'verified', path);
  };
  for (const tpl of templates) {
    walk(tpl.starter_payload, `${tpl.template_id}/starter_payload`);
    walk(tpl.safe_defaults, `${tpl.template_id}/safe_defaults`);
    walk(tpl.examples ?? [], `${tpl.template_id}/examples`);
  }
  // The walk must have met confidences, or it proved nothing.
  t.ok(confidences >= 8, `${confidences} confidence members seen`);
  const closeout = registry.resolve('closeout')!;
  t.equal(closeout.safe_defaults['evidence_refs[].confidence'], 'claimed');
});

t.test('every starter payload carries obvious <...> placeholder text', async (t) => {
  for (const tpl of templates) t.match(JSON.stringify(tpl.starter_payload), /<[a-z][^<>]*>/, tpl.template_id);
});

t.test('request schemas exist; starters have the body shape; examples are schema-valid', async (t) => {
  const shapeErrors = /unknown member|required member|^must be (string|array|object|integer|number|boolean)$/;
  for (const tpl of templates.filter((x) => x.request_schema !== undefined)) {
    const ref = tpl.request_schema!;
    t.ok(schemas.has(ref), `${tpl.template_id} → ${ref}`);
    const starter = schemas.validate(ref, tpl.starter_payload).filter((e) => shapeErrors.test(e.detail));
    t.same(starter, [], `${tpl.template_id} starter shape`);
    for (const ex of tpl.examples ?? []) t.same(schemas.validate(ref, ex.payload), [], `${tpl.template_id}: ${ex.description}`);
    const filled = FILLED[tpl.template_id];
    if (filled) t.same(schemas.validate(ref, filled), [], `${tpl.template_id} filled`);
  }
  for (const id of ['task.create.v1', 'checkpoint.write.v1', 'task_closeout.v1', 'evidence.attach.v1']) {
    t.ok(registry.resolve(id)?.request_schema, `${id} names its request schema`);
  }
});

t.test('copySources holds the normalised starter and example text of every template', async (t) => {
  const closeout = registry.resolve('closeout')!;
  const line = closeout.examples![0]!.payload.context_lines as string[];
  t.ok(registry.copySources.has(normaliseText(line[0]!)));
  const checkpoint = registry.resolve('checkpoint.write.v1')!;
  t.ok(registry.copySources.has(normaliseText((checkpoint.starter_payload.context_lines as string[])[0]!)));
  t.notOk(registry.copySources.has(''));
});

t.test('templates handed out are frozen copies', async (t) => {
  const input = clone(templates);
  const own = createTemplateRegistry(input);
  const tpl = own.resolve('closeout')!;
  t.throws(() => (tpl.aliases as string[]).push('mine'));
  input[0]!.template_id = 'changed-after';
  t.equal(own.resolve('changed-after'), undefined);
});

t.test('construction refuses collisions and prefilled verified', async (t) => {
  const base = (): SmartTemplate[] => clone(templates);
  const byId = (list: SmartTemplate[], id: string) => list.find((x) => x.template_id === id)!;
  const cases: [string, (list: SmartTemplate[]) => void, string][] = [
    ['duplicate template id', (l) => l.push(clone(byId(l, 'task.create.v1'))), 'template_name_collision'],
    ['alias equals another id', (l) => byId(l, 'task.create.v1').aliases.push('task_closeout.v1'), 'template_name_collision'],
    ['alias equals another alias', (l) => byId(l, 'task.create.v1').aliases.push('closeout'), 'template_name_collision'],
    ['alias equals its own id', (l) => byId(l, 'task.create.v1').aliases.push('task.create.v1'), 'template_name_collision'],
    ['verified in a starter', (l) => ((byId(l, 'checkpoint.write.v1').starter_payload.evidence_refs as unknown[]).push({ confidence: 'verified' })), 'template_prefills_verified'],
    ['verified safe default', (l) => { byId(l, 'task_closeout.v1').safe_defaults['evidence_refs[].confidence'] = 'verified'; }, 'template_prefills_verified'],
    ['verified in an example', (l) => { byId(l, 'task_closeout.v1').examples![0]!.payload.outcome = 'Verified'; }, 'template_prefills_verified'],
  ];
  t.doesNotThrow(() => createTemplateRegistry(base()));
  for (const [name, breakIt, code] of cases) {
    const list = base();
    breakIt(list);
    t.throws(() => createTemplateRegistry(list), { name: 'AppError', code }, name);
  }
});
