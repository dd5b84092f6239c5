/**
 * WebSocket half of the Pi daemon stand-in: the upgrade gate for /v1/session/{ref}/rpc and /apc
 * (auth, 404, 426, 409 stale_generation / controller_busy, 400 cursor_not_supported — all written
 * as raw HTTP responses with an apiErrorEnvelope body), and the RPC attachment itself in framed
 * (`pi-daemon-rpc.v1`) and raw (`pi-rpc.v1`) modes. See docs/pi-daemon-notes.md §1.5.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, type RawData, type WebSocketServer } from 'ws';
import { errorEnvelope, header, rejectUpgrade, type ApiErrorBody } from './http-util.js';
import { isAuthorized, requestIdFor, sessionNotFound, UNAUTHORIZED, UNAUTHORIZED_HEADERS } from './rest.js';
import { decodeCursor, MAX_RETAINED, type DaemonState, type PiReceivedHttp, type PiReceivedWs, type RetainedEvent, type RpcAttachment, type RpcHub, type SessionRecord } from './state.js';
import { attachAcp } from './acp.js';

type Json = Record<string, unknown>;

export const FRAMED_PROTOCOL = 'pi-daemon-rpc.v1';
export const RAW_PROTOCOL = 'pi-rpc.v1';
export const RPC_PROTOCOLS = [RAW_PROTOCOL, FRAMED_PROTOCOL] as const;
export const ACP_PROTOCOL = 'agent-client-protocol.v1';

const ATTACH_PATH = /^\/v1\/session\/([^/]+)\/(rpc|apc)$/;

/** Commands an observer may run (docs §1.5 Roles). */
const READ_ONLY = new Set([
  'get_state',
  'get_available_models',
  'get_session_stats',
  'get_fork_messages',
  'get_entries',
  'get_tree',
  'get_last_assistant_text',
  'get_messages',
  'get_commands',
]);

export function routeOf(req: IncomingMessage): 'rpc' | 'apc' | undefined {
  const url = new URL(req.url ?? '/', 'http://pi-daemon');
  return ATTACH_PATH.exec(url.pathname)?.[2] as 'rpc' | 'apc' | undefined;
}

/** The first offered subprotocol the route supports, in client order. */
export function chooseProtocol(route: 'rpc' | 'apc' | undefined, offered: Iterable<string>): string | undefined {
  const supported: readonly string[] = route === 'rpc' ? RPC_PROTOCOLS : route === 'apc' ? [ACP_PROTOCOL] : [];
  for (const p of offered) if (supported.includes(p)) return p;
  return undefined;
}

