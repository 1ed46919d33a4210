// `gov packet verify FILE`: offline with --keys (plus the task timelines and the receipt, when the
// packet has one), or online against a running preview's POST /v1/signatures/verify. Both run the
// one verifier of src/domain/packet-verify.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '../../client/client.ts';
import { parseTokenFile } from '../../client/credentials.ts';
import type { StoredEvent } from '../../domain/event.ts';
import { MAX_CANONICAL_NESTING } from '../../domain/canonical-json.ts';
import { findTooDeep } from '../../domain/json-depth.ts';
import { findDuplicateMember } from '../../domain/json-duplicates.ts';
import { loadSchemas } from '../../deps.ts';
import { isRecord } from '../../domain/gate-context.ts';
import { verifyPacket, type PacketVerification, type Receipt, type VerifyKey } from '../../domain/packet-verify.ts';
import { notCurrent, type LatestIssue } from '../../domain/proof-packet.ts';
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

type Packet = Record<string, unknown> & { tenant_id: string; workspace_id: string; project_id: string; task_ids: string[]; integrity?: { receipt_id?: string; packet_sha256?: string } };

export async function packetVerify(file: string, options: PacketVerifyOptions, io: CliIo): Promise<CommandResult> {
  const packet = readJson(file, 'packet') as Packet;
  if (packet === null || typeof packet !== 'object' || Array.isArray(packet)) throw new AppError('bad_input_file', `${file} does not hold a JSON object; give the file of one Proof Packet.`);
  if (options.keys && (options.baseUrl || options.tokenFile)) {
    throw new AppError('usage_error', 'Give either --keys (offline) or --base-url/--token-file (online), not both.');
  }
  const mode = options.keys ? 'offline' : 'online';
  const { result, latest } = mode === 'offline' ? { result: verifyOffline(file, packet, options), latest: undefined } : await verifyOnline(packet, options, io);
  const status = typeof packet.packet_status === 'string' ? packet.packet_status : null;
  const refusal = currentRefusal(packet, status, latest);
  const json = { mode, status, ...(latest !== undefined ? { latest_status: latest?.packet_status ?? null } : {}), current: refusal === null, ...result };
  const text = `${renderChecks(mode, result, refusal !== null)}${renderStatus(status, latest)}${refusal ? `REFUSED: ${refusal}\n` : ''}`;
  return { exitCode: result.ok && refusal === null ? 0 : 1, json, text };
}

/** The refusal that makes a verified file exit 1 when it is not a current packet (notCurrent). */
function currentRefusal(packet: Packet, status: string | null, latest: LatestIssue | undefined): string | null {
  const id = String(packet.packet_id);
  const own = packet.integrity?.packet_sha256 ?? null;
  switch (notCurrent({ packet_status: status, packet_sha256: own }, latest)) {
    case null: return null;
    case 'revoked': return `packet ${id} is revoked; its integrity may verify, but it is not a current packet and must not be relied on.`;
    case 'revoked_since': return `packet ${id} has been revoked at the preview (its latest issue, ${latest?.packet_sha256 ?? 'unknown hash'}, is revoked); this file is not a current packet and must not be relied on.`;
    case 'not_issued': return `the preview has no packet ${id} in this scope; this file was not issued there, so it cannot be current.`;
    case 'not_latest': return `packet ${id} is not the preview's latest issue of it (this file: ${String(own)}; latest: ${latest?.packet_sha256 ?? 'unknown hash'}, ${latest?.packet_status ?? 'unknown status'}): an earlier issue or a body the preview did not issue; fetch GET /v1/proof-packets/${id} for the current one.`;
  }
}

function renderStatus(status: string | null, latest: LatestIssue | undefined): string {
  const online = latest === undefined ? '' : latest === null ? '; the server has no issue of this packet_id' : `; latest issue at the server: ${latest.packet_status ?? 'unknown'}`;
  return `  status       ${status ?? 'unknown'}${online}\n`;
}

function verifyOffline(file: string, packet: Packet, options: PacketVerifyOptions): PacketVerification {
  // As the online verification does (its request schema): a file that is no Proof Packet v1 is refused
  // before any check, never reported verified for the members it happens to hold.
  const problems = loadSchemas().validate('api/proof-packet.json', packet);
  if (problems.length > 0) {
    throw new AppError('bad_input_file', `${file} is not a Proof Packet v1 (schemas/api/proof-packet.json): ${problems.slice(0, 5).map((p) => `${p.pointer || '/'} ${p.detail}`).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}.`, { details: problems });
  }
  const keysFile = readJson(options.keys!, 'keys') as { keys?: VerifyKey[] };
  if (!Array.isArray(keysFile?.keys)) throw new AppError('bad_input_file', `${options.keys} is not a keys document ({"keys": [...]}, as GET /v1/keys answers).`);
  // No --timeline: the hash chain is not checked (skipped). Timelines given are all there is.
  const events: StoredEvent[] | undefined = options.timeline?.flatMap((path) => {
    const doc = readJson(path, 'timeline') as { events?: StoredEvent[] } | StoredEvent[];
    const list = Array.isArray(doc) ? doc : doc?.events;
    if (!Array.isArray(list)) throw new AppError('bad_input_file', `--timeline ${path} is not a timeline (GET /v1/tasks/{id}/timeline answer, or an array of events).`, { extra: { file: path } });
    return list;
  });
  const receipt = options.receipt ? receiptOf(options.receipt) : undefined;
  const logKey = keysFile.keys.find((k) => k.alg === 'ed25519');
  return verifyPacket({
    packet,
    ...(events ? { events } : {}),
    keys: keysFile.keys,
    ...(receipt ? { receipt } : {}),
    ...(logKey ? { log: { publicKey: logKey.public_key_pem } } : {}),
  });
}

