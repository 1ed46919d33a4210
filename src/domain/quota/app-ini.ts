// Reads the quota settings of a Forgejo app.ini: [quota] ENABLED and DEFAULT_GROUPS, and
// [quota.default] TOTAL, with Forgejo's defaults (off, no default groups, unlimited total).
import { AppError } from '../../errors.ts';

export type QuotaSettings = {
  enabled: boolean;
  defaultGroups: string[];
  defaultTotal: number;
  /** Values Forgejo would silently ignore, said out loud for a dry run. */
  warnings: string[];
};

type IniValue = { value: string; line: number };

/**
 * Parses app.ini text. Section and key names are case-sensitive (as Forgejo's ini loader reads
 * them); `#` and `;` start comments, also inline; one pair of surrounding quotes (" or `) is
 * removed. A line that is neither a section, a comment nor `KEY = VALUE` makes Forgejo refuse to
 * start, so it is an AppError `bad_input_file` naming the file and line.
 */
export function parseAppIni(text: string, fileName: string): QuotaSettings {
  const sections = readIni(text, fileName);
  const get = (section: string, key: string) => sections.get(section)?.get(key);
  const warnings: string[] = [];

  const enabledRaw = get('quota', 'ENABLED');
  let enabled = false;
  if (enabledRaw !== undefined) {
    const parsed = parseIniBool(enabledRaw.value);
    if (parsed === undefined) {
      warnings.push(`${fileName}:${enabledRaw.line}: [quota] ENABLED = "${enabledRaw.value}" is not a boolean; Forgejo keeps quota disabled`);
    } else enabled = parsed;
  }

  const groupsRaw = get('quota', 'DEFAULT_GROUPS');
  const defaultGroups = groupsRaw === undefined ? [] : [...new Set(groupsRaw.value.split(',').map((s) => s.trim()).filter((s) => s !== ''))];

  const totalRaw = get('quota.default', 'TOTAL');
  let defaultTotal = -1;
  if (totalRaw !== undefined && totalRaw.value !== '') {
    defaultTotal = parseByteSize(totalRaw.value);
    if (defaultTotal === -1 && totalRaw.value !== '-1') {
      warnings.push(`${fileName}:${totalRaw.line}: [quota.default] TOTAL = "${totalRaw.value}" is not a byte size; Forgejo treats it as unlimited (-1)`);
    }
  }
  return { enabled, defaultGroups, defaultTotal, warnings };
}

// go-ini's boolean spellings (strconv-like plus yes/no/on/off).
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True', 'y', 'Y', 'yes', 'YES', 'Yes', 'on', 'ON', 'On']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False', 'n', 'N', 'no', 'NO', 'No', 'off', 'OFF', 'Off']);

export function parseIniBool(value: string): boolean | undefined {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}

// go-humanize's ParseBytes table, which Forgejo's mustBytes uses: case-insensitive, optional "B",
// k/M/G/T/P/E decimal and Ki/Mi/Gi/Ti/Pi/Ei binary.
const UNITS: Record<string, number> = { '': 1, b: 1 };
['k', 'm', 'g', 't', 'p', 'e'].forEach((prefix, i) => {
  UNITS[prefix] = UNITS[`${prefix}b`] = 1000 ** (i + 1);
  UNITS[`${prefix}i`] = UNITS[`${prefix}ib`] = 1024 ** (i + 1);
});

/**
 * A byte size as Forgejo reads [quota.default] TOTAL: a decimal number (fractions allowed) and an
 * optional unit, space between allowed. "-1", anything unparsable and anything negative give -1.
 * Forgejo also gives -1 above 2^63−1; here the bound is 2^53−1, the largest exact limit.
 */
export function parseByteSize(value: string): number {
  let split = 0;
  while (split < value.length && '0123456789.,'.includes(value[split]!)) split++;
  const digits = value.slice(0, split).replace(/,/g, '');
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(digits)) return -1;
  const unit = UNITS[value.slice(split).trim().toLowerCase()];
  if (unit === undefined) return -1;
  const bytes = Math.trunc(Number(digits) * unit);
  return Number.isSafeInteger(bytes) ? bytes : -1;
}

function readIni(text: string, fileName: string): Map<string, Map<string, IniValue>> {
  const sections = new Map<string, Map<string, IniValue>>();
  let current = 'DEFAULT';
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    const lineNo = index + 1;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    if (line.startsWith('[')) {
      const end = line.indexOf(']');
      if (end < 0) throw badIni(fileName, lineNo, 'a section header has no closing "]"');
      current = line.slice(1, end).trim();
      return;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw badIni(fileName, lineNo, 'expected KEY = VALUE, a [section] or a comment');
    const name = line.slice(0, eq).trim();
    const section = sections.get(current) ?? new Map<string, IniValue>();
    sections.set(current, section);
    section.set(name, { value: iniValue(line.slice(eq + 1).trim()), line: lineNo }); // last one wins
  });
  return sections;
}

function iniValue(raw: string): string {
  for (const q of ['"""', '"', '`']) {
    if (raw.startsWith(q)) {
      const end = raw.indexOf(q, q.length);
      if (end >= 0) return raw.slice(q.length, end);
    }
  }
  const comment = raw.search(/[#;]/);
  return (comment >= 0 ? raw.slice(0, comment) : raw).trim();
}

function badIni(fileName: string, line: number, reason: string): AppError {
  return new AppError('bad_input_file', `${fileName}:${line}: ${reason}. Fix the line and run the command again.`, {
    details: [{ pointer: '', detail: reason }],
    extra: { file: fileName, line },
  });
}