function offeredProtocols(req: IncomingMessage): string[] {
  return (header(req, 'sec-websocket-protocol') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function newWsRecord(route: 'rpc' | 'apc', req: IncomingMessage, protocol: string, mode: PiReceivedWs['mode']): { record: PiReceivedWs; resolveClosed: (v: { code: number; reason: string }) => void } {
  let resolveClosed!: (v: { code: number; reason: string }) => void;
  const record: PiReceivedWs = {
    route,
    path: req.url ?? '/',
    protocol,
    mode,
    headers: req.headers,
    fromClient: [],
    toClient: [],
    closeCode: undefined,
    closeReason: undefined,
    closed: new Promise((r) => (resolveClosed = r)),
  };
  return { record, resolveClosed };
}

export function handleUpgrade(state: DaemonState, wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', () => undefined);
  const url = new URL(req.url ?? '/', 'http://pi-daemon');
  const httpRecord: PiReceivedHttp = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: undefined, upgrade: true, status: undefined, at: Date.now() };
  state.received.http.push(httpRecord);
  const requestId = requestIdFor(state, req);
  const refuse = (status: number, error: ApiErrorBody, headers: Record<string, string> = {}) => {
    httpRecord.status = status;
    rejectUpgrade(socket, status, errorEnvelope(requestId, state.hostInstanceId, error), headers);
  };

  if (state.closing) return refuse(503, { code: 'host_draining', message: 'the daemon is stopping', retryable: true });
  if (!isAuthorized(state, req)) return refuse(401, UNAUTHORIZED, UNAUTHORIZED_HEADERS);
  const match = ATTACH_PATH.exec(url.pathname);
  if (!match) return refuse(404, { code: 'not_found', message: `no WebSocket route at ${url.pathname}` });
  const route = match[2] as 'rpc' | 'apc';
  const session = state.findSession(decodeURIComponent(match[1]!));
  if (!session) return refuse(404, sessionNotFound());
  const protocol = chooseProtocol(route, offeredProtocols(req));
  if (!protocol) {
    return route === 'rpc'
      ? refuse(426, { code: 'rpc_subprotocol_required', message: 'one supported RPC subprotocol is required: pi-rpc.v1, pi-daemon-rpc.v1' }, { 'sec-websocket-protocol': 'pi-rpc.v1, pi-daemon-rpc.v1' })
      : refuse(426, { code: 'acp_subprotocol_required', message: 'the ACP subprotocol is required: agent-client-protocol.v1' }, { 'sec-websocket-protocol': ACP_PROTOCOL });
  }

  if (route === 'apc') {
    wss.handleUpgrade(req, socket, head, (ws) => {
      httpRecord.status = 101;
      const { record, resolveClosed } = newWsRecord('apc', req, ws.protocol, 'acp');
      state.received.ws.push(record);
      ws.on('close', (code, reason) => {
        record.closeCode = code;
        record.closeReason = reason.toString('utf8');
        resolveClosed({ code, reason: record.closeReason });
      });
      attachAcp(state, ws, session, record);
    });
    return;
  }

  const generation = url.searchParams.get('generation');
  if (generation !== null && Number(generation) !== session.generation) {
    return refuse(409, {
      code: 'stale_generation',
      message: `generation ${generation} is stale; the session is at generation ${session.generation}`,
      details: { requestedGeneration: Number(generation), currentGeneration: session.generation },
    });
  }
  const mode = protocol === FRAMED_PROTOCOL ? 'framed' : 'raw';
  const cursor = url.searchParams.get('cursor');
  if (mode === 'raw' && cursor !== null) return refuse(400, { code: 'cursor_not_supported', message: 'cursor is only supported with pi-daemon-rpc.v1' });
  const roleParam = url.searchParams.get('role');
  if (roleParam !== null && roleParam !== 'controller' && roleParam !== 'observer') return refuse(400, { code: 'invalid_role', message: 'role must be controller or observer' });
  const role = roleParam === 'controller' ? 'controller' : 'observer';
  const hub = state.hub(session.sessionId);
  if (role === 'controller' && hub.controller) return refuse(409, { code: 'controller_busy', message: 'the session already has a controller' });

  wss.handleUpgrade(req, socket, head, (ws) => {
    httpRecord.status = 101;
    const { record, resolveClosed } = newWsRecord('rpc', req, ws.protocol, mode);
    state.received.ws.push(record);
    const att: RpcAttachment = { ws, mode, role, connectionId: state.uuid(), record, commandsReceived: 0, held: new Map() };
    if (role === 'controller') hub.controller = att;
    ws.on('error', () => undefined);
    ws.on('close', (code, reason) => {
      hub.attachments.delete(att);
      if (hub.controller === att) hub.controller = undefined;
      record.closeCode = code;
      record.closeReason = reason.toString('utf8');
      resolveClosed({ code, reason: record.closeReason });
    });
    if (mode === 'framed') sendFramedPreamble(state, hub, session, att, cursor);
    hub.attachments.add(att);
    ws.on('message', (data) => onRpcMessage(state, hub, session, att, data));
  });
}

function send(att: RpcAttachment, message: unknown): void {
  if (att.ws.readyState !== WebSocket.OPEN) return;
  att.record.toClient.push(message);
  att.ws.send(JSON.stringify(message));
}

function rpcState(state: DaemonState, hub: RpcHub): Json {
  return { ...structuredClone(state.scenario.rpcState), messageCount: hub.messageCount };
}

function attachReadyFrame(state: DaemonState, hub: RpcHub, session: SessionRecord, att: RpcAttachment): Json {
  const template = state.scenario.attachReady.snapshot as Json;
  const frame: Json = {
    kind: 'attach_ready',
    connectionId: att.connectionId,
    role: att.role,
    hostInstanceId: state.hostInstanceId,
    sessionId: session.sessionId,
    generation: session.generation,
    highWaterCursor: state.cursor(session.sessionId, session.generation, hub.sequence),
  };
  if (hub.retained.length > 0) frame.oldestAvailableCursor = hub.retained[0]!.cursor;
  const idleForMs = state.settings.deterministic ? 0 : Math.max(0, Date.now() - Date.parse(session.lastUsedAt));
  frame.snapshot = {
    session: state.sessionResource(session),
    requestState: { ...structuredClone(template.requestState as Json), sessionId: session.sessionId, generation: session.generation, lastUsedAt: session.lastUsedAt, idleForMs },
    rpcState: rpcState(state, hub),
    leafId: template.leafId ?? null,
  };
  return frame;
}

/** attach_ready (after a replay_gap when the cursor cannot be honoured), then retained events after the cursor. */
function sendFramedPreamble(state: DaemonState, hub: RpcHub, session: SessionRecord, att: RpcAttachment, cursor: string | null): void {
  let replay: RetainedEvent[] = [];
  if (cursor !== null) {
    const decoded = decodeCursor(cursor);
    let gap: 'cursor_expired' | 'host_restarted' | 'generation_changed' | undefined;
    if (!decoded) gap = 'cursor_expired';
    else if (decoded.h !== state.hostInstanceId) gap = 'host_restarted';
    else if (decoded.s !== session.sessionId || decoded.g !== session.generation) gap = 'generation_changed';
    else if (decoded.q > hub.sequence || (hub.retained.length > 0 && decoded.q < hub.retained[0]!.sequence - 1)) gap = 'cursor_expired';
    if (gap) {
      const frame: Json = { kind: 'replay_gap', reason: gap, requestedCursor: cursor };
      if (hub.retained.length > 0) frame.oldestAvailableCursor = hub.retained[0]!.cursor;
      frame.highWaterCursor = state.cursor(session.sessionId, session.generation, hub.sequence);
      frame.snapshotFollows = true;
      send(att, frame);
    } else {
      replay = hub.retained.filter((e) => e.sequence > decoded!.q);
    }
  }
  send(att, attachReadyFrame(state, hub, session, att));
  for (const e of replay) send(att, { kind: 'event', cursor: e.cursor, sequence: e.sequence, event: e.event });
}

function onRpcMessage(state: DaemonState, hub: RpcHub, session: SessionRecord, att: RpcAttachment, data: RawData): void {
  const text = rawToString(data);
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    att.record.fromClient.push(text);
    att.ws.close(1007, 'invalid JSON');
    return;
  }
  att.record.fromClient.push(msg);
  if (att.mode === 'raw') {
    if (!isObject(msg) || typeof msg.type !== 'string') return att.ws.close(1008, 'invalid RPC command');
    if (msg.type === 'extension_ui_response') return; // stock Pi sends no acknowledgement
    return scriptedCommand(state, att, msg, () => handleCommand(state, hub, session, att, msg));
  }
  if (!isObject(msg) || typeof msg.kind !== 'string') return att.ws.close(1008, 'invalid RPC frame');
  switch (msg.kind) {
    case 'command': {
      const command = msg.command;
      if (!isObject(command) || typeof command.type !== 'string') return att.ws.close(1008, 'invalid RPC frame');
      return scriptedCommand(state, att, command, () => handleCommand(state, hub, session, att, command));
    }
    case 'extension_ui_response': {
      const response = isObject(msg.response) ? msg.response : {};
      const id = typeof response.id === 'string' ? { id: response.id } : {};
      const ack = (error?: string) =>
        send(att, { kind: 'response', response: { ...id, type: 'response', command: 'extension_ui_response', success: error === undefined, ...(error ? { error } : {}) } });
      const resume = typeof response.id === 'string' ? hub.dialogs.get(response.id) : undefined;
      if (resume === undefined) return ack('unknown_ui_request');
      // Only the controller's answer is taken; an observer's is refused and the dialog stays open.
      if (hub.controller !== att) return ack('controller_required');
      hub.dialogs.delete(response.id as string);
      ack();
      return resume();
    }
    case 'control':
      if (msg.action === 'request_control') {
        if (hub.controller && hub.controller !== att) {
          return send(att, { kind: 'control', action: 'control_denied', connectionId: att.connectionId, reason: 'controller_busy' });
        }
        hub.controller = att;
        att.role = 'controller';
        return send(att, { kind: 'control', action: 'control_granted', connectionId: att.connectionId });
      }
      if (msg.action === 'release_control') {
        if (hub.controller === att) hub.controller = undefined;
        att.role = 'observer';
        return send(att, { kind: 'control', action: 'release_control', connectionId: att.connectionId, reason: 'released' });
      }
      return att.ws.close(1008, 'invalid RPC frame');
    case 'tree_navigate':
      if (typeof msg.correlationId !== 'string') return att.ws.close(1008, 'invalid RPC frame');
      return send(att, { kind: 'tree_navigate_result', correlationId: msg.correlationId, result: { cancelled: false } });
    default:
      return att.ws.close(1008, 'invalid RPC frame');
  }
}

