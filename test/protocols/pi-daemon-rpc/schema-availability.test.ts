import { describe, expect, it } from 'vitest';
import { FRAME_KINDS, frameRef, SESSION_RPC_FRAME_REF, type FrameKind } from '../../../src/protocols/pi-daemon-rpc/frame-kinds.js';
import { piDaemonRpcProtocol } from '../../../src/protocols/pi-daemon-rpc/index.js';
import { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { PI_SESSION_API_ID } from '../../../src/protocols/pi-rest/schemas.js';
import { bareRegistry } from '../../support/shared.js';
import { Conversation } from '../pi-rpc/conversation.js';

/** A real SchemaRegistry that loaded no document: the session-api schema is missing. */
function emptyRegistry(): SchemaRegistry {
  return new (SchemaRegistry as unknown as new (documents: Map<string, unknown>) => SchemaRegistry)(new Map());
}

/** A framed controller's first frames: a replay gap, attach_ready, a command, its response and an event. */
const FRAMES: Array<['client' | 'server', Record<string, unknown>]> = [
  ['server', { kind: 'replay_gap', reason: 'cursor_expired', requestedCursor: 'h:agent-a:1:2', highWaterCursor: 'h:agent-a:1:9', snapshotFollows: true }],
  ['server', { kind: 'attach_ready', connectionId: 'c', role: 'controller', hostInstanceId: 'h', sessionId: 'agent-a', generation: 1, highWaterCursor: 'h:agent-a:1:9', snapshot: {} }],
  ['client', { kind: 'command', command: { id: 'c-1', type: 'get_state' } }],
  ['server', { kind: 'response', response: { id: 'c-1', type: 'response', command: 'get_state', success: true, data: {} } }],
  ['server', { kind: 'event', cursor: 'h:agent-a:1:10', sequence: 10, event: { type: 'agent_start' } }],
];

describe('pi-daemon-rpc without the extra schemas (no --schemas)', () => {
  it('the registry says every frame $def is checkable: none reaches dashboard-api or schedule', () => {
    for (const kind of Object.keys(FRAME_KINDS) as FrameKind[]) expect(bareRegistry().check(frameRef(kind)), kind).toMatchObject({ ok: true });
    expect(bareRegistry().check(SESSION_RPC_FRAME_REF)).toMatchObject({ ok: true });
  });
});

describe('pi-daemon-rpc when the session-api schema is not loaded', () => {
  it('judges each frame unchecked with the reason, never valid, and the behaviour rules find nothing', () => {
    const c = new Conversation(piDaemonRpcProtocol, emptyRegistry());
    for (const [sender, frame] of FRAMES) {
      const verdict = c.send(sender, frame);
      expect(verdict.status).toBe('unchecked');
      expect(verdict.schemaRef).toBe(frameRef(frame.kind as FrameKind));
      expect(verdict.reason).toContain(PI_SESSION_API_ID);
      expect(verdict.findings).toEqual([]);
    }
  });

  it('still applies the behaviour rules: an unknown kind is invalid even unchecked', () => {
    const verdict = new Conversation(piDaemonRpcProtocol, emptyRegistry()).server({ kind: 'hello' });
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(SESSION_RPC_FRAME_REF);
    expect(verdict.reason).toContain('--schemas');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'unknown-frame-kind', pointer: '/kind' })]);
  });
});
