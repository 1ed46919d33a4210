// The input files of `gov quota eval` (docs/quota.md §6): each is checked by its schema
// (schemas/cli/quota-policy.json, quota-usage.json), then by the domain's checks that compare one
// part of the file with another. Any problem is AppError `bad_input_file` naming the file, the JSON
// pointer and its line:column.
import { readPolicy, type PolicyJson, type QuotaPolicy } from '../../domain/quota/policy-file.ts';
import { readUsage, type UsageFile, type UsageJson } from '../../domain/quota/usage-file.ts';
import type { SchemaRegistry } from '../../schema-registry.ts';
import { checkedInput } from './schema-check.ts';

export function parsePolicyFile(registry: SchemaRegistry, text: string, fileName: string): QuotaPolicy {
  const input = checkedInput(registry, 'cli/quota-policy.json', text, fileName);
  return readPolicy(input.value as PolicyJson, input.fail);
}

export function parseUsageFile(registry: SchemaRegistry, text: string, fileName: string): UsageFile {
  const input = checkedInput(registry, 'cli/quota-usage.json', text, fileName);
  return readUsage(input.value as UsageJson, input.fail);
}
