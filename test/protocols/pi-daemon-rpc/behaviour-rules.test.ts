import { describe, expect, it } from 'vitest';
import { createPiDaemonRpcProtocol, piDaemonRpcProtocol } from '../../../src/protocols/pi-daemon-rpc/index.js';
import { PI_DAEMON_RPC_RULES } from '../../../src/protocols/pi-daemon-rpc/rules.js';
import { SESSION_RPC_FRAME_REF } from '../../../src/protocols/pi-daemon-rpc/frame-kinds.js';
import { testRegistry } from '../../support/shared.js';
import { behaviourFindings, Conversation } from '../pi-rpc/conversation.js';

/** An observer's attach_ready while a turn runs (connectionId "connection-4", generation 3, high water 41). */
const READY: Record<string, unknown> = {
  kind: 'attach_ready',
  connectionId: 'connection-4',
  role: 'observer',
  hostInstanceId: 'host-01',
  sessionId: 'agent-a',
  generation: 3,
  highWaterCursor: 'host-01:agent-a:3:41',
  oldestAvailableCursor: 'host-01:agent-a:3:12',
  snapshot: {
    session: {
      sessionId: 'agent-a',
      name: 'audit',
      generation: 3,
      revision: 7,
      residency: 'resident',
      state: 'running',
      createdAt: '2026-01-15T08:00:00.000Z',
      updatedAt: '2026-01-15T08:10:00.000Z',
      lastUsedAt: '2026-01-15T08:09:59.000Z',
      spec: { cwd: '/srv/work/project-a', name: 'audit', target: { mode: 'new' }, isolation: { mode: 'unisolated' } },
      environment: { keys: ['CI'], persistence: 'memory-only', provisioned: true },
      links: { self: '/v1/session/agent-a', rpc: '/v1/session/agent-a/rpc', apc: '/v1/session/agent-a/apc' },
    },
    requestState: { state: 'running', sequence: 41, queuedTurns: 1, activeRequestId: 'request-active', model: { provider: 'mock', id: 'mock-model' }, lastUsedAt: '2026-01-15T08:09:59.000Z', idleForMs: 0 },
    rpcState: { sessionId: 'pi-session-1', thinkingLevel: 'off', isStreaming: true, messageCount: 9, pendingMessageCount: 0 },
    leafId: 'entry-9',
  },
};
/** The replay_gap that precedes a fresh attach_ready when a cursor is too old. */
const GAP: Record<string, unknown> = {
  kind: 'replay_gap',
  reason: 'cursor_expired',
  requestedCursor: 'host-01:agent-a:3:2',
  oldestAvailableCursor: 'host-01:agent-a:3:12',
  highWaterCursor: 'host-01:agent-a:3:45',
  snapshotFollows: true,
};

const event = (sequence: number, payload: Record<string, unknown> = { type: 'agent_start' }) => ({
  kind: 'event',
  cursor: `host-01:agent-a:3:${sequence}`,
  sequence,
  event: payload,
});
const command = (body: Record<string, unknown>) => ({ kind: 'command', command: body });
const response = (body: Record<string, unknown>) => ({ kind: 'response', response: { type: 'response', success: true, ...body } });
const rejected = () => response({ command: 'unknown', success: false, error: 'rpc_in_flight_capacity' });
const navigate = (correlationId: string) => ({ kind: 'tree_navigate', correlationId, request: { entryId: 'f73e22a6' } });
const navigated = (correlationId: string) => ({ kind: 'tree_navigate_result', correlationId, result: { cancelled: false } });
const uiRequest = (id: string, method: string) => event(1, { type: 'extension_ui_request', id, method, title: 'T' });
const uiAnswer = (response: Record<string, unknown>) => ({ kind: 'extension_ui_response', response: { type: 'extension_ui_response', ...response } });

