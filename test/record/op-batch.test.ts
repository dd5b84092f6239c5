import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeOps, packBatch } from '../../src/record/worker/op-batch.js';
import { readSpooledBatch, RecordingSpool } from '../../src/record/worker/recording-spool.js';
import type { RecorderOp } from '../../src/record/worker/recorder-ops.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

/** Ops as capture makes them: payloads are views into larger socket buffers. */
function sampleOps(): { ops: RecorderOp[]; payload: number } {
  const socketRead = Buffer.from('xxxx{"type":"RUN_STARTED"}\n\xff\xfe raw bytes yyyy', 'latin1');
  const line = socketRead.subarray(4, 27);
  const binary = socketRead.subarray(27, 40);
  const headers: Record<string, string | string[]> = { Host: '127.0.0.1', 'Set-Cookie': ['a', 'b'] };
  Object.defineProperty(headers, '__proto__', { value: 'not a prototype', enumerable: true, writable: true, configurable: true });
  const ops: RecorderOp[] = [
    { op: 'open', id: 1, start: { transport: 'http', method: 'POST', path: '/run', url: '/run?x=\ud800', requestHeaders: headers }, at: 0.125 },
    { op: 'tap', id: 1, tap: 7, spec: { kind: 'lines', sender: 'server', channel: 'stdout' } },
    { op: 'push', tap: 7, chunk: line, at: 1.5 },
    { op: 'record', id: 1, sender: 'client', raw: binary, options: { carrier: 'frame', channel: 'binary', json: false, at: 2 } },
    { op: 'push', tap: 7, chunk: Buffer.alloc(0), at: 3 },
    { op: 'tap-end', tap: 7, complete: true, at: 4 },
    { op: 'end', id: 1, end: { outcome: 'complete' }, at: 5 },
  ];
  return { ops, payload: line.length + binary.length };
}

function expectSameOps(decoded: RecorderOp[], original: RecorderOp[]): void {
  expect(decoded).toHaveLength(original.length);
  decoded.forEach((op, i) => {
    const want = original[i];
    if (op.op === 'push' && want.op === 'push') {
      expect(Buffer.compare(op.chunk, want.chunk)).toBe(0);
      expect({ ...op, chunk: null }).toEqual({ ...want, chunk: null });
    } else if (op.op === 'record' && want.op === 'record') {
      expect(Buffer.compare(op.raw, want.raw)).toBe(0);
      expect({ ...op, raw: null }).toEqual({ ...want, raw: null });
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
    const open = decoded[0] as Extract<RecorderOp, { op: 'open' }>;
    expect(Object.getPrototypeOf(open.start.requestHeaders)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(open.start.requestHeaders, '__proto__')?.value).toBe('not a prototype');
    expect(open.start.url).toBe('/run?x=\ud800');
  });

  it('refuses a batch whose payload was miscounted rather than sending shifted bytes', () => {
    const { ops, payload } = sampleOps();
    expect(() => encodeOps(ops, payload + 1)).toThrow(RangeError);
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
        ops.push({ op: 'push', tap: 1, chunk, at: i });
      }
      const decoded = decodeBatch(readSpooledBatch(spool.append(encodeOps(ops, payload))));
      expect(decoded).toHaveLength(3000);
      expect(decoded.map((op) => (op.op === 'push' ? op.chunk.toString() : '')).join('')).toBe(
        Array.from({ length: 3000 }, (_, i) => `{"n":${i}}\n`).join(''),
      );
    } finally {
      spool.close();
    }
  });
});
