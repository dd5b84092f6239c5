import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeOps, packBatch } from '../../src/record/worker/op-batch.js';
import { readSpooledBatch, RecordingSpool } from '../../src/record/worker/recording-spool.js';
import { httpOfWire, OP, presetRecordOptions, RECORD_PRESETS, wireHttpOf, type DecodedOp, type RecorderOp } from '../../src/record/worker/recorder-ops.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

/** Ops as capture makes them: payloads are views into larger socket buffers. */
function sampleOps(): { ops: RecorderOp[]; payload: number } {
  const socketRead = Buffer.from('xxxx{"type":"RUN_STARTED"}\n\xff\xfe raw bytes yyyy', 'latin1');
  const line = socketRead.subarray(4, 27);
  const binary = socketRead.subarray(27, 40);
  // The chunks of one read, handed on together (ReadBatch): they arrive as one Buffer.
  const readChunks = [socketRead.subarray(0, 4), socketRead.subarray(40)];
  const headers: Record<string, string | string[]> = { Host: '127.0.0.1', 'Set-Cookie': ['a', 'b'] };
  Object.defineProperty(headers, '__proto__', { value: 'not a prototype', enumerable: true, writable: true, configurable: true });
  const ops: RecorderOp[] = [
    [OP.open, 1, 0.125, { transport: 'http', method: 'POST', path: '/run', url: '/run?x=\ud800', requestHeaders: headers }],
    [OP.classifyRoute, 1, 'http', null],
    [OP.tap, 1, 7, { kind: 'lines', sender: 'server', channel: 'stdout' }],
    [OP.push, 7, line, 1.5],
    [OP.record, 1, 'client', binary, 2, { carrier: 'frame', channel: 'binary', json: false }, null],
    [OP.update, 1, { status: 200, transport: 'sse' }],
    [OP.classify, 1, { transport: 'sse', method: 'POST', path: '/run', contentType: 'text/event-stream' }],
    [OP.push, 7, Buffer.alloc(0), 3],
    [OP.push, 7, readChunks, 3.25],
    [OP.record, 1, 'server', Buffer.from('{}'), 3.5, 0, 200],
    [OP.tapEnd, 7, true, 4],
    [OP.end, 1, 5, { outcome: 'complete' }],
  ];
  return { ops, payload: line.length + binary.length + 2 + 4 + (socketRead.length - 40) };
}

function expectSameOps(decoded: DecodedOp[], original: RecorderOp[]): void {
  expect(decoded).toHaveLength(original.length);
  decoded.forEach((op, i) => {
    const want = original[i];
    if (op[0] === OP.push && want[0] === OP.push) {
      const chunk = want[2];
      expect(op[2]).toBeInstanceOf(Buffer);
      expect(Buffer.compare(op[2], Array.isArray(chunk) ? Buffer.concat(chunk) : (chunk as Buffer))).toBe(0);
      expect([...op.slice(0, 2), ...op.slice(3)]).toEqual([...want.slice(0, 2), ...want.slice(3)]);
    } else if (op[0] === OP.record && want[0] === OP.record) {
      expect(Buffer.compare(op[3], want[3])).toBe(0);
      expect([...op.slice(0, 3), ...op.slice(4)]).toEqual([...want.slice(0, 3), ...want.slice(4)]);
    } else {
      expect(op).toEqual(want);
    }
  });
}

useCleanups();

