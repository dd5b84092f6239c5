import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { judgedByCurrentRules, RULES_VERSION } from '../core/rules-version.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import { openRecording } from '../store/open-recording.js';
import { RecordingReader } from '../store/recording-reader.js';
import { StoreError } from '../store/store-errors.js';
import { copyRecording, rewriteVerdicts, type RewrittenVerdict } from '../store/verdict-rewrite.js';
import { recordingInput } from './recording-input.js';
import { validateInput } from './validate-input.js';

/** Above this many messages, judging again takes long enough to say so on a terminal. */
const LONG_JUDGING_MESSAGES = 20_000;

export interface CurrentVerdictOptions {
  /** The schemas to judge with again; loaded only when a recording needs it. */
  registry: () => SchemaRegistry;
  /** Where the progress line goes: written to only when it is a terminal and the recording is long. */
  progress?: NodeJS.WriteStream;
}

/**
 * Opens a recording for reading with verdicts of this build's rules. A recording judged by the
 * current rules (RULES_VERSION) is read as stored, at no cost. One judged by older rules, or made
 * before the version was stored, is judged again by validate's pipeline (the one record judges with),
 * into a scratch copy that the returned reader reads and deletes when closed: the user's file is
 * never written to by a command that only reads it. The inspector reads through this; `show` and
 * `findings` open the recording first and load this only when it is needed (judgeAgainIfOlder).
 */
export function openWithCurrentVerdicts(file: string, options: CurrentVerdictOptions): RecordingReader {
  return judgeAgainIfOlder(openRecording(file), file, options);
}

/** The reader itself when its verdicts are the current rules'; else a reader of a re-judged scratch copy (and `reader` is closed). */
export function judgeAgainIfOlder(reader: RecordingReader, file: string, options: CurrentVerdictOptions): RecordingReader {
  const version = reader.recording().rulesVersion ?? 0;
  if (judgedByCurrentRules(reader.recording())) return reader;
  const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-rejudged-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    const copy = join(dir, 'recording.db');
    try {
      const messages = reader.totals().messages;
      if (messages > LONG_JUDGING_MESSAGES && options.progress?.isTTY) {
        const made = version === 0 ? 'before rules versions were stored' : `with rules version ${version}`;
        options.progress.write(`agent-proxy: judging ${file} again with the current rules (${messages} messages; it was judged ${made})…\n`);
      }
      copyRecording(reader.file, copy);
    } finally {
      reader.close();
    }
    const report = validateInput(recordingInput(copy), options.registry());
    const verdicts: RewrittenVerdict[] = [];
    for (const m of report.messages) if (m.exchange !== undefined && m.seq !== undefined) verdicts.push({ exchange: m.exchange, seq: m.seq, verdict: m.verdict });
    rewriteVerdicts(copy, verdicts, RULES_VERSION);
    const judged = RecordingReader.open(copy);
    const close = judged.close.bind(judged);
    judged.close = () => {
      close();
      cleanup();
      process.off('exit', cleanup);
    };
    return judged;
  } catch (error) {
    cleanup();
    process.off('exit', cleanup);
    throw namingTheFile(error, dir, resolve(file));
  }
}

/** A store error about the scratch copy is about the user's file: it names that one. */
function namingTheFile(error: unknown, dir: string, file: string): unknown {
  if (!(error instanceof StoreError) || !error.message.includes(dir)) return error;
  const copy = join(dir, 'recording.db');
  return new StoreError(error.code, file, error.message.split(copy).join(file), { cause: error });
}