/** A framed connection that has completed its attach handshake. */
function attached(module = piDaemonRpcProtocol): Conversation {
  const c = new Conversation(module, testRegistry());
  expect(c.server(READY)).toMatchObject({ status: 'valid', findings: [] });
  return c;
}

describe('pi-daemon-rpc behaviour rules: one negative each, with rule id and pointer', () => {
  it('unknown-frame-kind: an unknown kind, and a frame that is not an object', () => {
    const c = attached();
    const verdict = c.server({ kind: 'hello', x: 1 });
    expect(verdict.status).toBe('invalid');
    expect(verdict.schemaRef).toBe(SESSION_RPC_FRAME_REF);
    // The union's nine per-branch complaints are left out; the one finding names the valid kinds.
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'unknown-frame-kind', severity: 'error', pointer: '/kind' })]);
    expect(verdict.findings[0].message).toContain('tree_navigate_result');
    const array = c.client([1, 2]);
    expect(array.status).toBe('invalid');
    expect(behaviourFindings(array)).toEqual([expect.objectContaining({ rule: 'unknown-frame-kind', pointer: '' })]);
    expect(array.findings.find((f) => f.rule === 'schema')?.message).toContain('must be object');
  });

  it('wrong-direction: the client sends an event frame; the daemon sends request_control; the client sends control_granted', () => {
    const c = attached();
    const fromClient = c.client(event(1));
    expect(fromClient.status).toBe('invalid');
    expect(fromClient.findings).toEqual([expect.objectContaining({ rule: 'wrong-direction', pointer: '/kind' })]);
    expect(c.server({ kind: 'control', action: 'request_control' }).findings).toEqual([
      expect.objectContaining({ rule: 'wrong-direction', pointer: '/action' }),
    ]);
    expect(c.client({ kind: 'control', action: 'control_granted', connectionId: 'connection-4' }).findings).toEqual([
      expect.objectContaining({ rule: 'wrong-direction', pointer: '/action' }),
    ]);
    // A wrong-direction frame changes no state: the event did not start the sequence.
    expect(c.server(event(7)).findings).toEqual([]);
  });

  it('wrong-direction: an event that carries a client command', () => {
    const c = attached();
    expect(c.server(event(1, { type: 'prompt', message: 'x' })).findings).toEqual([
      expect.objectContaining({ rule: 'wrong-direction', pointer: '/event/type' }),
    ]);
  });

  it('attach-ready-not-first: an event before attach_ready', () => {
    const c = new Conversation(piDaemonRpcProtocol, testRegistry());
    const verdict = c.server(event(1));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'attach-ready-not-first', pointer: '/kind' })]);
  });

  it('replay-gap-without-attach-ready: a replay_gap followed by an event, by another replay_gap, or by the end', () => {
    const c = new Conversation(piDaemonRpcProtocol, testRegistry());
    expect(c.server(GAP).findings).toEqual([]);
    expect(c.server(event(3)).findings).toEqual([expect.objectContaining({ rule: 'replay-gap-without-attach-ready', pointer: '/kind' })]);
    const twice = new Conversation(piDaemonRpcProtocol, testRegistry());
    twice.server(GAP);
    expect(twice.server(GAP).findings).toEqual([expect.objectContaining({ rule: 'replay-gap-without-attach-ready', pointer: '/kind' })]);
    expect(twice.end('complete')).toEqual([expect.objectContaining({ rule: 'replay-gap-without-attach-ready', pointer: '' })]);
  });

  it('replay-gap-after-attach: a replay_gap once attached', () => {
    const c = attached();
    expect(c.server(GAP).findings).toEqual([expect.objectContaining({ rule: 'replay-gap-after-attach', pointer: '/kind' })]);
  });

  it('attach-ready-repeated: a second attach_ready', () => {
    const c = attached();
    expect(c.server(READY).findings).toEqual([expect.objectContaining({ rule: 'attach-ready-repeated', pointer: '/kind' })]);
  });

  it('event-sequence-gap: sequence jumps from 2 to 4', () => {
    const c = attached();
    c.server(event(1));
    c.server(event(2));
    const verdict = c.server(event(4));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'event-sequence-gap', pointer: '/sequence', message: expect.stringContaining('1 event is missing') })]);
    // Resynchronised: 5 follows 4.
    expect(c.server(event(5)).findings).toEqual([]);
  });

  it('event-sequence-not-increasing: a repeated and a backwards sequence', () => {
    const c = attached();
    c.server(event(5));
    expect(c.server(event(5)).findings).toEqual([expect.objectContaining({ rule: 'event-sequence-not-increasing', pointer: '/sequence' })]);
    expect(c.server(event(2)).findings).toEqual([expect.objectContaining({ rule: 'event-sequence-not-increasing', pointer: '/sequence' })]);
  });

  it('in-flight-limit-exceeded: from the daemon\'s rejection, not from the proxy\'s count (warning)', () => {
    const c = attached();
    // The proxy sees nine commands before any answer, but the daemon may have answered some already.
    for (let i = 0; i < 9; i++) expect(c.client(command({ id: `c${i}`, type: 'get_state' })).findings).toEqual([]);
    const rejection = c.server(rejected());
    expect(rejection.status).toBe('valid');
    expect(rejection.findings).toEqual([
      expect.objectContaining({ rule: 'in-flight-limit-exceeded', severity: 'warning', pointer: '/response/error', message: expect.stringContaining('(taken as 8)') }),
      // Only c8 was sent while eight were unanswered as the proxy counted: it is the rejected one.
      expect.objectContaining({
        rule: 'response-uncorrelatable',
        severity: 'warning',
        pointer: '/response',
        message: expect.stringContaining(`it answers command 'get_state' with id "c8", the only one the daemon can have rejected`),
      }),
    ]);
    for (let i = 0; i < 8; i++) expect(c.server(response({ id: `c${i}`, command: 'get_state' })).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });

  it('in-flight-limit-exceeded: none when the daemon answered every command, however many the proxy saw unanswered', () => {
    const c = attached();
    for (let i = 0; i < 12; i++) expect(c.client(command({ id: `c${i}`, type: 'get_state' })).findings).toEqual([]);
    for (let i = 11; i >= 0; i--) expect(c.server(response({ id: `c${i}`, command: 'get_state' })).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });

  it('in-flight-limit-exceeded: the limit comes from the module options', () => {
    const c = attached(createPiDaemonRpcProtocol({ maxInFlightCommandsPerConnection: 1 }));
    expect(c.client(command({ id: 'a', type: 'get_state' })).findings).toEqual([]);
    expect(c.client(command({ id: 'b', type: 'get_state' })).findings).toEqual([]);
    expect(c.server(rejected()).findings).toEqual([
      expect.objectContaining({ rule: 'in-flight-limit-exceeded', message: expect.stringContaining('(taken as 1)') }),
      expect.objectContaining({ rule: 'response-uncorrelatable', message: expect.stringContaining(`command 'get_state' with id "b", the only one`) }),
    ]);
  });

  it('response-uncorrelatable: a rejection several commands can answer names them all, and takes none as answered', () => {
    const c = attached();
    // c0 is answered at once by the daemon; c1…c8 fill its limit; c9 is rejected; c10 and c11 are answered.
    // The proxy saw all twelve first, so c8…c11 were each sent while it counted eight or more unanswered.
    for (let i = 0; i < 12; i++) c.client(command({ id: `c${i}`, type: 'get_state' }));
    expect(c.server(response({ id: 'c0', command: 'get_state' })).findings).toEqual([]);
    const rejection = c.server(rejected());
    expect(rejection.findings).toEqual([
      expect.objectContaining({ rule: 'in-flight-limit-exceeded' }),
      expect.objectContaining({
        rule: 'response-uncorrelatable',
        message: expect.stringContaining(`one of 4 commands the daemon can have rejected: command 'get_state' with id "c8", command 'get_state' with id "c9", command 'get_state' with id "c10", command 'get_state' with id "c11"`),
      }),
    ]);
    // A success for a candidate has no answer yet: it is its answer, never a second one.
    for (const i of [1, 2, 3, 4, 5, 6, 7, 8, 10, 11]) expect(c.server(response({ id: `c${i}`, command: 'get_state' })).findings).toEqual([]);
    // c9 is what the rejection answered: not unanswered.
    expect(c.end()).toEqual([]);
  });

  it('response-uncorrelatable: candidates left unresolved at the end are not command-unanswered', () => {
    const c = attached();
    for (let i = 0; i < 10; i++) c.client(command({ id: `c${i}`, type: 'get_state' }));
    c.server(rejected());
    for (let i = 0; i < 8; i++) c.server(response({ id: `c${i}`, command: 'get_state' }));
    // c8 or c9 was rejected, the other never answered: the proxy cannot say which, so it says neither.
    expect(c.end()).toEqual([]);
  });

  it('response-uncorrelatable: a rejection answers nothing the daemon received after its last answer before it', () => {
    const c = attached();
    c.client(command({ id: 'first', type: 'get_state' }));
    c.client(command({ id: 'second', type: 'prompt', message: 'hi' }));
    c.client(command({ id: 'third', type: 'get_state' }));
    // Below the assumed limit: the daemon's limit is lower than assumed. "second" was answered before
    // the rejection, so the daemon had received it before the rejected frame: "first" cannot be the one.
    c.server(response({ id: 'second', command: 'prompt' }));
    expect(c.server(rejected()).findings).toEqual([
      expect.objectContaining({ rule: 'in-flight-limit-exceeded' }),
      expect.objectContaining({ rule: 'response-uncorrelatable', message: expect.stringContaining(`command 'get_state' with id "third", the only one`) }),
    ]);
    c.server(response({ id: 'first', command: 'get_state' }));
    expect(c.end()).toEqual([]);
    // With nothing in flight it answers nothing, and says so.
    expect(c.server(rejected()).findings).toEqual([
      expect.objectContaining({ rule: 'in-flight-limit-exceeded' }),
      expect.objectContaining({ rule: 'response-uncorrelatable', message: expect.stringContaining('no command is in flight') }),
    ]);
  });

  it('response-already-answered: never for a command taken as rejected whose own answer then arrives', () => {
    const c = attached(createPiDaemonRpcProtocol({ maxInFlightCommandsPerConnection: 1 }));
    c.client(command({ id: 'a', type: 'get_state' }));
    c.client(command({ id: 'b', type: 'get_state' }));
    c.server(rejected());
    // The daemon's limit was not 1 after all, and it rejected something else: b's answer is b's first.
    expect(c.server(response({ id: 'b', command: 'get_state' })).findings).toEqual([]);
    expect(c.server(response({ id: 'b', command: 'get_state' })).findings).toEqual([expect.objectContaining({ rule: 'response-already-answered' })]);
  });

  it('tree-navigate-unknown-correlation: a result nobody asked for, and a second result', () => {
    const c = attached();
    const stray = c.server(navigated('t-9'));
    expect(stray.status).toBe('invalid');
    expect(stray.findings).toEqual([expect.objectContaining({ rule: 'tree-navigate-unknown-correlation', pointer: '/correlationId' })]);
    c.client(navigate('t-1'));
    expect(c.server(navigated('t-1')).findings).toEqual([]);
    expect(c.server(navigated('t-1')).findings).toEqual([
      expect.objectContaining({ rule: 'tree-navigate-unknown-correlation', message: expect.stringContaining('already has its result') }),
    ]);
  });

  it('tree-navigate-duplicate-correlation: a correlationId reused while open (warning)', () => {
    const c = attached();
    c.client(navigate('t-1'));
    const verdict = c.client(navigate('t-1'));
    expect(verdict.status).toBe('valid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'tree-navigate-duplicate-correlation', severity: 'warning', pointer: '/correlationId' })]);
  });

  it('tree-navigate-unanswered: a clean end with a navigation open (warning)', () => {
    const c = attached();
    c.client(navigate('t-1'));
    expect(c.end('complete')).toEqual([expect.objectContaining({ rule: 'tree-navigate-unanswered', severity: 'warning', pointer: '' })]);
  });

  it('control-connection-mismatch: a control frame for another connection', () => {
    const c = attached();
    const verdict = c.server({ kind: 'control', action: 'control_granted', connectionId: 'connection-5' });
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'control-connection-mismatch', pointer: '/connectionId' })]);
  });

  it('every rule in PI_DAEMON_RPC_RULES has a negative test above', () => {
    expect(Object.values(PI_DAEMON_RPC_RULES).map((r) => r.id).sort()).toEqual([
      'attach-ready-not-first',
      'attach-ready-repeated',
      'control-connection-mismatch',
      'event-sequence-gap',
      'event-sequence-not-increasing',
      'in-flight-limit-exceeded',
      'replay-gap-after-attach',
      'replay-gap-without-attach-ready',
      'tree-navigate-duplicate-correlation',
      'tree-navigate-unanswered',
      'tree-navigate-unknown-correlation',
      'unknown-frame-kind',
      'wrong-direction',
    ]);
  });
});