/** The daemon's `maxInFlightCommandsPerConnection`, as the stand-in advertises it. */
function maxInFlight(state: DaemonState): number {
  return ((state.scenario.capabilities.rpc as Json).limits as Json).maxInFlightCommandsPerConnection as number;
}

/**
 * One command frame, answered as the daemon's in-flight limit and the connection's RpcCommandScript
 * say: rejected when the held answers fill the limit, else handled (its answer held when the script
 * says so), then the held answers the script releases after it are sent.
 */
function scriptedCommand(state: DaemonState, att: RpcAttachment, command: Json, handle: () => void): void {
  const index = att.commandsReceived++;
  const script = state.settings.commandScript;
  if (att.held.size >= maxInFlight(state)) {
    // A framed rejection names neither id nor type: the daemon reads them off the frame, not the command.
    const response = { ...(att.mode === 'raw' && typeof command.id === 'string' ? { id: command.id } : {}), type: 'response', command: att.mode === 'raw' ? command.type : 'unknown', success: false, error: 'rpc_in_flight_capacity' };
    send(att, att.mode === 'framed' ? { kind: 'response', response } : response);
  } else if (script?.hold.includes(index)) {
    att.holding = index;
    handle();
    att.holding = undefined;
  } else {
    handle();
  }
  for (const released of script?.releaseAfter[index] ?? []) {
    const answer = att.held.get(released);
    att.held.delete(released);
    answer?.();
  }
}

