// `npm run gen:types`: writes the committed TypeScript types of the contract (scripts/gen-types/
// generate.ts says which and from what). `--check` writes nothing and exits 1 while a committed file
// differs, as test/contract/generated-types.test.ts fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GEN_COMMAND, ROOT, generateContractTypes } from './gen-types/generate.ts';

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  const stale: string[] = [];
  for (const file of await generateContractTypes()) {
    const path = join(ROOT, file.path);
    let current: string | null = null;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = null;
    }
    if (current === file.text) continue;
    stale.push(file.path);
    if (!check) writeFileSync(path, file.text);
  }
  if (check && stale.length > 0) {
    process.stderr.write(`Out of date: ${stale.join(', ')}. Run \`${GEN_COMMAND}\` and commit the result.\n`);
    return 1;
  }
  process.stderr.write(stale.length === 0 ? 'Generated types are current.\n' : `${check ? 'Stale' : 'Wrote'}: ${stale.join(', ')}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
