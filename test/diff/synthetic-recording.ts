/**
 * Small recordings made by the test itself, in the NDJSON import form (`proxy export --format
 * ndjson`): exchanges of JSON messages, each marked valid, with no proxy or agent behind them.
 */
import { writeFileSync } from 'node:fs';
import { scratch } from '../support/temp-dir.js';

export interface SyntheticMessage {
  sender: 'client' | 'server';
  /** The message's JSON, or a RawText when it is not JSON (such as a line of stderr). */
  json: unknown;
  carrier?: 'body' | 'event' | 'frame' | 'line';
  channel?: string;
}

/** A message that is not JSON: its raw text. */
export class RawText {
  constructor(readonly text: string) {}
}

export interface SyntheticExchange {
  transport?: 'http' | 'sse' | 'ws' | 'stdio' | 'ndjson';
  protocol?: string;
  method?: string;
  path?: string;
  subprotocol?: string;
  status?: number;
  query?: string;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  closeReason?: string;
  messages: SyntheticMessage[];
}

/** Writes the exchanges as an NDJSON recording in a fresh temp dir; returns its path. */
export function writeRecording(exchanges: SyntheticExchange[], name = 'rec.ndjson'): string {
  const file = scratch('agent-proxy-diff-synth-').file(name);
  const lines: unknown[] = [{ type: 'recording', format: 'agent-proxy/ndjson', version: 1, toolVersion: '0.1.0', mode: 'record', startedAt: '2026-12-01T00:00:00.000Z' }];
  exchanges.forEach((e, i) => {
    const id = i + 1;
    const ws = (e.transport ?? 'ws') === 'ws';
    const overHttp = ws || e.transport === 'http' || e.transport === 'sse';
    lines.push({
      type: 'exchange',
      id,
      transport: e.transport ?? 'ws',
      protocol: e.protocol ?? null,
      method: e.method ?? (overHttp ? 'GET' : null),
      path: e.path ?? (overHttp ? '/rpc' : null),
      query: e.query ?? null,
      status: e.status ?? (ws ? 101 : null),
      subprotocol: e.subprotocol ?? null,
      requestHeaders: e.requestHeaders ?? null,
      responseHeaders: e.responseHeaders ?? null,
      closeCode: e.closeReason === undefined ? null : 1000,
      closeReason: e.closeReason ?? null,
      startedMs: id,
      endedMs: id + 0.5,
      outcome: 'complete',
    });
    e.messages.forEach((m, j) =>
      lines.push({
        type: 'message',
        exchange: id,
        seq: j + 1,
        sender: m.sender,
        carrier: m.carrier ?? (ws ? 'frame' : overHttp ? 'body' : 'line'),
        channel: m.channel ?? null,
        tOffsetMs: id + j / 1000,
        ...(m.json instanceof RawText ? { raw: m.json.text } : { raw: JSON.stringify(m.json), json: m.json }),
        verdict: { status: 'valid', findings: [] },
      }),
    );
  });
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}
