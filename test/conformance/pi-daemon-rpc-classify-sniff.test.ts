import { describeWithCorpus, corpusJson, readSharedJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';

interface WsRecord {
  kind: string;
  conn: string;
  dir?: 'client->server' | 'server->client';
  data?: Record<string, unknown>;
}

const rpc = corpusJson<{ records: WsRecord[] }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'rpc-websocket.json').records;
const framed = rpc.filter((r) => r.kind === 'ws' && r.conn !== 'ws-5');
const ndjson = corpusJson<{ records: Array<{ msg: unknown }> }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'unix-ndjson.json').records;
const acp = corpusJson<{ records: WsRecord[] }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'acp-websocket.json').records.filter((r) => r.kind === 'ws');

describeWithCorpus('pi-daemon-rpc sniff and guessSender on captured traffic', () => {
  it('sniffs every captured frame with high confidence, and raw Pi RPC does not', () => {
    for (const record of framed) {
      expect(piDaemonRpcProtocol.sniff(record.data), JSON.stringify(record.data).slice(0, 80)).toBeGreaterThanOrEqual(0.9);
      expect(piRpcProtocol.sniff(record.data)).toBe(0);
    }
  });

  it('guesses the sender of every captured frame as the capture records it (control frames included)', () => {
    for (const record of framed) {
      const expected = record.dir === 'client->server' ? 'client' : 'server';
      expect(piDaemonRpcProtocol.guessSender(record.data), JSON.stringify(record.data).slice(0, 80)).toBe(expected);
    }
  });

  it('does not claim unix-ndjson responses and events, which also have kind but carry protocolVersion', () => {
    const kinds = new Set(ndjson.map((r) => (r.msg as { kind?: string }).kind));
    expect(kinds).toContain('response');
    expect(kinds).toContain('event');
    for (const record of ndjson) expect(piDaemonRpcProtocol.sniff(record.msg), JSON.stringify(record.msg).slice(0, 80)).toBe(0);
  });

  it('does not claim ACP JSON-RPC, AG-UI events, raw Pi RPC or non-objects', () => {
    for (const record of acp) expect(piDaemonRpcProtocol.sniff(record.data)).toBe(0);
    const agui = readSharedJson<unknown[]>('fixtures', 'agui', 'dotnet-text-message-run.json');
    for (const event of agui) expect(piDaemonRpcProtocol.sniff(event)).toBe(0);
    for (const record of rpc.filter((r) => r.conn === 'ws-5' && r.kind === 'ws')) expect(piDaemonRpcProtocol.sniff(record.data)).toBe(0);
    for (const value of [null, 'command', 1, [], { kind: 'hello' }]) expect(piDaemonRpcProtocol.sniff(value)).toBe(0);
  });

  it('is unsure about a response or event frame without its payload object', () => {
    expect(piDaemonRpcProtocol.sniff({ kind: 'response', ok: true })).toBeLessThan(0.5);
    expect(piDaemonRpcProtocol.sniff({ kind: 'event', event: 'agentStart' })).toBeLessThan(0.5);
  });
});
