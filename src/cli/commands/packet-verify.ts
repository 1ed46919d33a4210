// `gov packet verify FILE`: offline with --keys (plus the task timelines and the receipt, when the
// packet has one), or online against a running preview's POST /v1/signatures/verify. Both run the
// one verifier of src/domain/packet-verify.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '../../client/client.ts';
import { parseTokenFile } from '../../client/credentials.ts';
import type { StoredEvent } from '../../domain/event.ts';
import { isRecord } from '../../domain/gate-context.ts';
import { verifyPacket, type PacketVerification, type Receipt, type VerifyKey } from '../../domain/packet-verify.ts';
import { AppError } from '../../errors.ts';
import type { CliIo, CommandResult } from '../io.ts';
import { dataDirOf } from './store.ts';

export type PacketVerifyOptions = {
  baseUrl?: string;
  tokenFile?: string;
  keys?: string;
  timeline?: string[];
  receipt?: string;
  dataDir?: string;
};

type Packet = Record<string, unknown> & { tenant_id: string; workspace_id: string; project_id: string; task_ids: string[]; integrity?: { receipt_id?: string } };

export async function packetVerify(file: string, options: PacketVerifyOptions, io: CliIo): Promise<CommandResult> {
  const packet = readJson(file, 'packet') as Packet;
  if (packet === null || typeof packet !== 'object' || Array.isArray(packet)) throw new AppError('bad_input_file', `${file} does not hold a JSON object; give the file of one Proof Packet.`);
  if (options.keys && (options.baseUrl || options.tokenFile)) {
    throw new AppError('usage_error', 'Give either --keys (offline) or --base-url/--token-file (online), not both.');
  }
  const mode = options.keys ? 'offline' : 'online';
  const result = mode === 'offline' ? verifyOffline(packet, options) : await verifyOnline(packet, options, io);
  return { exitCode: result.ok ? 0 : 1, json: { mode, ...result }, text: renderChecks(mode, result) };
}

function verifyOffline(packet: Packet, options: PacketVerifyOptions): PacketVerification {
  const keysFile = readJson(options.keys!, 'keys') as { keys?: VerifyKey[] };
  if (!Array.isArray(keysFile?.keys)) throw new AppError('bad_input_file', `${options.keys} is not a keys document ({"keys": [...]}, as GET /v1/keys answers).`);
  const events: StoredEvent[] = (options.timeline ?? []).flatMap((path) => {
    const doc = readJson(path, 'timeline') as { events?: StoredEvent[] } | StoredEvent[];
    const list = Array.isArray(doc) ? doc : doc?.events;
    if (!Array.isArray(list)) throw new AppError('bad_input_file', `${path} is not a timeline (GET /v1/tasks/{id}/timeline answer, or an array of events).`);
    return list;
  });
  const receipt = options.receipt ? (readJson(options.receipt, 'receipt') as Receipt) : undefined;
  const logKey = keysFile.keys.find((k) => k.alg === 'ed25519');
  return verifyPacket({
    packet,
    events,
    keys: keysFile.keys,
    ...(receipt ? { receipt } : {}),
    ...(logKey ? { log: { publicKey: logKey.public_key_pem } } : {}),
  });
}

async function verifyOnline(packet: Packet, options: PacketVerifyOptions, io: CliIo): Promise<PacketVerification> {
  let token = io.env.GOV_TOKEN ?? null;
  let baseUrl = options.baseUrl ?? io.env.GOV_BASE_URL ?? null;
  const tokenFile = options.tokenFile ?? (token ? undefined : join(dataDirOf(options.dataDir, io), 'run.json'));
  if (tokenFile) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8');
    } catch {
      throw new AppError('usage_error', `No credentials: ${tokenFile} cannot be read. Pass --keys FILE to verify offline, or --base-url and --token-file for a running preview.`);
    }
    const creds = parseTokenFile(text, tokenFile);
    token = creds.token;
    baseUrl ??= creds.baseUrl;
  }
  if (!baseUrl) throw new AppError('usage_error', 'No base URL: pass --base-url URL (or set GOV_BASE_URL).');
  const client = createClient({ baseUrl, token, scope: { tenant_id: packet.tenant_id, workspace_id: packet.workspace_id, project_id: packet.project_id } });
  // The file's packet as it is: the API checks it against the packet schema (422 when it is not one).
  const res = await client.forward('POST /v1/signatures/verify', { body: { packet } });
  if (res.status !== 200) {
    const detail = isRecord(res.body) ? `${String(res.body.code ?? '')} ${String(res.body.detail ?? '')}`.trim() : String(res.body);
    throw new AppError(res.status === 422 ? 'bad_input_file' : 'api_error', `The preview at ${baseUrl} refused the verification (${res.status} ${detail}).`);
  }
  return res.body;
}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_input_file', `The ${what} file ${path} is not valid JSON: ${(err as Error).message}.`);
  }
}

function renderChecks(mode: string, result: PacketVerification): string {
  const lines = Object.entries(result.checks).map(([name, check]) => `  ${name.padEnd(12)} ${check.status.padEnd(8)} ${check.code ? `${check.code}: ` : ''}${check.detail}`);
  return `${result.ok ? 'packet verified' : 'packet verification FAILED'} (${mode})\n${lines.join('\n')}\nIntegrity proofs show the events were not changed; they do not show the work was semantically correct.\n`;
}
