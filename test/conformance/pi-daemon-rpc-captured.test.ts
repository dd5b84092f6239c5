import { describeWithCorpus, corpusJson, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../src/protocols/pi-daemon-rpc/index.js';
import { FRAME_KINDS, type FrameKind } from '../../src/protocols/pi-daemon-rpc/frame-kinds.js';
import { piRpcProtocol } from '../../src/protocols/pi-rpc/index.js';
import type { ProtocolModule } from '../../src/protocols/protocol.js';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { Conversation } from '../protocols/pi-rpc/conversation.js';

type CaptureRecord =
  | { kind: 'ws_open'; conn: string; path: string; offeredSubprotocols: string[] }
  | { kind: 'ws_upgrade'; conn: string; status: number; headers: Record<string, string> }
  | { kind: 'ws'; conn: string; dir: 'client->server' | 'server->client'; data: Record<string, unknown>; verdict: { def: string; valid: boolean } }
  | { kind: 'ws_close'; conn: string; code: number };

const { records } = corpusJson<{ records: CaptureRecord[] }>({ records: [] }, 'fixtures', 'pi-daemon', 'captured', 'rpc-websocket.json');
const MODULES = [piDaemonRpcProtocol, piRpcProtocol];

/** The module the proxy would pick for a connection, from the subprotocol the daemon echoed. */
function moduleFor(conn: string): ProtocolModule {
  const upgrade = records.find((r) => r.kind === 'ws_upgrade' && r.conn === conn);
  if (upgrade?.kind !== 'ws_upgrade') throw new Error(`no upgrade for ${conn}`);
  const subprotocol = upgrade.headers['sec-websocket-protocol'];
  const chosen = MODULES.filter((m) => m.classify({ transport: 'ws', subprotocol }) === 1);
  expect(chosen, `${conn} ${subprotocol}`).toHaveLength(1);
  return chosen[0];
}

const connections = [...new Set(records.map((r) => r.conn))];

describeWithCorpus('captured /v1/session/{ref}/rpc traffic (pi-daemon v0.3.0)', () => {
  it('has five connections: four framed, one raw', () => {
    expect(connections.map((c) => moduleFor(c).id)).toEqual(['pi-daemon-rpc', 'pi-daemon-rpc', 'pi-daemon-rpc', 'pi-daemon-rpc', 'pi-rpc']);
  });

  for (const conn of connections) {
    it(`${conn}: every frame is valid, as captured, with no behavioural findings`, () => {
      const module = moduleFor(conn);
      const channel = new Conversation(module, fullRegistry());
      const frames = records.filter((r) => r.conn === conn && r.kind === 'ws');
      expect(frames.length).toBeGreaterThan(0);
      for (const [index, record] of frames.entries()) {
        if (record.kind !== 'ws') continue;
        const where = `${conn} frame ${index}: ${JSON.stringify(record.data).slice(0, 120)}`;
        const verdict = channel.send(record.dir === 'client->server' ? 'client' : 'server', record.data);
        expect(record.verdict.valid, where).toBe(true);
        expect(verdict.findings, where).toEqual([]);
        expect(verdict.status, where).toBe('valid');
        if (module === piRpcProtocol) {
          expect(verdict.schemaRef, where).toBe(`${PI_SESSION_API_ID}#/$defs/${record.verdict.def}`);
        } else {
          // Framed frames are validated against their own kind's $def, not the sessionRpcFrame union.
          expect(verdict.schemaRef, where).toBe(`${PI_SESSION_API_ID}#/$defs/${FRAME_KINDS[record.data.kind as FrameKind].def}`);
        }
      }
      const close = records.find((r) => r.kind === 'ws_close' && r.conn === conn);
      expect(close?.kind === 'ws_close' && close.code).toBe(1000);
      expect(channel.end('complete')).toEqual([]);
    });
  }

  it('exercises what the behaviour rules watch: fan-out, replay after a cursor, replay_gap, control', () => {
    const framed = records.filter((r) => r.kind === 'ws' && r.data.kind !== undefined) as Array<Extract<CaptureRecord, { kind: 'ws' }>>;
    const firstEvent = (conn: string) => framed.find((r) => r.conn === conn && r.data.kind === 'event')?.data.sequence;
    expect(firstEvent('ws-1')).toBe(1);
    expect(firstEvent('ws-2')).toBe(1);
    // Reconnect with the cursor of sequence 3: the replay starts at 4, not 1.
    expect(firstEvent('ws-3')).toBe(4);
    expect(framed.filter((r) => r.conn === 'ws-4').map((r) => r.data.kind)).toEqual(['replay_gap', 'attach_ready']);
    expect(framed.filter((r) => r.data.kind === 'control').map((r) => r.data.action)).toEqual([
      'request_control',
      'control_denied',
      'release_control',
      'release_control',
    ]);
  });
});
