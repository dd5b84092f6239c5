import { existsSync, writeFileSync } from 'node:fs';
import { RULES_VERSION } from '../../src/core/rules-version.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/core/errors.js';
import { error, warning } from '../../src/core/finding.js';
import { unchecked, verdictFrom } from '../../src/core/verdict.js';
import { FORMAT_VERSION } from '../../src/store/migrations.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { StoreError } from '../../src/store/store-errors.js';
import { meta, thrown } from './store-fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const NOT_UTF8 = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('RecordingWriter → RecordingReader round trip', () => {
  it('stores and returns every field of the recording, exchanges, messages and findings', () => {
    const file = join(tmp.dir, 'nested', 'deeper', 'session.sqlite');
    const writer = RecordingWriter.open(file, meta());
    expect(writer.file).toBe(file);

    const http = writer.beginExchange({
      transport: 'http',
      protocol: 'pi-rest',
      method: 'POST',
      path: '/v1/session/agent-a',
      query: 'x=1&y=2',
      url: 'http://127.0.0.1:4000/v1/session/agent-a?x=1&y=2',
      requestHeaders: { 'content-type': 'application/json', 'x-multi': ['a', 'b'] },
      tOffsetMs: 1.25,
    });
    const ws = writer.beginExchange({ transport: 'ws', url: 'ws://127.0.0.1:4000/rpc', subprotocol: 'pi.v1', tOffsetMs: 2 });
    const stdio = writer.beginExchange({ transport: 'stdio', protocol: 'acp', tOffsetMs: 3 });
    const open = writer.beginExchange({ transport: 'sse', tOffsetMs: 4 });
    expect([http, ws, stdio, open]).toEqual([1, 2, 3, 4]);

    writer.updateExchange(http, { status: 422, responseHeaders: { 'content-type': 'application/json' } });
    // Undefined fields keep what is stored.
    writer.updateExchange(http, { protocol: 'pi-rest' });

    const badFindings = [error('schema.required', '/name', 'name is required'), warning('schema.extra', '/x', 'x is not in the schema')];
    // Interleave exchanges: seq counts per exchange.
    const m1 = writer.addMessage({
      exchangeId: http, sender: 'client', carrier: 'body', tOffsetMs: 1.5,
      raw: Buffer.from('{"hello":"wörld"}'), json: { hello: 'wörld' },
      verdict: verdictFrom([], 'https://a.skh.am/pi-daemon/session-api.schema.json#/$defs/CreateSession'),
    });
    const m2 = writer.addMessage({
      exchangeId: ws, sender: 'server', carrier: 'frame', channel: 'binary', tOffsetMs: 2.5,
      raw: NOT_UTF8, verdict: unchecked('no schema for binary frames'),
    });
    const m3 = writer.addMessage({
      exchangeId: http, sender: 'server', carrier: 'body', tOffsetMs: 10.125,
      raw: Buffer.from('{"x":1}'), json: { x: 1 }, verdict: verdictFrom(badFindings, 'https://example.test/schema.json#/$defs/Error'),
    });
    const m4 = writer.addMessage({
      exchangeId: ws, sender: 'client', carrier: 'frame', channel: 'text', tOffsetMs: 3,
      raw: Buffer.from('null'), json: null, verdict: verdictFrom([]), rawTruncatedFrom: 1_048_576,
    });
    const m5 = writer.addMessage({
      exchangeId: stdio, sender: 'server', carrier: 'line', channel: 'stderr', tOffsetMs: 4, raw: new Uint8Array(0), verdict: unchecked('stderr is not checked'),
    });
    expect([m1, m2, m3, m4, m5]).toEqual([1, 2, 3, 4, 5]);

    writer.endExchange(http, { outcome: 'complete', tOffsetMs: 11 });
    writer.endExchange(ws, { outcome: 'aborted', tOffsetMs: 20, closeCode: 1006, closeReason: 'gone' });
    writer.endExchange(stdio, { outcome: 'error', tOffsetMs: 30, errorCode: 'ECONNRESET', errorMessage: 'read ECONNRESET', exitCode: 1, signal: 'SIGTERM' });

    expect(writer.totals).toEqual({ exchanges: 4, messages: 5, invalid: 1, findings: 2 });
    const endedAt = new Date('2026-01-02T03:05:00.000Z');
    writer.close(endedAt);

    const reader = RecordingReader.open(file);
    try {
      expect(reader.recording()).toEqual({
        formatVersion: FORMAT_VERSION,
        toolVersion: '0.1.0-test',
        target: 'http://127.0.0.1:4000',
        listen: '127.0.0.1:8080',
        mode: 'record',
        startedAt: '2026-01-02T03:04:05.678Z',
        endedAt: '2026-01-02T03:05:00.000Z',
        schemaHashes: { 'https://ag-ui.com/spec/draft/schema.json': 'sha256:abc' },
        // The writer stores the rules its verdicts were made by: this build's.
        rulesVersion: RULES_VERSION,
      });
      expect(reader.totals()).toEqual({ exchanges: 4, messages: 5, invalid: 1, findings: 2 });

      const exchanges = reader.exchanges();
      expect(exchanges.map((e) => e.id)).toEqual([1, 2, 3, 4]);
      expect(exchanges[0]).toEqual({
        id: 1, transport: 'http', protocol: 'pi-rest', method: 'POST', path: '/v1/session/agent-a', query: 'x=1&y=2',
        url: 'http://127.0.0.1:4000/v1/session/agent-a?x=1&y=2', status: 422, subprotocol: null,
        requestHeaders: { 'content-type': 'application/json', 'x-multi': ['a', 'b'] },
        responseHeaders: { 'content-type': 'application/json' },
        startedMs: 1.25, endedMs: 11, outcome: 'complete', errorCode: null, errorMessage: null,
        closeCode: null, closeReason: null, exitCode: null, signal: null, tls: null, protocolEvidence: null, stdinEndedMs: null, tunnel: null, messageCount: 2, invalidCount: 1, uncheckedCount: 0,
      });
      expect(exchanges[1]).toMatchObject({ transport: 'ws', subprotocol: 'pi.v1', outcome: 'aborted', closeCode: 1006, closeReason: 'gone', messageCount: 2, invalidCount: 0, requestHeaders: null });
      expect(exchanges[2]).toMatchObject({ transport: 'stdio', protocol: 'acp', outcome: 'error', errorCode: 'ECONNRESET', errorMessage: 'read ECONNRESET', exitCode: 1, signal: 'SIGTERM', messageCount: 1, uncheckedCount: 1 });
      expect(exchanges[3]).toMatchObject({ transport: 'sse', outcome: null, endedMs: null, messageCount: 0 });
      expect(reader.exchange(2)).toEqual(exchanges[1]);
      expect(reader.exchange(999)).toBeUndefined();

      const httpMessages = reader.messages(http);
      expect(httpMessages.map((m) => [m.id, m.seq])).toEqual([[1, 1], [3, 2]]);
      expect(httpMessages[0]).toEqual({
        id: 1, exchangeId: 1, seq: 1, sender: 'client', carrier: 'body', channel: null, tOffsetMs: 1.5,
        raw: Buffer.from('{"hello":"wörld"}'), rawTruncatedFrom: null, json: { hello: 'wörld' },
        verdict: { status: 'valid', schemaRef: 'https://a.skh.am/pi-daemon/session-api.schema.json#/$defs/CreateSession', findings: [] },
      });
      expect(httpMessages[1].verdict).toEqual({ status: 'invalid', schemaRef: 'https://example.test/schema.json#/$defs/Error', findings: badFindings });
      expect(httpMessages[1].tOffsetMs).toBe(10.125);

      const wsMessages = reader.messages(ws);
      expect(wsMessages.map((m) => [m.id, m.seq])).toEqual([[2, 1], [4, 2]]);
      expect(Buffer.isBuffer(wsMessages[0].raw)).toBe(true);
      expect(new Uint8Array(wsMessages[0].raw)).toEqual(NOT_UTF8);
      expect(wsMessages[0].json).toBeUndefined();
      expect('json' in wsMessages[0] && wsMessages[0].json === undefined).toBe(true);
      expect(wsMessages[0].verdict).toEqual({ status: 'unchecked', reason: 'no schema for binary frames', findings: [] });
      expect(wsMessages[0].channel).toBe('binary');
      expect(wsMessages[1].json).toBeNull();
      expect(wsMessages[1].rawTruncatedFrom).toBe(1_048_576);

      const stdioMessages = reader.messages(stdio);
      expect(stdioMessages[0].raw.length).toBe(0);
      expect(stdioMessages[0].channel).toBe('stderr');
      expect(reader.messages(open)).toEqual([]);

      const invalid = reader.invalidMessages();
      expect(invalid.map((m) => m.id)).toEqual([3]);
      expect(invalid[0].verdict.findings).toEqual(badFindings);
    } finally {
      reader.close();
    }
  });

  it('leaves one self-contained file: WAL checkpointed and the journal back to DELETE', () => {
    const file = join(tmp.dir, 'one.sqlite');
    const writer = RecordingWriter.open(file, meta());
    writer.beginExchange({ transport: 'http', tOffsetMs: 0 });
    writer.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });

  it('omits absent optional recording fields and keeps totals exact when findings flip a message', () => {
    const file = join(tmp.dir, 'import.sqlite');
    const writer = RecordingWriter.open(file, meta({ target: undefined, listen: undefined, mode: 'import', schemaHashes: {} }));
    const ex = writer.beginExchange({ transport: 'ndjson', tOffsetMs: 0 });
    const id = writer.addMessage({ exchangeId: ex, sender: 'client', carrier: 'line', tOffsetMs: 0, raw: Buffer.from('{}'), json: {}, verdict: verdictFrom([]) });
    const bad = error('stream.order', '', 'out of order');
    writer.addFindings(id, ex, [bad], verdictFrom([bad]));
    writer.addFindings(id, ex, [bad], verdictFrom([bad, bad]));
    expect(writer.totals).toEqual({ exchanges: 1, messages: 1, invalid: 1, findings: 2 });
    writer.close();
    const reader = RecordingReader.open(file);
    const info = reader.recording();
    expect(info).not.toHaveProperty('target');
    expect(info).not.toHaveProperty('listen');
    expect(info.mode).toBe('import');
    expect(info.schemaHashes).toEqual({});
    expect(reader.totals()).toEqual({ exchanges: 1, messages: 1, invalid: 1, findings: 2 });
    reader.close();
  });
});

