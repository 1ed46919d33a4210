// The preview's forge data set (docs/quota.md §4): checked (schema, then references), replaced by
// the operator as one forge.data.replaced event, and loaded at start from --forge-data FILE or, on
// a store that has none yet, from fixtures/forge/default.json.
import { readFileSync } from 'node:fs';
import { canonicalJson, type Json } from '../../domain/canonical-json.ts';
import { quotaEvent, QUOTA_KINDS, type ForgeDataSource, type QuotaEventDraft } from '../../domain/quota/quota-events.ts';
import { validateForgeData, type ForgeData } from '../../domain/quota/usage.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { SchemaRegistry } from '../../schema-registry.ts';
import type { QuotaContext } from './quota-context.ts';
import { checkedInput, schemaProblems } from './schema-check.ts';

const SCHEMA = 'quota/forge-data.json';

/** A data set sent to PUT /admin/forge/data: a bad shape or an unknown reference is a 400 naming it. */
export function checkForgeData(registry: SchemaRegistry, body: unknown): ForgeData {
  const { shape } = schemaProblems(registry, SCHEMA, body);
  if (shape.length > 0) {
    const first = shape[0]!;
    throw new AppError('forge_data_invalid', `The forge data is not valid: ${first.pointer || '(root)'} ${first.detail}. Fix it and send the whole data set again.`, { details: shape });
  }
  validateForgeData(body as ForgeData);
  return body as ForgeData;
}

/** A forge data file: any problem is AppError `bad_input_file` naming the file, pointer and line:column. */
export function parseForgeDataText(text: string, fileName: string, registry: SchemaRegistry): ForgeData {
  const input = checkedInput(registry, SCHEMA, text, fileName);
  try {
    validateForgeData(input.value as ForgeData);
  } catch (err) {
    if (isAppError(err) && err.details !== undefined && err.details.length > 0) input.fail(err.details);
    throw err;
  }
  return input.value as ForgeData;
}

export function readForgeDataFile(path: string, registry: SchemaRegistry): ForgeData {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new AppError('bad_input_file', `${path}: cannot be read (${why}). Check the --forge-data path and start again.`, { cause: err, extra: { file: path } });
  }
  return parseForgeDataText(text, path, registry);
}

/** Replaces the whole data set; memberships and rules are kept (they name users, not rows). */
export async function replaceForgeData(ctx: QuotaContext, body: unknown, source: ForgeDataSource = 'api'): Promise<void> {
  const data = checkForgeData(ctx.deps.registry, body);
  await ctx.write(() => ({ events: [quotaEvent(QUOTA_KINDS.forgeDataReplaced, { data, source })], result: undefined }));
}

export type EnsureOutcome = 'loaded_file' | 'unchanged' | 'loaded_fixture' | 'kept';

/**
 * At preview start: a data set given with --forge-data is recorded unless the store already holds
 * exactly that data; without one, a store that has no forge data yet gets the bundled fixture.
 */
export async function ensureForgeData(
  ctx: QuotaContext,
  data: ForgeData | null,
  /** The bundled data set (the composition root knows where fixtures/ is). */
  loadDefault: () => ForgeData,
): Promise<EnsureOutcome> {
  const deps = ctx.deps;
  return ctx.write((): { events: QuotaEventDraft[]; result: EnsureOutcome } => {
    const current = ctx.q.forgeData();
    if (data !== null) {
      const checked = checkForgeData(deps.registry, data);
      if (current !== null && canonicalJson(current.data as Json) === canonicalJson(checked as Json)) return { events: [], result: 'unchanged' };
      return { events: [quotaEvent(QUOTA_KINDS.forgeDataReplaced, { data: checked, source: 'file' })], result: 'loaded_file' };
    }
    if (current !== null) return { events: [], result: 'kept' };
    return { events: [quotaEvent(QUOTA_KINDS.forgeDataReplaced, { data: checkForgeData(deps.registry, loadDefault()), source: 'fixture' })], result: 'loaded_fixture' };
  });
}
