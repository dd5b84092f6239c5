import { describe, expect, it } from 'vitest';
import { piDaemonRpcProtocol } from '../../../src/protocols/pi-daemon-rpc/index.js';
import { piRpcProtocol } from '../../../src/protocols/pi-rpc/index.js';
import { piScenario } from '../../support/pi-daemon/scenario.js';

describe('pi-rpc classify', () => {
  it('claims the pi-rpc.v1 WebSocket outright, and a stdio channel not at all (ACP and MCP share stdio: its lines decide)', () => {
    expect(piRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-rpc.v1' })).toBe(1);
    expect(piRpcProtocol.channelEvidence({ transport: 'ws', subprotocol: 'pi-rpc.v1' })).toBe('WebSocket subprotocol pi-rpc.v1');
    expect(piRpcProtocol.classify({ transport: 'stdio' })).toBe(0);
    expect(piRpcProtocol.messageEvidence({ id: 'c-1', type: 'get_state' })).toBe('Pi RPC command get_state');
  });

  it('leaves other channels alone', () => {
    expect(piRpcProtocol.classify({ transport: 'ws', subprotocol: 'pi-daemon-rpc.v1' })).toBe(0);
    expect(piRpcProtocol.classify({ transport: 'ws' })).toBe(0);
    expect(piRpcProtocol.classify({ transport: 'http', path: '/v1/session/agent-a' })).toBe(0);
    expect(piRpcProtocol.classify({ transport: 'ndjson' })).toBe(0);
  });
});

/** Sniffing the real `pi --mode rpc` captures: test/conformance/pi-rpc-classify-sniff.test.ts. */
describe('pi-rpc sniff and guessSender', () => {
  it('sniffs commands, responses and events of a turn with high confidence, and the framed module does not', () => {
    const scenario = piScenario();
    const lines: Array<['client' | 'server', Record<string, unknown>]> = [
      ['client', { id: 'p-1', type: 'prompt', message: scenario.toolTurnUserText }],
      ['server', { id: 'p-1', type: 'response', command: 'prompt', success: true }],
      ...scenario.toolTurnEvents.map((e): ['server', Record<string, unknown>] => ['server', e]),
    ];
    for (const [sender, line] of lines) {
      expect(piRpcProtocol.sniff(line), JSON.stringify(line).slice(0, 80)).toBeGreaterThanOrEqual(0.9);
      expect(piDaemonRpcProtocol.sniff(line)).toBe(0);
      expect(piRpcProtocol.guessSender(line)).toBe(sender);
    }
  });
});