describe('RecordingReader while the recording grows', () => {
  it('reads the schema ref of a message written after it read the refs it knew', () => {
    const file = join(tmp.dir, 'growing.sqlite');
    const writer = RecordingWriter.open(file, meta());
    const ex = writer.beginExchange({ transport: 'ws', tOffsetMs: 0 });
    const message = (ref: string) => ({ exchangeId: ex, sender: 'server' as const, carrier: 'frame' as const, tOffsetMs: 1, raw: Buffer.from('{}'), json: {}, verdict: verdictFrom([], ref) });
    writer.addMessage(message('https://example.test/a.json#/$defs/First'));
    writer.flush();
    const reader = RecordingReader.open(file);
    try {
      expect(reader.messages(ex).map((m) => m.verdict.schemaRef)).toEqual(['https://example.test/a.json#/$defs/First']);
      writer.addMessage(message('https://example.test/a.json#/$defs/Second'));
      writer.addMessage(message('https://example.test/a.json#/$defs/First'));
      writer.flush();
      expect([...reader.messagesInOrder()].map((m) => m.verdict.schemaRef)).toEqual([
        'https://example.test/a.json#/$defs/First',
        'https://example.test/a.json#/$defs/Second',
        'https://example.test/a.json#/$defs/First',
      ]);
    } finally {
      reader.close();
      writer.close();
    }
  });
});

