/**
 * What any recording sink must do, whichever pipeline runs it (in the style of Polly.JS's persister
 * tests): one suite, run against each sink by recording-sink.test.ts. It drives the RecordingSink
 * interface as capture code does, and reads back the real SQLite file the sink wrote.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingClock } from '../../src/core/recording-clock.js';
import type { OpenedRecordingSink, RecordingSinkOptions } from '../../src/record/open-recording-sink.js';
import type { RecordingSink } from '../../src/record/pipeline/recording-sink.js';
import { RecordingReader, type MessageRow } from '../../src/store/recording-reader.js';
import { tempDir } from '../support/temp-dir.js';

/** Opens a sink of the kind under test; the suite supplies everything but the pipeline. */
export type OpenSink = (options: Omit<RecordingSinkOptions, 'pipeline'>) => Promise<OpenedRecordingSink>;

/** Messages over this are stored truncated, unjudged: small, so that the suite need not send megabytes. */
const MAX_BODY_BYTES = 256;

const command = (id: string, extra: Record<string, unknown> = {}) => `${JSON.stringify({ id, type: 'get_state', ...extra })}\n`;

export function describeRecordingSinkContract(name: string, openSink: OpenSink): void {
  describe(`recording sink contract: ${name}`, () => {
    const undo: Array<() => void> = [];
    afterEach(() => {
      while (undo.length > 0) undo.pop()!();
    });

    /** A sink recording Pi RPC into a new file in a temp dir, ready to record. */
    async function open(options: Partial<RecordingSinkOptions> = {}): Promise<{ sink: RecordingSink; out: string }> {
      const dir = tempDir('agent-proxy-sink-');
      undo.push(() => dir.cleanup());
      const out = dir.file('contract.db');
      const opened = await openSink({ out, target: 'contract-target', clock: new RecordingClock(), protocol: 'pi-rpc', maxBodyBytes: MAX_BODY_BYTES, ...options });
      await opened.ready;
      return { sink: opened.sink, out };
    }

    function read(out: string): RecordingReader {
      const reader = RecordingReader.open(out);
      undo.push(() => reader.close());
      return reader;
    }

    const texts = (rows: MessageRow[]) => rows.map((m) => m.raw.toString());

    it('starts an exchange opened later at the time it was given (a CONNECT recorded once its first bytes came)', async () => {
      const { sink, out } = await open();
      const exchange = sink.openExchange({ transport: 'tunnel', method: 'CONNECT', path: 'h:443', url: 'h:443' }, 0);
      exchange.end({ outcome: 'complete', tunnel: { clientBytes: 0, serverBytes: 0 } });
      const later = sink.now();
      await sink.close(new Date());
      const [row] = read(out).exchanges();
      expect(row.startedMs).toBe(0);
      expect(row.endedMs).toBeGreaterThan(0);
      expect(row.endedMs).toBeLessThanOrEqual(later);
    });

    it('writes every exchange and message with its verdict and findings, each in the order it was captured', async () => {
      const { sink, out } = await open();
      const lines = sink.openExchange({ transport: 'stdio', url: 'agent --mode rpc' });
      const body = sink.openExchange({ transport: 'http', method: 'POST', path: '/rpc' });
      const frames = sink.openExchange({ transport: 'ws', method: 'GET', path: '/v1/session/s/rpc' });
      const stdin = lines.tap({ kind: 'lines', sender: 'client', channel: 'stdin' });
      // Interleaved across exchanges, and a line split over chunks, as traffic arrives.
      stdin.push(Buffer.from(command('l1')));
      body.record('client', Buffer.from(command('b1').trimEnd()), { carrier: 'body' });
      frames.record('client', Buffer.from(command('f1').trimEnd()), { carrier: 'frame', channel: 'text' });
      stdin.push(Buffer.from('{"id":"l2","type":'));
      frames.record('client', Buffer.from('not json'), { carrier: 'frame', channel: 'text' });
      stdin.push(Buffer.from('"get_state"}\n{"id":"l3"'));
      frames.record('client', Buffer.from([0x03, 0xe8]), { carrier: 'frame', channel: 'close', judge: false, value: { code: 1000, reason: '' } });
      stdin.push(Buffer.from(',"type":"get_state"}\n'));
      await stdin.end(true);
      // Ended in another order than opened.
      frames.end({ outcome: 'complete', closeCode: 1000 });
      lines.end({ outcome: 'complete', exitCode: 0 });
      body.update({ status: 200 });
      body.end({ outcome: 'complete' });
      const totals = await sink.close(new Date());

      const reader = read(out);
      const exchanges = reader.exchanges();
      expect(exchanges.map((e) => [e.id, e.transport, e.protocol, e.outcome])).toEqual([
        [1, 'stdio', 'pi-rpc', 'complete'],
        [2, 'http', 'pi-rpc', 'complete'],
        [3, 'ws', 'pi-rpc', 'complete'],
      ]);
      expect(exchanges[0]).toMatchObject({ exitCode: 0, messageCount: 3, invalidCount: 0 });
      expect(exchanges[1]).toMatchObject({ status: 200, messageCount: 1, invalidCount: 0 });
      expect(exchanges[2]).toMatchObject({ closeCode: 1000, messageCount: 3, invalidCount: 1 });

      const stdio = reader.messages(1);
      expect(texts(stdio)).toEqual([command('l1'), command('l2'), command('l3')]);
      expect(stdio.map((m) => [m.seq, m.sender, m.carrier, m.channel, m.verdict.status])).toEqual([
        [1, 'client', 'line', 'stdin', 'valid'],
        [2, 'client', 'line', 'stdin', 'valid'],
        [3, 'client', 'line', 'stdin', 'valid'],
      ]);
      expect(stdio.every((m) => m.verdict.schemaRef?.endsWith('#/$defs/piRpcCommand'))).toBe(true);
      expect(reader.messages(2).map((m) => [m.carrier, m.verdict.status, m.json])).toEqual([['body', 'valid', { id: 'b1', type: 'get_state' }]]);
      const ws = reader.messages(3);
      expect(ws.map((m) => [m.seq, m.channel, m.verdict.status])).toEqual([
        [1, 'text', 'valid'],
        [2, 'text', 'invalid'],
        [3, 'close', 'unchecked'],
      ]);
      expect(ws[1].verdict.findings).toEqual([expect.objectContaining({ rule: 'invalid-json', severity: 'error' })]);
      expect(ws[2].json).toEqual({ code: 1000, reason: '' });
      // Offsets come from the capture clock: they rise with capture order within an exchange.
      for (const rows of [stdio, ws]) expect(rows.map((m) => m.tOffsetMs)).toEqual([...rows.map((m) => m.tOffsetMs)].sort((a, b) => a - b));

      const findings = [1, 2, 3].flatMap((id) => reader.messages(id).flatMap((m) => m.verdict.findings));
      expect(totals).toEqual({ exchanges: 3, messages: 7, invalid: 1, findings: findings.length });
      expect(reader.totals()).toMatchObject({ exchanges: 3, messages: 7, invalid: 1, findings: findings.length });
    });

    it('redacts secret JSON fields and query parameters before anything reaches the file', async () => {
      const { sink, out } = await open({ redact: { fields: ['vaultKey'], queryParams: ['sig'] } });
      const secrets = { apiKey: 'api-key-secret-4f9a2c', vaultKey: 'vault-secret-8d1e7b', token: 'query-token-secret-3c6a', sig: 'query-sig-secret-9b2f' };
      const http = sink.openExchange({
        transport: 'http',
        method: 'POST',
        path: '/rpc',
        query: `token=${secrets.token}&sig=${secrets.sig}&page=2`,
        url: `/rpc?token=${secrets.token}&sig=${secrets.sig}&page=2`,
      });
      http.record('client', Buffer.from(JSON.stringify({ id: 's1', type: 'get_state', apiKey: secrets.apiKey })), { carrier: 'body' });
      http.end({ outcome: 'complete' });
      const stdio = sink.openExchange({ transport: 'stdio', url: 'agent' });
      const stdin = stdio.tap({ kind: 'lines', sender: 'client', channel: 'stdin' });
      stdin.push(Buffer.from(command('s2', { nested: { vaultKey: secrets.vaultKey } })));
      await stdin.end(true);
      stdio.end({ outcome: 'complete' });
      await sink.close(new Date());

      const reader = read(out);
      const [stored] = reader.exchanges();
      expect(stored.query).toBe('token=%3Credacted%3E&sig=%3Credacted%3E&page=2');
      expect(stored.url).toBe('/rpc?token=%3Credacted%3E&sig=%3Credacted%3E&page=2');
      expect(reader.messages(1)[0].json).toEqual({ id: 's1', type: 'get_state', apiKey: '<redacted>' });
      expect(reader.messages(2)[0].json).toEqual({ id: 's2', type: 'get_state', nested: { vaultKey: '<redacted>' } });
      reader.close();
      // Checked on the file's bytes, not only through the reader.
      const bytes = Buffer.concat(['', '-wal', '-journal'].filter((suffix) => existsSync(out + suffix)).map((suffix) => readFileSync(out + suffix)));
      for (const [key, value] of Object.entries(secrets)) {
        expect(bytes.indexOf(Buffer.from(value)), key).toBe(-1);
        expect(bytes.indexOf(Buffer.from(value, 'utf16le')), key).toBe(-1);
      }
    });

    it('loses nothing queued when closed at once, including the messages of an exchange that never ended', async () => {
      const { sink, out } = await open();
      const EXCHANGES = 8;
      const LINES = 800;
      // ~1.5 MB in one go, without yielding: all of it still queued (or spooled) when close() is called.
      // Each line just under MAX_BODY_BYTES, so that each is judged, and the bytes cost fewer messages.
      for (let e = 0; e < EXCHANGES; e++) {
        const exchange = sink.openExchange({ transport: 'stdio', url: `agent ${e}` });
        const stdout = exchange.tap({ kind: 'lines', sender: 'server', channel: 'stdout' });
        for (let i = 0; i < LINES; i++) stdout.push(Buffer.from(`{"exchange":${e},"line":${i},"pad":"${'p'.repeat(200)}"}\n`));
        if (e < EXCHANGES - 1) {
          void stdout.end(true);
          exchange.end({ outcome: 'complete' });
        }
      }
      const totals = await sink.close(new Date());

      expect(totals).toMatchObject({ exchanges: EXCHANGES, messages: EXCHANGES * LINES });
      const reader = read(out);
      const exchanges = reader.exchanges();
      expect(exchanges.map((e) => e.messageCount)).toEqual(Array(EXCHANGES).fill(LINES));
      expect(exchanges.map((e) => e.outcome)).toEqual([...Array(EXCHANGES - 1).fill('complete'), null]);
      for (const e of [1, EXCHANGES]) {
        const rows = reader.messages(e);
        expect(rows.map((m) => (m.json as { line: number }).line)).toEqual([...Array(LINES).keys()]);
        expect(rows.every((m) => (m.json as { exchange: number }).exchange === e - 1)).toBe(true);
      }
    });

    it('stores bad input as a row with a finding, and goes on recording what follows', async () => {
      const { sink, out } = await open();
      const stdio = sink.openExchange({ transport: 'stdio', url: 'agent' });
      const stdin = stdio.tap({ kind: 'lines', sender: 'client', channel: 'stdin' });
      const badUtf8 = Buffer.concat([Buffer.from('{"id":"u","type":"get_state","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
      const oversized = command('o', { pad: 'x'.repeat(MAX_BODY_BYTES * 2) });
      stdin.push(badUtf8);
      stdin.push(Buffer.from('{"id":"m","type":\n'));
      stdin.push(Buffer.from(oversized));
      stdin.push(Buffer.from(command('ok')));
      await stdin.end(true);
      stdio.end({ outcome: 'complete' });
      const ws = sink.openExchange({ transport: 'ws', method: 'GET', path: '/rpc' });
      ws.record('server', Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), { carrier: 'frame', channel: 'text' });
      ws.record('server', Buffer.from('{"id":'), { carrier: 'frame', channel: 'text' });
      ws.end({ outcome: 'complete', closeCode: 1000 });
      await sink.close(new Date());

      const reader = read(out);
      const lines = reader.messages(1);
      expect(lines).toHaveLength(4);
      expect(lines[0].raw).toEqual(badUtf8);
      expect(lines[0].verdict).toMatchObject({ status: 'invalid', findings: [{ rule: 'invalid-json', severity: 'error', message: expect.stringMatching(/UTF-8/) }] });
      expect(lines[1].raw.toString()).toBe('{"id":"m","type":\n');
      expect(lines[1].verdict).toMatchObject({ status: 'invalid', findings: [{ rule: 'invalid-json', severity: 'error' }] });
      // Forwarded whole, stored as its first MAX_BODY_BYTES with its real size, not judged.
      expect(lines[2].raw.toString()).toBe(oversized.slice(0, MAX_BODY_BYTES));
      expect(lines[2].rawTruncatedFrom).toBe(Buffer.byteLength(oversized));
      expect(lines[2].verdict).toMatchObject({ status: 'unchecked', findings: [{ rule: 'oversized-message' }] });
      expect(lines[3].verdict.status).toBe('valid');
      expect(reader.exchanges()[0]).toMatchObject({ messageCount: 4, invalidCount: 2 });

      const frames = reader.messages(2);
      expect(frames.map((m) => m.raw)).toEqual([Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), Buffer.from('{"id":')]);
      expect(frames.map((m) => [m.verdict.status, m.verdict.findings.map((f) => f.rule)])).toEqual([
        ['invalid', ['invalid-json']],
        ['invalid', ['invalid-json']],
      ]);
    });

    it('ends an exchange whose peer vanished mid-stream with its code, keeping the half message it left', async () => {
      const { sink, out } = await open();
      const stdio = sink.openExchange({ transport: 'stdio', url: 'agent' });
      const stdout = stdio.tap({ kind: 'lines', sender: 'server', channel: 'stdout' });
      stdout.push(Buffer.from('{"type":"agent_start"}\n{"type":"message_upd'));
      await stdout.end(false);
      stdio.end({ outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET', errorMessage: 'the agent closed its stdout mid-line', signal: 'SIGKILL' });
      const ws = sink.openExchange({ transport: 'ws', method: 'GET', path: '/rpc' });
      ws.record('client', Buffer.from(command('w1').trimEnd()), { carrier: 'frame', channel: 'text' });
      ws.end({ outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED', errorMessage: 'the client closed the connection without a close frame', closeCode: 1006 });
      await sink.close(new Date());

      const reader = read(out);
      const [cut, vanished] = reader.exchanges();
      expect(cut).toMatchObject({ outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET', errorMessage: 'the agent closed its stdout mid-line', signal: 'SIGKILL', messageCount: 2 });
      expect(cut.endedMs).not.toBeNull();
      const rows = reader.messages(cut.id);
      expect(texts(rows)).toEqual(['{"type":"agent_start"}\n', '{"type":"message_upd']);
      expect(rows[1].verdict).toMatchObject({ status: 'invalid', findings: [{ rule: 'invalid-json', message: expect.stringMatching(/incomplete line/) }] });
      expect(vanished).toMatchObject({ outcome: 'aborted', errorCode: 'E_CLIENT_ABORTED', closeCode: 1006, messageCount: 1 });
      expect(vanished.endedMs).not.toBeNull();
    });

    it('gives an MCP session\'s end, a DELETE, to the last message of another exchange of the session', async () => {
      const { sink, out } = await open({ protocol: 'mcp' });
      const json = { 'content-type': 'application/json' };
      const session = { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 's-1' };
      const post = (headers: Record<string, string>, body: unknown, status: number, answer?: unknown, responseHeaders: Record<string, string> = json) => {
        const exchange = sink.openExchange({ transport: 'http', method: 'POST', path: '/mcp', url: '/mcp', requestHeaders: { ...json, ...headers } });
        exchange.record('client', Buffer.from(JSON.stringify(body)), { carrier: 'body' });
        exchange.update({ status, responseHeaders });
        if (answer !== undefined) exchange.record('server', Buffer.from(JSON.stringify(answer)), { carrier: 'body' });
        exchange.end({ outcome: 'complete' });
      };
      const params = { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } };
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
      post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params }, 200, { jsonrpc: '2.0', id: 1, result }, { ...json, 'mcp-session-id': 's-1' });
      post(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, 202, undefined, {});
      // The server asks the client something on a POST's event stream; the client never answers before ending the session.
      const asked = sink.openExchange({ transport: 'http', method: 'POST', path: '/mcp', url: '/mcp', requestHeaders: { ...json, ...session } });
      asked.record('client', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })), { carrier: 'body' });
      asked.update({ status: 200, responseHeaders: { 'content-type': 'text/event-stream' } });
      asked.record('server', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' })), { carrier: 'event' });
      asked.record('server', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [] } })), { carrier: 'event' });
      asked.end({ outcome: 'complete' });
      const deleted = sink.openExchange({ transport: 'http', method: 'DELETE', path: '/mcp', url: '/mcp', requestHeaders: session });
      deleted.update({ status: 200, responseHeaders: {} });
      deleted.end({ outcome: 'complete' });
      await sink.close(new Date());
      const reader = read(out);
      // On the asking exchange's last message (its third): the DELETE carries no message.
      const asking = reader.exchanges().find((e) => e.method === 'POST' && e.messageCount === 3)!;
      expect([...reader.findings()].map((f) => ({ exchange: f.exchange, seq: f.seq, rule: f.rule, message: f.message }))).toEqual([
        { exchange: asking.id, seq: 3, rule: 'jsonrpc-unanswered-request', message: `request "srv-1" ('roots/list') sent by the server was never answered before the session ended` },
      ]);
    });
  });
}
