// `gov events verify` and `gov store rebuild-index`: the offline checks and repair of a data dir.
import { existsSync, statSync } from 'node:fs';
import { resolveDataDir } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { acquireDataDirLock } from '../../store/data-dir-lock.ts';
import { indexPathOf, logPathOf, rebuildIndex, recoverTail, refuseNonFileLog } from '../../store/store.ts';
import { replayProgress, type LogExtent } from '../../store/index-db.ts';
import { refuseIndexAheadOf } from '../../store/lost-events.ts';
import { settleUnsyncedIndex } from '../../store/unsynced-index.ts';
import { verifyLog, type LogVerification } from '../../store/verify-log.ts';
import type { CliIo, CommandResult } from '../io.ts';

export function dataDirOf(option: string | undefined, io: CliIo): string {
  return resolveDataDir(option, io.env, io.cwd);
}

export function eventsVerify(options: { dataDir?: string }, io: CliIo): CommandResult {
  const dataDir = existingDataDir(options.dataDir, io);
  const progress = io.isTty ? (seq: number) => { if (seq % 50_000 === 0) io.stderr(`\rverified ${seq} events…`); } : undefined;
  const result = verifyLog(dataDir, progress);
  if (progress) io.stderr('\r');
  const { tail } = result;
  // A torn tail is what a crash leaves and start-up cuts; the log is not clean until then (exit 1).
  const torn = tail.status === 'torn' ? [`torn tail at byte ${tail.cut_at} (start-up would cut it): ${tail.detail}`] : [];
  const index = `index: ${result.index.status} (${result.index.detail})`;
  const lines = result.problem === null
    ? [
        ...torn,
        `${torn.length > 0 ? 'before it' : 'ok'}: ${chainSummary(result.event_count, result.last_seq)}`,
        `merkle root: ${result.merkle_root}`,
        index,
      ]
    : [`FAILED ${failedAt(result)}: ${result.problem}`, ...torn, `events read: ${result.event_count}`, index];
  return { exitCode: result.ok ? 0 : 1, json: result, text: `${lines.join('\n')}\n` };
}

/**
 * The data dir of a command that reads or repairs one: it must be there already (the lock's ENOENT would
 * name writer.lock, not the data dir), a usage error naming where the path came from.
 */
function existingDataDir(option: string | undefined, io: CliIo): string {
  const dataDir = dataDirOf(option, io);
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === true) return dataDir;
  const from = option !== undefined ? '--data-dir' : io.env.GOV_DATA_DIR !== undefined ? '$GOV_DATA_DIR' : 'the default data dir (no --data-dir given)';
  throw new AppError('usage_error', `The data dir ${dataDir} (${from}) does not exist or is not a directory; check the path, or start the preview once (gov preview start --data-dir) to create it.`, { extra: { data_dir: dataDir } });
}

/** What a clean log holds, said right for an empty one too. */
export function chainSummary(events: number, lastSeq: number): string {
  return events === 0 ? 'no events yet (an empty log)' : `${events} events, seq 1–${lastSeq} gapless, hash chain intact`;
}

/** Where the first finding is: the bad line's seq and byte (its seq may be unreadable: line n holds seq n), or the index's. */
function failedAt(result: LogVerification): string {
  const { first_bad_seq: seq, first_bad_offset: offset, index } = result;
  if (offset !== null) return `at seq ${seq} (byte ${offset})`;
  if (seq === null) return result.problem_code?.startsWith('index_') ? 'in the index' : 'at the end of the log';
  return result.problem_code?.startsWith('index_') && index.column !== null ? `at seq ${seq} (index ${index.column})` : `at seq ${seq}`;
}

export async function storeRebuildIndex(options: { dataDir?: string; acceptLoss?: boolean }, io: CliIo): Promise<CommandResult> {
  const dataDir = existingDataDir(options.dataDir, io);
  // As gov events verify says it (exit 3): a data dir without a log has nothing to rebuild from.
  if (!existsSync(logPathOf(dataDir))) throw new AppError('not_found', `There is no event log at ${logPathOf(dataDir)}; point --data-dir at a preview's data dir.`);
  refuseNonFileLog(logPathOf(dataDir));
  const warn = (m: string) => io.stderr(`warning: ${m}\n`);
  // The writer's lock: a running preview owns its index, so rebuilding under it is refused (exit 3).
  const lock = await acquireDataDirLock(dataDir, warn);
  try {
    const started = performance.now();
    // As start-up refuses it: an index holding events the log has lost is their last record.
    const startOver = 'to rebuild the index from the log as it is and lose those events, run gov store rebuild-index --accept-loss.';
    /** What --accept-loss gave up: the seqs only the old index held. */
    let dropped: { first_seq: number; last_seq: number } | null = null;
    // Asked before a torn tail is cut: lines the old index holds were acknowledged, and without
    // --accept-loss the log keeps them.
    let asked = false;
    const refuseLoss = (kept: LogExtent): void => {
      asked = true;
      if (options.acceptLoss !== true) {
        refuseIndexAheadOf(indexPathOf(dataDir), logPathOf(dataDir), kept, startOver);
        return;
      }
      // Asked for: say what is lost, once, before it is.
      try {
        refuseIndexAheadOf(indexPathOf(dataDir), logPathOf(dataDir), kept, startOver);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'store_corrupt') throw err;
        const { index_seq: indexed, log_seq: logged } = err.extra as { index_seq: number; log_seq: number };
        warn(`--accept-loss: the old index holds events up to seq ${indexed}, the log ends at seq ${logged}; seqs ${logged + 1}–${indexed} are dropped with the old index.`);
        dropped = { first_seq: logged + 1, last_seq: indexed };
      }
    };
    const tail = recoverTail(logPathOf(dataDir), warn, refuseLoss);
    // recoverTail asks only when it cuts something.
    if (!asked) refuseLoss(tail);
    // A fresh index replaces the old one only if every line of the log passes the replay's checks.
    const index = rebuildIndex(dataDir, tail, undefined, replayProgress(tail.seq, (line) => io.stderr(`${line}\n`)));
    const seq = index.lastSeq();
    index.close();
    // A marker left by a preview that ran unsynced speaks of the old file: this one is flushed and replaces it.
    settleUnsyncedIndex(dataDir, indexPathOf(dataDir));
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(seq / seconds) : seq;
    return { exitCode: 0, json: { rebuilt: true, events: seq, seconds, events_per_second: rate, dropped }, text: `rebuilt the index from ${seq} events in ${seconds.toFixed(2)} s (${rate} events/s)\n` };
  } finally {
    await lock.release();
  }
}