describe('RecordingWriter refusals', () => {
  it('refuses an existing non-empty file with E_STORE_EXISTS unless overwrite', () => {
    const file = join(tmp.dir, 'taken.sqlite');
    writeFileSync(file, 'precious');
    const err = thrown(() => RecordingWriter.open(file, meta()));
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toBeInstanceOf(ProxyError);
    expect((err as StoreError).code).toBe('E_STORE_EXISTS');
    expect((err as StoreError).file).toBe(file);

    const writer = RecordingWriter.open(file, meta(), { overwrite: true });
    writer.close();
    const reader = RecordingReader.open(file);
    expect(reader.totals().exchanges).toBe(0);
    reader.close();
  });

  it('accepts an existing empty (0-byte) file', () => {
    const file = join(tmp.dir, 'empty.sqlite');
    writeFileSync(file, '');
    RecordingWriter.open(file, meta()).close();
    const reader = RecordingReader.open(file);
    expect(reader.recording().toolVersion).toBe('0.1.0-test');
    reader.close();
  });

  it('throws E_STORE_STATE on unknown ids and after close; close is idempotent', () => {
    const writer = RecordingWriter.open(join(tmp.dir, 'state.sqlite'), meta());
    const ex = writer.beginExchange({ transport: 'http', tOffsetMs: 0 });
    const verdict = verdictFrom([]);
    expect((thrown(() => writer.addMessage({ exchangeId: 42, sender: 'client', carrier: 'body', tOffsetMs: 0, raw: Buffer.alloc(0), verdict })) as StoreError).code).toBe('E_STORE_STATE');
    expect((thrown(() => writer.updateExchange(42, { status: 200 })) as StoreError).code).toBe('E_STORE_STATE');
    expect((thrown(() => writer.endExchange(42, { outcome: 'complete', tOffsetMs: 1 })) as StoreError).code).toBe('E_STORE_STATE');
    expect((thrown(() => writer.addFindings(7, ex, [], verdict)) as StoreError).code).toBe('E_STORE_STATE');
    writer.close();
    writer.close();
    expect((thrown(() => writer.beginExchange({ transport: 'http', tOffsetMs: 0 })) as StoreError).code).toBe('E_STORE_STATE');
    expect((thrown(() => writer.flush()) as StoreError).code).toBe('E_STORE_STATE');
  });

  it('copies raw bytes at enqueue time, so a reused caller buffer does not change the recording', () => {
    const file = join(tmp.dir, 'copy.sqlite');
    const writer = RecordingWriter.open(file, meta());
    const ex = writer.beginExchange({ transport: 'ws', tOffsetMs: 0 });
    const buf = Buffer.from('first');
    writer.addMessage({ exchangeId: ex, sender: 'client', carrier: 'frame', tOffsetMs: 0, raw: buf, verdict: verdictFrom([]) });
    buf.write('XXXXX');
    // A plain Uint8Array too, which the writer sees through a Buffer of its own over the same memory.
    const bytes = new Uint8Array(Buffer.from('second'));
    writer.addMessage({ exchangeId: ex, sender: 'client', carrier: 'frame', tOffsetMs: 1, raw: bytes, verdict: verdictFrom([]) });
    bytes.fill(0x58);
    writer.close();
    const reader = RecordingReader.open(file);
    expect(reader.messages(ex).map((m) => m.raw.toString())).toEqual(['first', 'second']);
    reader.close();
  });
});
