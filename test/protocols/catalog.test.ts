/**
 * A replay reads what it needs of each protocol from catalog.ts, which loads no checker. It
 * must say what the full modules (modules.ts) say: the same protocols in the same order (ties are broken by
 * order), the same classification and the same replay hints.
 */
import { describe, expect, it } from 'vitest';
import { classifyChannel, PROTOCOLS, protocolById } from '../../src/protocols/modules.js';
import { classifyForReplay, loadModule, REPLAY_FACTS, replayHintsOf } from '../../src/protocols/catalog.js';
import type { ChannelHint } from '../../src/protocols/protocol.js';

const HINTS: ChannelHint[] = [
  { transport: 'http', method: 'POST', path: '/agent', requestBody: { threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} } },
  { transport: 'sse', method: 'POST', path: '/' },
  { transport: 'proto', contentType: 'application/vnd.ag-ui.event+proto' },
  { transport: 'http', method: 'GET', path: '/v1/sessions' },
  { transport: 'http', method: 'POST', path: '/v1/session/s1/prompt' },
  { transport: 'ws', path: '/v1/session/s1/rpc', subprotocol: 'pi-daemon-rpc.v1' },
  { transport: 'ws', path: '/v1/session/s1/rpc', subprotocol: 'pi-rpc.v1' },
  { transport: 'ws', path: '/v1/session/s1/apc' },
  { transport: 'ws', subprotocol: 'agent-client-protocol.v1' },
  { transport: 'stdio' },
  { transport: 'ndjson' },
  { transport: 'http', method: 'GET', path: '/health' },
];

describe('the replay catalog', () => {
  it('lists the protocols of the catalog, in its order, with the same classifier and hints', () => {
    expect(REPLAY_FACTS.map((p) => p.id)).toEqual(PROTOCOLS.map((p) => p.id));
    for (const [i, module] of PROTOCOLS.entries()) {
      expect(REPLAY_FACTS[i].classify).toBe(module.classify);
      expect(REPLAY_FACTS[i].replay).toBe(module.replay);
      expect(replayHintsOf(module.id)).toBe(module.replay);
      // What telling a protocol needs is the facts' own, so a command loads only the module it chose.
      expect(REPLAY_FACTS[i].sniff).toBe(module.sniff);
      expect(REPLAY_FACTS[i].messageEvidence).toBe(module.messageEvidence);
      expect(REPLAY_FACTS[i].channelEvidence).toBe(module.channelEvidence);
      expect(REPLAY_FACTS[i].dialectOf).toBe(module.dialectOf);
    }
  });

  it('loads the same full module of each protocol, one at a time, as modules.ts lists', async () => {
    for (const module of PROTOCOLS) expect(await loadModule(module.id)).toBe(protocolById(module.id));
  });

  it('classifies every channel as the catalog does', () => {
    const claimed = HINTS.map((hint) => classifyForReplay(hint)?.id);
    expect(claimed).toEqual(HINTS.map((hint) => classifyChannel(hint)?.id));
    // The hints cover several protocols and a channel none claims.
    expect(new Set(claimed).size).toBeGreaterThan(4);
    expect(claimed).toContain(undefined);
  });
});