async function verifyOnline(packet: Packet, options: PacketVerifyOptions, io: CliIo): Promise<{ result: PacketVerification; latest: LatestIssue }> {
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
  // The packet_id's latest issue: a status change re-issues the packet under the same id.
  let latest: LatestIssue = null;
  if (typeof packet.packet_id === 'string') {
    const issue = await client.forward('GET /v1/proof-packets/{packet_id}', { params: { packet_id: packet.packet_id } });
    if (issue.status === 200 && isRecord(issue.body)) {
      const integrity: Record<string, unknown> = isRecord(issue.body.integrity) ? issue.body.integrity : {};
      latest = {
        packet_status: typeof issue.body.packet_status === 'string' ? issue.body.packet_status : null,
        packet_sha256: typeof integrity.packet_sha256 === 'string' ? integrity.packet_sha256 : null,
      };
    } else if (issue.status !== 404) {
      throw new AppError('api_error', `The preview at ${baseUrl} did not answer the packet's latest issue (${issue.status}).`);
    }
  }
  return { result: res.body, latest };
}

/**
 * The --receipt file, refused as bad input (as a wrong --timeline is) when it lacks a receipt's
 * members: another document there is the caller's mistake, not a receipt that fails its check.
 * Only the shape is asked; a receipt with wrong values is the receipt check's to fail.
 */
function receiptOf(path: string): Receipt {
  const doc = readJson(path, 'receipt') as Record<string, unknown> | null;
  const shaped = typeof doc === 'object' && doc !== null && !Array.isArray(doc)
    && typeof doc.receipt_id === 'string' && typeof doc.packet_sha256 === 'string' && typeof doc.event === 'object' && doc.event !== null
    && typeof doc.log_index === 'number' && Array.isArray(doc.inclusion_proof) && typeof doc.checkpoint === 'string';
  if (!shaped) {
    throw new AppError('bad_input_file', `--receipt ${path} is not a receipt (GET /v1/receipts/{id} answer: receipt_id, packet_sha256, event, log_index, inclusion_proof, checkpoint).`, { extra: { file: path } });
  }
  return doc as unknown as Receipt;
}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the ${what} file ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check the path and run the command again.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_input_file', `The ${what} file ${path} is not valid JSON (${(err as Error).message}); give the file as the API answered it, saved unchanged.`);
  }
  // A member named twice reads differently in other JSON readers (JSON.parse keeps the last): a
  // file that means two things is refused, not verified as one of them. (Deeper than canonical
  // JSON allows, it is refused when it is canonicalized.)
  const duplicate = findTooDeep(value, MAX_CANONICAL_NESTING) === null ? findDuplicateMember(text, value) : null;
  if (duplicate !== null) {
    throw new AppError('bad_input_file', `The ${what} file ${path} names the member ${JSON.stringify(duplicate.name)} twice in one object (at ${duplicate.pointer}); readers disagree on which one counts, so it is not verified. The API never answers such a file: get the ${what} again.`);
  }
  return value;
}

function renderChecks(mode: string, result: PacketVerification, refused: boolean): string {
  const lines = Object.entries(result.checks).map(([name, check]) => `  ${name.padEnd(12)} ${check.status.padEnd(8)} ${check.code ? `${check.code}: ` : ''}${check.detail}`);
  // Verified says what was checked: without a timeline the events behind hash_chain_root were not,
  // without the receipt of a receipted packet its place in the log was not.
  const notChecked = [
    ...(result.checks.hash_chain.status === 'skipped' ? ['its hash chain: no timeline was given (--timeline FILE, per task)'] : []),
    ...(result.checks.receipt.status === 'skipped' && result.checks.receipt.detail.includes('was not given') ? ['its receipt: no receipt was given (--receipt FILE)'] : []),
  ];
  const unchecked = result.ok && notChecked.length > 0 ? `, but not ${notChecked.join(', nor ')}` : '';
  // An intact file that is not a current packet (revoked, or not the latest issue) is refused below:
  // its first line must not read as an acceptance.
  const headline = !result.ok ? 'packet verification FAILED' : refused ? 'packet intact but REFUSED as not current' : 'packet verified';
  return `${headline} (${mode})${unchecked}\n${lines.join('\n')}\nIntegrity proofs show the events were not changed; they do not show the work was semantically correct.\n`;
}