describe('recorder op batches', () => {

  it('round-trips every op kind, payload bytes exact, strings and odd header names intact', () => {
    const { ops, payload } = sampleOps();
    const expected = sampleOps().ops;
    const batch = packBatch(encodeOps(ops, payload));
    // Only the payload crosses in the buffer, however large the buffers it was cut from.
    expect(batch.bytes.byteLength).toBe(payload);
    const decoded = decodeBatch(batch);
    expectSameOps(decoded, expected);
    const [, , , start] = decoded[0] as Extract<RecorderOp, [typeof OP.open, ...unknown[]]>;
    expect(Object.getPrototypeOf(start.requestHeaders)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(start.requestHeaders, '__proto__')?.value).toBe('not a prototype');
    expect(start.url).toBe('/run?x=\ud800');
  });

  it('refuses a batch whose payload was miscounted rather than sending shifted bytes', () => {
    const { ops, payload } = sampleOps();
    expect(() => encodeOps(ops, payload + 1)).toThrow(RangeError);
  });

  it('refuses to decode a batch whose ops name more payload bytes than it holds', () => {
    const { ops, payload } = sampleOps();
    const batch = packBatch(encodeOps(ops, payload));
    expect(() => decodeBatch({ ops: batch.ops, bytes: batch.bytes.slice(0, payload - 1) })).toThrow(RangeError);
  });

  it('reads spooled batches back in order, each exactly as appended', () => {
    const spool = RecordingSpool.open(scratch('agent-proxy-spool-').file('r.db.spool'));
    try {
      const first = sampleOps();
      const second = sampleOps();
      const a = spool.append(encodeOps(first.ops, first.payload));
      const b = spool.append(encodeOps(second.ops, second.payload));
      expect(b.position).toBe(a.position + a.length);
      expect(spool.pending).toBe(a.length + b.length);
      expectSameOps(decodeBatch(readSpooledBatch(b)), sampleOps().ops);
      expectSameOps(decodeBatch(readSpooledBatch(a)), sampleOps().ops);
      spool.consumedBytes(a.length + b.length, false);
      expect(spool.pending).toBe(0);
    } finally {
      spool.close();
    }
  });

  it('spools a batch of more payload pieces than one writev takes (IOV_MAX is 1024)', () => {
    const spool = RecordingSpool.open(scratch('agent-proxy-spool-').file('r.db.spool'));
    try {
      const ops: RecorderOp[] = [];
      let payload = 0;
      for (let i = 0; i < 3000; i++) {
        const chunk = Buffer.from(`{"n":${i}}\n`);
        payload += chunk.length;
        ops.push([OP.push, 1, chunk, i]);
      }
      const decoded = decodeBatch(readSpooledBatch(spool.append(encodeOps(ops, payload))));
      expect(decoded).toHaveLength(3000);
      expect(decoded.map((op) => (op[0] === OP.push ? op[2].toString() : '')).join('')).toBe(
        Array.from({ length: 3000 }, (_, i) => `{"n":${i}}\n`).join(''),
      );
    } finally {
      spool.close();
    }
  });
});

describe('an HTTP context as it crosses', () => {
  const route = { method: 'POST', path: '/v1/session/a' };

  it('of the exchange\'s own route is sent as its status alone, and comes back whole', () => {
    const response = { method: 'POST', path: '/v1/session/a', status: 409 };
    const request = { method: 'POST', path: '/v1/session/a' };
    expect(wireHttpOf(response, route)).toBe(409);
    expect(wireHttpOf(request, route)).toBe(0);
    // Through JSON, as a batch takes it.
    expect(httpOfWire(JSON.parse(JSON.stringify(wireHttpOf(response, route))), route)).toEqual(response);
    expect(httpOfWire(JSON.parse(JSON.stringify(wireHttpOf(request, route))), route)).toEqual(request);
    expect(httpOfWire(JSON.parse(JSON.stringify(wireHttpOf(undefined, route))), route)).toBeUndefined();
  });

  it('of another route, or with a query or headers, is sent whole', () => {
    const withQuery = { method: 'GET', path: '/v1/x', query: new URLSearchParams('b=2&a=1'), status: 200 };
    const back = httpOfWire(JSON.parse(JSON.stringify(wireHttpOf(withQuery, { method: 'GET', path: '/v1/x', query: 'b=2&a=1' }))), route);
    expect(back).toMatchObject({ method: 'GET', path: '/v1/x', status: 200 });
    expect(back!.query!.toString()).toBe('b=2&a=1');
    const other = { method: 'GET', path: '/elsewhere', status: 404, requestHeaders: { accept: 'application/json' } };
    expect(httpOfWire(JSON.parse(JSON.stringify(wireHttpOf(other, route))), route)).toEqual(other);
  });
});

describe('a preset message in the worker', () => {
  it('gets the facts of its preset, then its time and HTTP context: the same keys, in the same order, as a spread', () => {
    const http = { method: 'GET', path: '/ws' };
    RECORD_PRESETS.forEach((preset, index) => {
      const options = presetRecordOptions(index, 2.5, http);
      const spread = { ...preset, at: 2.5, http };
      expect(options).toStrictEqual(spread);
      expect(Object.keys(options)).toEqual(Object.keys(spread));
    });
    expect(Object.keys(presetRecordOptions(0, 1, undefined))).toEqual(['carrier', 'channel', 'at', 'http']);
  });
});
