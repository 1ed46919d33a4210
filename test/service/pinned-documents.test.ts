// The pinned documents a start loads (the risk policy, the vendor questionnaire): a released
// version, byte for byte as pinned, is loaded without compiling its schema (a tenth of a cold
// start); any other content is checked against the schema first, so a broken edit is refused with
// the schema's pointer, and a valid edit under a released version is refused by its pin.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { loadPolicy, loadQuestionnaire, loadSchemas, RISK_POLICY_FILE, VENDOR_QUESTIONS_FILE } from '../../src/deps.ts';
import type { AppError } from '../../src/errors.ts';
import type { SchemaRegistry } from '../../src/schema-registry.ts';

const registry: SchemaRegistry = loadSchemas();
/** The registry, counting the documents it is asked to check. */
function counting(): { registry: SchemaRegistry; asserted: string[] } {
  const asserted: string[] = [];
  const assert = ((ref: string, value: unknown, what: string, code?: never) => {
    asserted.push(ref);
    registry.assert(ref as never, value, what, code);
  }) as SchemaRegistry['assert'];
  return { registry: { ...registry, assert }, asserted };
}
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

const cases = [
  { what: 'risk policy', file: RISK_POLICY_FILE, load: loadPolicy, drop: 'bands', edit: (d: Record<string, unknown>) => ({ ...d, non_claims: [...(d.non_claims as string[]), 'One more sentence.'] }) },
  { what: 'vendor questionnaire', file: VENDOR_QUESTIONS_FILE, load: loadQuestionnaire, drop: 'questions', edit: (d: Record<string, unknown>) => ({ ...d, title: `${String(d.title)} (edited)` }) },
] as const;

for (const c of cases) {
  t.test(`the ${c.what}: released as pinned, broken, edited under its released version`, async (t) => {
    const shipped = counting();
    const loaded = c.load(shipped.registry, read(c.file));
    t.match(loaded.sha256, /^sha256:[0-9a-f]{64}$/);
    t.same(shipped.asserted, [], 'the released version is loaded without its schema');

    const broken = counting();
    const { [c.drop]: _dropped, ...rest } = read(c.file);
    const refusal = t.throws(() => c.load(broken.registry, rest)) as AppError;
    t.equal(broken.asserted.length, 1, 'anything else is checked against its schema');
    t.same([refusal.code, refusal.details?.map((d) => d.pointer)], ['bad_input_file', [`/${c.drop}`]], 'refused with the schema\'s pointer');

    const edited = counting();
    const changed = t.throws(() => c.load(edited.registry, c.edit(read(c.file)))) as AppError;
    t.equal(edited.asserted.length, 1, 'an edit is checked against the schema first');
    t.equal(changed.code, 'bad_input_file');
    t.match(changed.message, /not to its pin/, 'then refused by its pin');
  });
}
