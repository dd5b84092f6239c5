import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportHar } from '../../src/export/har-export.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { openRecording } from '../../src/store/open-recording.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { runBatch } from '../cli/cli-batch.js';
import { runCli } from '../cli/run-cli.js';
import { postRun } from '../record/record-helpers.js';
import { freshInput, recordAgui, recordPiSession, textScript, useCleanups } from '../diff/diff-helpers.js';
import { scratch } from '../support/temp-dir.js';
import { verdictsWrittenByHand } from '../support/agreement-pending.js';

useCleanups();

function exportText(file: string): string {
  const reader = openRecording(file);
  try {
    return exportNdjsonText(reader);
  } finally {
    reader.close();
  }
}

describe('proxy export / import: NDJSON', () => {
  it('export → import → export is byte-identical, verdicts and findings included', async () => {
    const db = await recordAgui(undefined, [{ kind: 'run' }, { kind: 'run', path: '/scenario/broken-content-before-start' }, { kind: 'health' }]);
    const first = exportText(db);
    const lines = first.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(Object.keys(lines[0])).toEqual(['type', 'format', 'version', 'toolVersion', 'target', 'listen', 'mode', 'startedAt', 'endedAt', 'schemaHashes', 'rulesVersion']);
    expect(lines.filter((l) => l.type === 'exchange')).toHaveLength(3);
    expect(lines.some((l) => l.type === 'message' && l.verdict?.status === 'invalid' && l.verdict.findings.length > 0)).toBe(true);
    // Valid events judged by the ref derived from their type carry no verdict (NDJSON version 3).
    expect(lines.some((l) => l.type === 'message' && l.verdict === undefined)).toBe(true);
    const dir = scratch('agent-proxy-export-').dir;
    const ndjson = join(dir, 'run.ndjson');
    writeFileSync(ndjson, first);
    importNdjsonFile(ndjson, join(dir, 'back.db'));
    expect(exportText(join(dir, 'back.db'))).toBe(first);
    // The CLI does the same: its three runs one after the other in one batch (the last, which writes no file, also as a process of its own).
    const [exported, imported, again] = await runBatch(
      [['export', db, '--format', 'ndjson', '--out', join(dir, 'cli.ndjson')], ['import', join(dir, 'cli.ndjson'), '--out', join(dir, 'cli.db')], ['export', join(dir, 'cli.db'), '--format', 'ndjson']],
      { real: [2] },
    );
    expect(exported.code).toBe(0);
    expect(readFileSync(join(dir, 'cli.ndjson'), 'utf8')).toBe(first);
    expect(imported.code).toBe(0);
    expect(again.stdout).toBe(first);
  });

  it('non-UTF-8 raw bytes survive as base64; an unfinished recording stays unfinished', () => {
    const dir = scratch('agent-proxy-export-').dir;
    // Verdicts set by hand (a rule `x`): not for the agreement check, nor what is made of it here.
    verdictsWrittenByHand(dir);
    const file = join(dir, 'binary.db');
    const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    const id = writer.beginExchange({ transport: 'ws', path: '/bin', method: 'GET', tOffsetMs: 1.5 });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'frame', channel: 'binary', tOffsetMs: 2.25, raw: bytes, verdict: { status: 'unchecked', reason: 'binary', findings: [] } });
    writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'frame', channel: 'text', tOffsetMs: 3, raw: Buffer.from('{"a":"é"}'), json: { a: 'é' }, verdict: { status: 'valid', findings: [{ rule: 'x', severity: 'warning', pointer: '/a', message: 'hm' }] } });
    writer.flush();
    // Simulate a crash: no close, so no ended_at and an open exchange. Copy what is on disk.
    const text = exportText(file);
    writer.close();
    expect(text).toContain('"rawBase64":"//4AgEE="');
    expect(text).toContain('"endedAt":null');
    const ndjson = join(dir, 'binary.ndjson');
    writeFileSync(ndjson, text);
    importNdjsonFile(ndjson, join(dir, 'back.db'));
    expect(exportText(join(dir, 'back.db'))).toBe(text);
    const reader = RecordingReader.open(join(dir, 'back.db'));
    try {
      expect(reader.messages(1)[0].raw.equals(bytes)).toBe(true);
      expect(reader.recording().endedAt).toBeUndefined();
      expect(reader.exchanges()[0].outcome).toBeNull();
    } finally {
      reader.close();
    }
  });

  it('a message nested too deep to walk is written as JSON.stringify writes its value, whether its text was compact or spaced', () => {
    const dir = scratch('agent-proxy-export-').dir;
    verdictsWrittenByHand(dir);
    const file = join(dir, 'deep.db');
    const writer = RecordingWriter.open(file, { toolVersion: '0.1.0', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
    const id = writer.beginExchange({ transport: 'ws', path: '/deep', method: 'GET', tOffsetMs: 0 });
    const levels = 20_000;
    const compact = `{"a":${'['.repeat(levels)}1.5${']'.repeat(levels)}}`;
    const spaced = `{ "a" : ${'[ '.repeat(levels)}1.50${' ]'.repeat(levels)} }`;
    for (const text of [compact, spaced]) {
      writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'frame', channel: 'text', tOffsetMs: 1, raw: Buffer.from(text), json: JSON.parse(text), jsonText: text, verdict: { status: 'unchecked', reason: 'deep', findings: [] } });
    }
    writer.endExchange(id, { outcome: 'complete', tOffsetMs: 2 });
    writer.close(new Date('2026-01-01T00:00:01Z'));
    const lines = exportText(file).trimEnd().split('\n');
    expect(lines.slice(-2).map((l) => l.endsWith(`"json":${compact}}`))).toEqual([true, true]);
  });

  it('show, validate, diff and replay accept an .ndjson recording', async () => {
    const db = await recordAgui(textScript(['Hello', ' there.']));
    const ndjson = scratch('agent-proxy-export-').file('golden.ndjson');
    writeFileSync(ndjson, exportText(db));
    // The three reads in one batch, without a run as a process of its own (the export test above has one).
    const [show, validate, diff] = await runBatch([['show', ndjson, '--json'], ['validate', ndjson], ['diff', db, ndjson]], { real: [] });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).exchanges).toHaveLength(1);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(/7 messages \(agui\): 7 valid/);
    expect(diff.code).toBe(0);
    // Replaying the imported .ndjson serves what the .db serves.
    const bodies: string[] = [];
    for (const recording of [db, ndjson]) {
      const replay = await startReplay({ recording, listen: 0, timing: 'none', ignore: ['/messages/*/id'] });
      try {
        const res = await postRun(`${replay.url}/agent`, {}, freshInput());
        expect(res.status).toBe(200);
        bodies.push((await res.text()).replace(/"(threadId|runId)":"[^"]*"/g, ''));
      } finally {
        await replay.close();
      }
    }
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[0]).toContain('Hello');
  });
});