describe('pi-daemon-rpc: the raw correlation rules apply inside frames, one level deeper', () => {
  it('response-unknown-id at /response/id', () => {
    const c = attached();
    expect(behaviourFindings(c.server(response({ id: 'x', command: 'get_state' })))).toEqual([
      expect.objectContaining({ rule: 'response-unknown-id', pointer: '/response/id' }),
    ]);
  });

  it('response-already-answered at /response/id', () => {
    const c = attached();
    c.client(command({ id: 'a', type: 'get_state' }));
    c.server(response({ id: 'a', command: 'get_state' }));
    expect(c.server(response({ id: 'a', command: 'get_state' })).findings).toEqual([
      expect.objectContaining({ rule: 'response-already-answered', pointer: '/response/id' }),
    ]);
  });

  it('response-command-mismatch at /response/command', () => {
    const c = attached();
    c.client(command({ id: 'a', type: 'get_state' }));
    expect(c.server(response({ id: 'a', command: 'prompt' })).findings).toEqual([
      expect.objectContaining({ rule: 'response-command-mismatch', pointer: '/response/command' }),
    ]);
  });

  it('response-missing-id at /response and response-unmatched at /response/command', () => {
    const c = attached();
    c.client(command({ id: 'a', type: 'get_state' }));
    expect(c.server(response({ command: 'get_state' })).findings).toEqual([expect.objectContaining({ rule: 'response-missing-id', pointer: '/response' })]);
    expect(c.server(response({ command: 'get_tree' })).findings).toEqual([expect.objectContaining({ rule: 'response-unmatched', pointer: '/response/command' })]);
  });

  it('duplicate-command-id at /command/id and command-unanswered at the end', () => {
    const c = attached();
    c.client(command({ id: 'a', type: 'get_state' }));
    expect(c.client(command({ id: 'a', type: 'get_state' })).findings).toEqual([
      expect.objectContaining({ rule: 'duplicate-command-id', severity: 'warning', pointer: '/command/id' }),
    ]);
    expect(c.end().map((f) => f.rule)).toEqual(['command-unanswered', 'command-unanswered']);
  });

  it('extension UI answers at /response/…', () => {
    const c = attached();
    expect(c.client(uiAnswer({ id: 'ui-0', confirmed: true })).findings).toEqual([
      expect.objectContaining({ rule: 'extension-ui-unknown-request', pointer: '/response/id' }),
    ]);
    c.server(uiRequest('ui-1', 'setStatus'));
    expect(c.client(uiAnswer({ id: 'ui-1', value: 'x' })).findings).toEqual([expect.objectContaining({ rule: 'extension-ui-not-dialog', pointer: '/response/id' })]);
    c.server({ ...uiRequest('ui-2', 'input'), sequence: 2 });
    expect(c.client(uiAnswer({ id: 'ui-2', confirmed: true })).findings).toEqual([expect.objectContaining({ rule: 'extension-ui-answer-shape', pointer: '/response/value' })]);
  });

  it('extension-ui-ack-unexpected at /response/command', () => {
    const c = attached();
    expect(c.server(response({ command: 'extension_ui_response' })).findings).toEqual([
      expect.objectContaining({ rule: 'extension-ui-ack-unexpected', severity: 'warning', pointer: '/response/command' }),
    ]);
  });
});