function handleCommand(state: DaemonState, hub: RpcHub, session: SessionRecord, att: RpcAttachment, command: Json): void {
  const type = command.type as string;
  const id = typeof command.id === 'string' ? { id: command.id } : {};
  const holding = att.holding;
  const respond = (fields: Json) => {
    const response = { ...id, type: 'response', command: type, ...fields };
    const answer = () => send(att, att.mode === 'framed' ? { kind: 'response', response } : response);
    if (holding === undefined) answer();
    else att.held.set(holding, answer);
  };
  if (state.settings.enforceRoles && att.role !== 'controller' && !READ_ONLY.has(type)) {
    return respond({ success: false, error: 'controller_required' });
  }
  switch (type) {
    case 'prompt': {
      respond({ success: true });
      const turn = () => void streamTurn(state, hub, session, att, typeof command.message === 'string' ? command.message : '');
      if (!state.settings.confirmBeforeTurn) return turn();
      // An extension asks first: a confirm dialog every attachment sees, and the turn waits for the controller's answer.
      const dialogId = state.settings.mintDialogIds ? `ui-${randomUUID()}` : `ui-${hub.dialogs.size + 1}`;
      hub.dialogs.set(dialogId, turn);
      return emit(state, hub, session, { type: 'extension_ui_request', id: dialogId, method: 'confirm', title: 'Allow the agent to read files?', message: 'The extension asks before each turn.' });
    }
    case 'get_state':
      return respond({ success: true, data: rpcState(state, hub) });
    case 'get_entries':
      return respond({ success: true, data: structuredClone(state.scenario.entries) });
    case 'get_messages':
      return respond({ success: true, data: { messages: [] } });
    default: {
      const host = (state.scenario.capabilities.rpc as Json).host as Json;
      if ((host.commandTypes as string[]).includes(type)) return respond({ success: true });
      return respond({ success: false, error: `Unknown command: ${type}` });
    }
  }
}

function replaceString(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => replaceString(v, from, to));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceString(v, from, to)]));
  return value;
}

/** Assigns the next sequence/cursor and fans the event out to every attachment of the session. */
function emit(state: DaemonState, hub: RpcHub, session: SessionRecord, event: Json): void {
  hub.sequence += 1;
  const retained: RetainedEvent = { sequence: hub.sequence, cursor: state.cursor(session.sessionId, session.generation, hub.sequence), event };
  hub.retained.push(retained);
  if (hub.retained.length > MAX_RETAINED) hub.retained.shift();
  for (const other of hub.attachments) {
    send(other, other.mode === 'framed' ? { kind: 'event', cursor: retained.cursor, sequence: retained.sequence, event } : event);
  }
}

async function streamTurn(state: DaemonState, hub: RpcHub, session: SessionRecord, att: RpcAttachment, message: string): Promise<void> {
  const text = state.settings.rpcTurn === 'text';
  const template = text ? state.scenario.textTurnEvents : state.scenario.toolTurnEvents;
  const userText = text ? state.scenario.textTurnUserText : state.scenario.toolTurnUserText;
  const events = replaceString(structuredClone(template), userText, message) as Json[];
  for (const event of events) {
    if (state.closing) return;
    if (state.settings.eventDelayMs > 0) await sleep(state.settings.eventDelayMs);
    if (state.closing) return;
    emit(state, hub, session, event);
  }
  hub.messageCount += text ? 2 : 4;
  const closeAfter = state.settings.closeCodeAfterPrompt;
  if (closeAfter && att.ws.readyState === WebSocket.OPEN) att.ws.close(closeAfter.code, closeAfter.reason);
}