describe('proxy export --format har', () => {
  it('HAR 1.2: an SSE stream is the response body; a WebSocket has _webSocketMessages', async () => {
    const sse = await recordAgui(textScript(['Hi']));
    const pi = await recordPiSession();
    for (const file of [sse, pi]) {
      const reader = openRecording(file);
      let har;
      try {
        har = exportHar(reader);
      } finally {
        reader.close();
      }
      expectHar12(har);
      if (file === sse) {
        const entry = har.log.entries[0];
        expect(entry.request).toMatchObject({ method: 'POST', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/agent$/) });
        expect(entry.request.postData?.text).toContain('"threadId"');
        expect(entry.response.content.mimeType).toBe('text/event-stream');
        expect(entry.response.content.text).toMatch(/^data: \{"type":"RUN_STARTED"/);
        expect(entry.response.content.text).toContain('data: {"type":"RUN_FINISHED"');
      } else {
        const ws = har.log.entries.find((e) => e._resourceType === 'websocket')!;
        expect(ws.request.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/session\/agent-a\/rpc\?role=controller$/);
        expect(ws.response.status).toBe(101);
        const messages = ws._webSocketMessages!;
        expect(messages.length).toBeGreaterThan(5);
        expect(messages[0]).toMatchObject({ type: 'receive', opcode: 1 });
        expect(JSON.parse(messages[0].data).kind).toBe('attach_ready');
        expect(messages.find((m) => m.type === 'send')!.data).toContain('get_state');
        expect(messages.every((m) => typeof m.time === 'number' && m.time > 1e9)).toBe(true);
        expect(har.log.entries.some((e) => e.request.url.endsWith('/v1/capabilities') && e.response.content.text?.startsWith('{'))).toBe(true);
      }
    }
    const cli = await runCli(['export', sse, '--format', 'har']);
    expect(cli.code).toBe(0);
    expectHar12(JSON.parse(cli.stdout));
  });
});

/** The required structure of HAR 1.2 (log, creator, entries and their request/response/cache/timings). */
function expectHar12(har: any): void {
  expect(har.log.version).toBe('1.2');
  expect(typeof har.log.creator.name).toBe('string');
  expect(typeof har.log.creator.version).toBe('string');
  expect(Array.isArray(har.log.entries)).toBe(true);
  for (const e of har.log.entries) {
    expect(Number.isNaN(Date.parse(e.startedDateTime))).toBe(false);
    expect(e.time).toBeGreaterThanOrEqual(0);
    for (const key of ['method', 'url', 'httpVersion']) expect(typeof e.request[key]).toBe('string');
    for (const key of ['cookies', 'headers', 'queryString']) expect(Array.isArray(e.request[key])).toBe(true);
    expect(typeof e.request.headersSize).toBe('number');
    expect(typeof e.request.bodySize).toBe('number');
    for (const h of [...e.request.headers, ...e.response.headers]) expect(h).toEqual({ name: expect.any(String), value: expect.any(String) });
    if (e.request.postData) expect(typeof e.request.postData.mimeType).toBe('string');
    expect(typeof e.response.status).toBe('number');
    expect(typeof e.response.statusText).toBe('string');
    expect(typeof e.response.httpVersion).toBe('string');
    expect(Array.isArray(e.response.cookies)).toBe(true);
    expect(typeof e.response.content.size).toBe('number');
    expect(typeof e.response.content.mimeType).toBe('string');
    expect(typeof e.response.redirectURL).toBe('string');
    expect(typeof e.response.headersSize).toBe('number');
    expect(typeof e.response.bodySize).toBe('number');
    expect(e.cache).toEqual({});
    for (const key of ['send', 'wait', 'receive']) expect(e.timings[key]).toBeGreaterThanOrEqual(0);
  }
}
