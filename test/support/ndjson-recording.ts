/**
 * Small recordings written by hand in the NDJSON export form, for tests that need a given set of
 * exchanges without a stand-in to record them from. Every field the importer checks is filled in.
 */

export interface HandMessage {
  sender: 'client' | 'server';
  carrier?: 'body' | 'event' | 'frame' | 'line';
  channel?: string | null;
  /** The message: JSON (serialized as its raw bytes) or raw text. */
  json?: unknown;
  raw?: string;
  status?: 'valid' | 'invalid' | 'unchecked';
  findings?: Array<{ rule: string; severity: 'error' | 'warning'; pointer: string; message: string }>;
}

export interface HandExchange {
  transport: 'http' | 'sse' | 'proto' | 'ws' | 'stdio' | 'ndjson';
  protocol: string | null;
  method?: string;
  path?: string;
  query?: string;
  status?: number;
  subprotocol?: string;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  closeCode?: number;
  messages: HandMessage[];
}

/** The NDJSON text of a recording holding `exchanges`, numbered from 1, each 10 ms after the last. */
export function ndjsonRecording(exchanges: readonly HandExchange[]): string {
  const lines: unknown[] = [
    { type: 'recording', format: 'agent-proxy/ndjson', version: 1, toolVersion: '0.1.0', target: 'http://127.0.0.1:1', listen: null, mode: 'record', startedAt: '2026-12-01T00:00:00.000Z', endedAt: '2026-12-01T00:00:10.000Z', schemaHashes: {} },
  ];
  exchanges.forEach((e, index) => {
    const id = index + 1;
    const startedMs = id * 10;
    lines.push({
      type: 'exchange',
      id,
      transport: e.transport,
      protocol: e.protocol,
      method: e.method ?? null,
      path: e.path ?? null,
      query: e.query ?? null,
      url: e.path === undefined ? null : e.path + (e.query ? `?${e.query}` : ''),
      status: e.status ?? null,
      subprotocol: e.subprotocol ?? null,
      requestHeaders: e.requestHeaders ?? {},
      responseHeaders: e.responseHeaders ?? {},
      startedMs,
      endedMs: startedMs + 5,
      outcome: 'complete',
      errorCode: null,
      errorMessage: null,
      closeCode: e.closeCode ?? null,
      closeReason: e.closeCode === undefined ? null : '',
      exitCode: null,
      signal: null,
    });
    e.messages.forEach((m, i) => {
      const findings = m.findings ?? [];
      const carrier = m.carrier ?? (e.transport === 'ws' ? 'frame' : e.transport === 'sse' && m.sender === 'server' ? 'event' : 'body');
      lines.push({
        type: 'message',
        exchange: id,
        seq: i + 1,
        sender: m.sender,
        carrier,
        channel: m.channel ?? (e.transport === 'ws' ? 'text' : null),
        tOffsetMs: startedMs + 1 + i * 0.1,
        // An SSE event is stored with its framing.
        raw: m.raw ?? (carrier === 'event' ? `data: ${JSON.stringify(m.json)}\n\n` : JSON.stringify(m.json)),
        rawTruncatedFrom: null,
        json: m.json ?? null,
        verdict: { status: m.status ?? (findings.some((f) => f.severity === 'error') ? 'invalid' : 'valid'), schemaRef: null, reason: null, findings },
      });
    });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
