import { describeWithCorpus, corpusDir, readSharedJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';

interface StdioRecord {
  dir: 'in' | 'out';
  msg: Record<string, unknown>;
  verdict: { note?: string };
}

const lines = corpusDir('fixtures', 'pi-rpc')
  .filter((name) => name.startsWith('stdio-') && name.endsWith('.json'))
  .flatMap((name) => readSharedJson<{ records: StdioRecord[] }>('fixtures', 'pi-rpc', name).records)
  .filter((r) => r.verdict.note === undefined);

describeWithCorpus('pi-rpc sniff and guessSender on real stdio captures', () => {
  it('sniffs every captured line with high confidence, and the framed module does not', () => {
    expect(lines.length).toBeGreaterThan(140);
    // The unknown command is no evidence of Pi RPC on its own; a lone line with it is not claimed.
    for (const record of lines.filter((r) => r.msg.type !== 'no_such_command')) {
      expect(piRpcProtocol.sniff(record.msg), JSON.stringify(record.msg).slice(0, 80)).toBeGreaterThanOrEqual(0.9);
      expect(piDaemonRpcProtocol.sniff(record.msg)).toBe(0);
    }
  });

  it('guesses the sender of every captured line as the capture records it, the unknown command included', () => {
    for (const record of lines) {
      expect(piRpcProtocol.guessSender(record.msg), JSON.stringify(record.msg).slice(0, 80)).toBe(record.dir === 'in' ? 'client' : 'server');
    }
  });

  it('sniffs the raw pi-rpc.v1 WebSocket frames of the daemon capture', () => {
    const raw = readSharedJson<{ records: Array<{ kind: string; conn: string; data?: unknown }> }>('fixtures', 'pi-daemon', 'captured', 'rpc-websocket.json')
      .records.filter((r) => r.kind === 'ws' && r.conn === 'ws-5');
    for (const record of raw) expect(piRpcProtocol.sniff(record.data)).toBeGreaterThanOrEqual(0.9);
  });

  it('does not claim unix-ndjson, ACP JSON-RPC, AG-UI events or unknown types', () => {
    const ndjson = readSharedJson<{ records: Array<{ msg: unknown }> }>('fixtures', 'pi-daemon', 'captured', 'unix-ndjson.json').records;
    for (const record of ndjson) expect(piRpcProtocol.sniff(record.msg)).toBe(0);
    const acp = readSharedJson<{ records: Array<{ kind: string; data?: unknown }> }>('fixtures', 'pi-daemon', 'captured', 'acp-websocket.json').records;
    for (const record of acp.filter((r) => r.kind === 'ws')) expect(piRpcProtocol.sniff(record.data)).toBe(0);
    for (const event of readSharedJson<unknown[]>('fixtures', 'agui', 'dotnet-text-message-run.json')) expect(piRpcProtocol.sniff(event)).toBe(0);
    for (const value of [null, 'prompt', [], { type: 'no_such_command' }, { type: 'response' }]) expect(piRpcProtocol.sniff(value)).toBe(0);
  });
});
