import { describe, expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../../src/protocols/pi-rpc/index.js';
import { piScenario } from '../../support/pi-daemon/scenario.js';

describe('pi-daemon-rpc classify', () => {
  it('claims a WebSocket whose negotiated subprotocol is pi-daemon-rpc.v1', () => {
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-daemon-rpc.v1' })).toBe(1);
  });

  it('follows the daemon’s choice when both are offered: the first supported, in client order', () => {
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-daemon-rpc.v1, pi-rpc.v1' })).toBe(1);
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-rpc.v1, pi-daemon-rpc.v1' })).toBe(0);
    expect(piRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-rpc.v1, pi-daemon-rpc.v1' })).toBe(1);
  });

  it('leaves other channels alone', () => {
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-rpc.v1' })).toBe(0);
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', subprotocol: 'agent-client-protocol.v1' })).toBe(0);
    expect(piDaemonRpcProtocol.classify({ transport: 'ws', path: '/v1/session/agent-a/rpc' })).toBe(0);
    expect(piDaemonRpcProtocol.classify({ transport: 'stdio' })).toBe(0);
    expect(piDaemonRpcProtocol.classify({ transport: 'ndjson' })).toBe(0);
  });
});

/** Sniffing the real daemon's frames: test/conformance/pi-daemon-rpc-classify-sniff.test.ts. */
describe('pi-daemon-rpc sniff and guessSender', () => {
  it('sniffs framed commands, responses and events with high confidence, and raw Pi RPC does not', () => {
    const scenario = piScenario();
    const frames: Array<['client' | 'server', Record<string, unknown>]> = [
      ['server', scenario.attachReady],
      ['client', { kind: 'command', command: { id: 'p-1', type: 'prompt', message: 'hi' } }],
      ['server', { kind: 'response', response: { id: 'p-1', type: 'response', command: 'prompt', success: true } }],
      ...scenario.textTurnEvents.map((event, i): ['server', Record<string, unknown>] => ['server', { kind: 'event', cursor: `c-${i + 1}`, sequence: i + 1, event }]),
    ];
    for (const [sender, frame] of frames) {
      expect(piDaemonRpcProtocol.sniff(frame), JSON.stringify(frame).slice(0, 80)).toBeGreaterThanOrEqual(0.9);
      expect(piRpcProtocol.sniff(frame)).toBe(0);
      expect(piDaemonRpcProtocol.guessSender(frame)).toBe(sender);
    }
  });
});