describe('pi-daemon-rpc behaviour rules: positive controls', () => {
  it('accepts replay_gap, attach_ready, then events starting at any sequence', () => {
    const c = new Conversation(piDaemonRpcProtocol, testRegistry());
    expect(c.server(GAP).findings).toEqual([]);
    expect(c.server(READY).findings).toEqual([]);
    expect(c.server(event(42)).findings).toEqual([]);
    expect(c.server(event(43)).findings).toEqual([]);
    expect(c.end()).toEqual([]);
  });

  it('accepts client frames before attach_ready', () => {
    const c = new Conversation(piDaemonRpcProtocol, testRegistry());
    expect(c.client(command({ id: 'a', type: 'get_state' }))).toMatchObject({ status: 'valid', findings: [] });
    expect(c.server(READY).findings).toEqual([]);
    expect(c.server(response({ id: 'a', command: 'get_state' })).findings).toEqual([]);
  });

  it('accepts an unsolicited control_denied right after attach_ready (role=controller while busy)', () => {
    const c = attached();
    expect(c.server({ kind: 'control', action: 'control_denied', connectionId: 'connection-4', reason: 'controller_busy' })).toMatchObject({ status: 'valid', findings: [] });
  });

  it('accepts the release_control echo from the daemon and the request from the client', () => {
    const c = attached();
    expect(c.client({ kind: 'control', action: 'release_control' }).findings).toEqual([]);
    expect(c.server({ kind: 'control', action: 'release_control', connectionId: 'connection-4', reason: 'released' }).findings).toEqual([]);
  });

  it('accepts the observer denial, which echoes id and type', () => {
    const c = attached();
    c.client(command({ id: 'obs-1', type: 'prompt', message: 'x' }));
    expect(c.server(response({ id: 'obs-1', command: 'prompt', success: false, error: 'controller_required' })).findings).toEqual([]);
  });

  it('accepts the daemon acknowledgement of an extension_ui_response frame, without id', () => {
    const c = attached();
    c.server(uiRequest('ui-1', 'confirm'));
    expect(c.client(uiAnswer({ id: 'ui-1', confirmed: true }))).toMatchObject({ status: 'valid', findings: [] });
    expect(c.server(response({ command: 'extension_ui_response' }))).toMatchObject({ status: 'valid', findings: [] });
    // Another connection may be the one answering: a request left open here is not a finding.
    c.server({ ...uiRequest('ui-2', 'select'), sequence: 2 });
    expect(c.end()).toEqual([]);
  });

  it('accepts an observer acknowledgement that fails with controller_required', () => {
    const c = attached();
    c.server(uiRequest('ui-1', 'confirm'));
    c.client(uiAnswer({ id: 'ui-1', confirmed: true }));
    expect(c.server(response({ command: 'extension_ui_response', success: false, error: 'controller_required' })).findings).toEqual([]);
  });

  it('reports nothing at an aborted end', () => {
    const c = new Conversation(piDaemonRpcProtocol, testRegistry());
    c.server(GAP);
    c.client(command({ id: 'a', type: 'get_state' }));
    c.client(navigate('t'));
    expect(c.end('aborted')).toEqual([]);
  });
});
