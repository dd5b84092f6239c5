/**
 * Shared plumbing for the `proxy replay` tests: record a stand-in through the proxy (inline
 * pipeline), serve the recording with startReplay, record the replay again, and compare recordings.
 * Real servers on 127.0.0.1 port 0, SQLite files in temp dirs; everything is cleaned up per test.
 */
import { expect } from 'vitest';
import { onCleanup } from '../support/cleanups.js';
import { startRecorder, type RecorderOptions, type RunningRecorder } from '../../src/record/start-recorder.js';
import { startReplay, type ReplayOptions, type RunningReplay } from '../../src/replay/start-replay.js';
import { startMissRecorder } from '../../src/record/start-miss-recorder.js';
import type { ReplayMiss, ServedExchange } from '../../src/replay/replay-context.js';
import { RecordingReader, type MessageRow } from '../../src/store/recording-reader.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';

export { onCleanup, useCleanups } from '../support/cleanups.js';

export interface Recording {
  recorder: RunningRecorder;
  url: string;
  out: string;
  /** Stops the recorder (idempotent) and opens the file. */
  finish(): Promise<RecordingReader>;
}

/** `proxy record` in-process toward `target`, inline pipeline, into a temp file. */
export async function record(target: string, options: Partial<RecorderOptions> = {}): Promise<Recording> {
  const out = scratch().file('recording.db');
  const recorder = await startRecorder({ target, listen: 0, out, registry: bareRegistry(), pipeline: 'inline', ...options });
  let reader: RecordingReader | undefined;
  onCleanup(async () => {
    reader?.close();
    await recorder.close();
  });
  return {
    recorder,
    url: recorder.url,
    out,
    async finish() {
      await recorder.close();
      reader ??= RecordingReader.open(out);
      return reader;
    },
  };
}

export interface Replay extends RunningReplay {
  served: ServedExchange[];
  missed: ReplayMiss[];
}

/** startReplay on a free port with timing none unless told otherwise, misses passed through by record; collects its log. */
export async function replay(recording: string, options: Partial<ReplayOptions> = {}): Promise<Replay> {
  const served: ServedExchange[] = [];
  const missed: ReplayMiss[] = [];
  const running = await startReplay({
    recording,
    listen: 0,
    timing: 'none',
    log: { served: (e) => served.push(e), miss: (m) => missed.push(m) },
    ...options,
  }, startMissRecorder);
  onCleanup(() => running.close().then(() => undefined));
  return Object.assign(running, { served, missed });
}

/** A message as the round-trip comparison sees it: order, side, kind, parsed value, verdict. */
export function comparable(m: MessageRow): unknown {
  return { seq: m.seq, sender: m.sender, carrier: m.carrier, channel: m.channel, json: m.json, status: m.verdict.status, findings: m.verdict.findings.map((f) => f.rule) };
}

/**
 * Asserts two recordings hold the same exchanges and messages in the same order with the same
 * verdicts; `ids` maps values of the first to the values the second must have instead
 * (the substituted ids), and nothing else may differ.
 */
export function expectSameRecording(a: RecordingReader, b: RecordingReader, ids: Record<string, string> = {}): void {
  const ea = a.exchanges();
  const eb = b.exchanges();
  const shape = (e: (typeof ea)[number]) => [e.transport, e.protocol, e.method, e.path, e.query, e.status, e.outcome, e.messageCount, e.invalidCount];
  expect(eb.map(shape)).toEqual(ea.map(shape));
  for (let i = 0; i < ea.length; i++) {
    const expected = a.messages(ea[i].id).map((m) => rewrite(comparable(m), ids));
    expect(b.messages(eb[i].id).map(comparable), `exchange ${ea[i].id}`).toEqual(expected);
  }
}

/** A deep copy of a JSON value with whole string values replaced per `ids`. */
export function rewrite(value: unknown, ids: Record<string, string>): unknown {
  if (typeof value === 'string') return Object.hasOwn(ids, value) ? ids[value] : value;
  if (Array.isArray(value)) return value.map((v) => rewrite(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, ids)]));
  return value;
}

