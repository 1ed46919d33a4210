// Forgejo app.ini quota settings: ENABLED, DEFAULT_GROUPS, [quota.default] TOTAL as Forgejo reads
// them (go-humanize ParseBytes units; unparsable or negative → -1), and bad lines refused.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseAppIni, parseByteSize, parseIniBool } from '../../src/domain/quota/app-ini.ts';
import { AppError } from '../../src/errors.ts';

const ini = (body: string) => parseAppIni(body, 'app.ini');

t.test('the fixture', async (t) => {
  const text = readFileSync(new URL('../../fixtures/quota/app.ini', import.meta.url), 'utf8');
  t.strictSame(parseAppIni(text, 'fixtures/quota/app.ini'), { enabled: true, defaultGroups: ['basic', 'missing-group'], defaultTotal: 1073741824, warnings: [] });
});

t.test("Forgejo's defaults when keys are absent", async (t) => {
  for (const body of ['', '[quota]\n', '[server]\nENABLED = true\nDEFAULT_GROUPS = a\n[default]\nTOTAL = 5\n']) {
    t.strictSame(ini(body), { enabled: false, defaultGroups: [], defaultTotal: -1, warnings: [] }, JSON.stringify(body));
  }
});

t.test('sizes as Forgejo reads [quota.default] TOTAL', async (t) => {
  const sizes: [string, number][] = [
    ['0', 0],
    ['1024', 1024],
    ['42MB', 42_000_000],
    ['42mb', 42_000_000],
    ['42 MB', 42_000_000],
    ['42MiB', 44_040_192],
    ['42mib', 44_040_192],
    ['42 MIB', 44_040_192],
    ['42M', 42_000_000],
    ['42Mi', 44_040_192],
    ['42.5MB', 42_500_000],
    ['42.5 MiB', 44_564_480],
    ['1k', 1000],
    ['1K', 1000],
    ['1kB', 1000],
    ['1KiB', 1024],
    ['1G', 1e9],
    ['1GiB', 1073741824],
    ['2T', 2e12],
    ['2TiB', 2199023255552],
    ['1.5', 1],
    ['7B', 7],
    ['.5KiB', 512],
    ['1,024', 1024],
    ['-1', -1],
    ['-5', -1],
    ['-5MiB', -1],
    ['', -1],
    ['lots', -1],
    ['5 JB', -1],
    ['1e3', -1],
    ['1.2.3', -1],
    ['.', -1],
    ['MiB', -1],
    ['16 EiB', -1],
    ['9007199254740992', -1],
    ['9007199254740991', 9007199254740991],
  ];
  for (const [text, bytes] of sizes) t.equal(parseByteSize(text), bytes, JSON.stringify(text));
});

t.test('booleans as the ini loader reads them', async (t) => {
  const bools: [string, boolean | undefined][] = [
    ['true', true], ['TRUE', true], ['True', true], ['1', true], ['yes', true], ['on', true], ['t', true], ['y', true],
    ['false', false], ['0', false], ['no', false], ['off', false], ['OFF', false], ['f', false],
    ['tRUE', undefined], ['enabled', undefined], ['', undefined],
  ];
  for (const [text, value] of bools) t.equal(parseIniBool(text), value, JSON.stringify(text));
});

t.test('values: quotes, inline comments, lists, last one wins', async (t) => {
  const cases: [string, { enabled: boolean; defaultGroups: string[]; defaultTotal: number }][] = [
    ['[quota]\nENABLED = true ; on\n', { enabled: true, defaultGroups: [], defaultTotal: -1 }],
    ['[quota]\nENABLED = "true"\n', { enabled: true, defaultGroups: [], defaultTotal: -1 }],
    ['[quota]\nENABLED=`yes`\n', { enabled: true, defaultGroups: [], defaultTotal: -1 }],
    ['[quota]\nENABLED = true\nENABLED = false\n', { enabled: false, defaultGroups: [], defaultTotal: -1 }],
    ['[quota]\nDEFAULT_GROUPS = a, b ,,c, a # note\n', { enabled: false, defaultGroups: ['a', 'b', 'c'], defaultTotal: -1 }],
    ['[quota]\nDEFAULT_GROUPS =\n', { enabled: false, defaultGroups: [], defaultTotal: -1 }],
    ['[quota.default]\r\nTOTAL = 1 GiB\r\n', { enabled: false, defaultGroups: [], defaultTotal: 1073741824 }],
    ['[quota.default]\nTOTAL =\n', { enabled: false, defaultGroups: [], defaultTotal: -1 }],
    ['\uFEFF# comment\n[ quota ]\n  ENABLED = on\n', { enabled: true, defaultGroups: [], defaultTotal: -1 }],
    ['[Quota]\nENABLED = true\n[quota]\nenabled = true\n', { enabled: false, defaultGroups: [], defaultTotal: -1 }],
  ];
  for (const [body, expected] of cases) {
    const { warnings: _w, ...settings } = ini(body);
    t.strictSame(settings, expected, JSON.stringify(body));
  }
});

t.test('values Forgejo would silently ignore are warned about', async (t) => {
  const s = ini('[quota]\nENABLED = maybe\n[quota.default]\nTOTAL = lots\n');
  t.strictSame({ enabled: s.enabled, defaultTotal: s.defaultTotal }, { enabled: false, defaultTotal: -1 });
  t.equal(s.warnings.length, 2);
  t.match(s.warnings[0], /^app\.ini:2: \[quota\] ENABLED/);
  t.match(s.warnings[1], /^app\.ini:4: \[quota\.default\] TOTAL/);
  t.strictSame(ini('[quota.default]\nTOTAL = -1\n').warnings, [], '-1 is a deliberate unlimited');
});

t.test('a line Forgejo cannot load is a bad_input_file naming the file and line', async (t) => {
  const bad: [string, number][] = [
    ['[quota]\nENABLED true\n', 2],
    ['[quota\nENABLED = true\n', 1],
    ['[quota]\nENABLED = true\n= value\n', 3],
  ];
  for (const [body, line] of bad) {
    try {
      ini(body);
      t.fail('accepted');
    } catch (err) {
      t.ok(err instanceof AppError);
      t.equal((err as AppError).code, 'bad_input_file');
      t.same((err as AppError).extra, { file: 'app.ini', line });
      t.match((err as AppError).message, `app.ini:${line}:`);
    }
  }
});
