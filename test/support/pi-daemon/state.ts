/**
 * In-memory daemon state shared by the REST, RPC and ACP parts of the Pi daemon stand-in.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WebSocket } from 'ws';
import { base64url } from './http-util.js';
import type { PiScenario } from './scenario.js';

type Json = Record<string, unknown>;

export interface PiReceivedHttp {
  method: string;
  /** Path with query string. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** True for a WebSocket upgrade request (accepted or refused). */
  upgrade: boolean;
  /** Status the stand-in answered with (101 for an accepted upgrade). */
  status: number | undefined;
  at: number;
}

export interface PiReceivedWs {
  route: 'rpc' | 'apc';
  path: string;
  /** Negotiated subprotocol. */
  protocol: string;
  /** RPC mode for /rpc. */
  mode: 'framed' | 'raw' | 'acp';
  headers: IncomingHttpHeaders;
  /** Parsed client→server messages (a string when a frame was not JSON). */
  fromClient: unknown[];
  /** Server→client messages, as sent. */
  toClient: unknown[];
  closeCode: number | undefined;
  closeReason: string | undefined;
  /** Resolves when the socket has closed, with the close code/reason the server saw. */
  closed: Promise<{ code: number; reason: string }>;
}

export interface PiReceived {
  http: PiReceivedHttp[];
  ws: PiReceivedWs[];
}

export interface SessionRecord {
  sessionId: string;
  name: string | undefined;
  generation: number;
  revision: number;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string;
  /** Spec without env. */
  spec: Json;
  /** Write-only env: kept in memory, never echoed (unless leakEnv). */
  env: Record<string, string>;
}

export interface TicketRecord {
  data: Json;
  /** GET polls seen so far. */
  polls: number;
  method: string;
  target: string;
  fingerprint: string;
  /** Applies the operation; returns the ticket result. Run once, when the ticket succeeds. */
  apply: () => unknown;
}

export interface RpcAttachment {
  ws: WebSocket;
  mode: 'framed' | 'raw';
  role: 'controller' | 'observer';
  connectionId: string;
  record: PiReceivedWs;
  /** Command frames received so far (the next one's arrival index). */
  commandsReceived: number;
  /** Held answers (RpcCommandScript), by arrival index: the commands in flight. */
  held: Map<number, () => void>;
  /** While a held command is handled: its arrival index, so its answer is held instead of sent. */
  holding?: number;
}

export interface RetainedEvent {
  sequence: number;
  cursor: string;
  event: Json;
}

export interface RpcHub {
  sessionId: string;
  sequence: number;
  retained: RetainedEvent[];
  attachments: Set<RpcAttachment>;
  controller: RpcAttachment | undefined;
  /** Messages in the Pi session (get_state's messageCount). */
  messageCount: number;
  /** Open extension UI dialogs by request id: what the controller's answer resumes. */
  dialogs: Map<string, () => void>;
}

export interface DaemonSettings {
  token: string;
  leakEnv: boolean;
  closeCodeAfterPrompt: { code: number; reason: string } | undefined;
  eventDelayMs: number;
  /** GET polls before a ticket succeeds: poll 1..n-1 report running, poll n succeeded. */
  ticketPollsToSucceed: number;
  enforceRoles: boolean;
  rpcTurn: 'tool-call' | 'text';
  deterministic: boolean;
  commandScript: RpcCommandScript | undefined;
  confirmBeforeTurn: boolean;
  /** Confirm dialogs get random ids (`ui-<uuid>`) rather than counted ones (`ui-1`). */
  mintDialogIds: boolean;
}

/**
 * When the daemon answers the RPC commands of each connection, by their arrival index there (0-based,
 * every command frame counted, rejected ones too). Commands not held are answered at once. A held
 * answer keeps its command in flight, so a command that arrives while the connection has
 * `maxInFlightCommandsPerConnection` held is rejected with `rpc_in_flight_capacity`, as the daemon does.
 */
export interface RpcCommandScript {
  /** Commands whose answers wait for a release. */
  hold: number[];
  /** After the command at this index was handled (answered, held or rejected): the held answers to send now, in this order. */
  releaseAfter: Record<number, number[]>;
}

export const MAX_RETAINED = 512;

export class DaemonState {
  readonly hostInstanceId: string;
  readonly sessions = new Map<string, SessionRecord>();
  readonly tickets = new Map<string, TicketRecord>();
  /** `${method} ${target} ${key}` → ticketId */
  readonly idempotency = new Map<string, string>();
  readonly hubs = new Map<string, RpcHub>();
  readonly received: PiReceived = { http: [], ws: [] };
  closing = false;
  private counter = 0;
  private clock = Date.parse('2026-11-30T15:05:41.600Z');

  constructor(
    readonly settings: DaemonSettings,
    readonly scenario: PiScenario,
    hostInstanceId?: string,
  ) {
    this.hostInstanceId = hostInstanceId ?? (settings.deterministic ? '00000000-0000-4000-8000-00000000d43e' : randomUUID());
  }

  uuid(): string {
    if (!this.settings.deterministic) return randomUUID();
    this.counter++;
    return `00000000-0000-4000-8000-${this.counter.toString(16).padStart(12, '0')}`;
  }

  now(): string {
    if (!this.settings.deterministic) return new Date().toISOString();
    this.clock += 1;
    return new Date(this.clock).toISOString();
  }

  /** `ticket-<43 base64url chars>` like the daemon. */
  ticketId(): string {
    const bytes = this.settings.deterministic ? createHash('sha256').update(`ticket-${++this.counter}`).digest() : randomBytes(32);
    return `ticket-${base64url(bytes)}`;
  }

  /** Exact id, else exact unique name, else undefined (no prefix matching), like the daemon. */
  findSession(ref: string): SessionRecord | undefined {
    const byId = this.sessions.get(ref);
    if (byId) return byId;
    const byName = [...this.sessions.values()].filter((s) => s.name === ref);
    return byName.length === 1 ? byName[0] : undefined;
  }

  etag(session: SessionRecord): string {
    return `"${base64url(session.sessionId)}:${session.revision}"`;
  }

  sessionResource(session: SessionRecord): Json {
    const spec: Json = {};
    for (const key of ['cwd', 'target', 'name', 'agentDir', 'model', 'tools', 'resources', 'settings', 'isolation']) {
      if (session.spec[key] !== undefined) spec[key] = structuredClone(session.spec[key]);
    }
    const keys = Object.keys(session.env).sort();
    if (this.settings.leakEnv && keys.length > 0) {
      // Deliberate bug for the secret-leak test: one env value escapes into a schema-valid field.
      const key = keys[0]!;
      spec.settings = { ...((spec.settings as Json | undefined) ?? {}), debugEnv: { [key]: session.env[key] } };
    }
    const environment: Json = { keys, persistence: 'memory-only', provisioned: true };
    if (keys.length > 0) environment.digest = envDigest(session.env);
    const out: Json = { sessionId: session.sessionId };
    if (session.name !== undefined) out.name = session.name;
    Object.assign(out, {
      generation: session.generation,
      revision: session.revision,
      residency: 'resident',
      state: 'idle',
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      lastUsedAt: session.lastUsedAt,
      spec,
      environment,
      links: sessionLinks(session.sessionId),
    });
    return out;
  }

  hub(sessionId: string): RpcHub {
    let hub = this.hubs.get(sessionId);
    if (!hub) {
      hub = { sessionId, sequence: 0, retained: [], attachments: new Set(), controller: undefined, messageCount: 0, dialogs: new Map() };
      this.hubs.set(sessionId, hub);
    }
    return hub;
  }

  cursor(sessionId: string, generation: number, sequence: number): string {
    return base64url(JSON.stringify({ v: 1, h: this.hostInstanceId, s: sessionId, g: generation, q: sequence }));
  }
}

export function sessionLinks(sessionId: string): Json {
  const self = `/v1/session/${encodeURIComponent(sessionId)}`;
  return { self, rpc: `${self}/rpc`, apc: `${self}/apc` };
}

export function envDigest(env: Record<string, string>): string {
  const canonical = JSON.stringify(Object.keys(env).sort().map((k) => [k, env[k]]));
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/** Splits a sessionSpecInput into the stored spec (no env) and the env. */
export function splitSpec(specInput: Json): { spec: Json; env: Record<string, string> } {
  const { env, ...spec } = specInput;
  const cleanEnv: Record<string, string> = {};
  if (env && typeof env === 'object') {
    for (const [k, v] of Object.entries(env as Record<string, unknown>)) {
      if (typeof v === 'string') cleanEnv[k] = v;
    }
  }
  return { spec, env: cleanEnv };
}

export function decodeCursor(cursor: string): { v: number; h: string; s: string; g: number; q: number } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof value.h !== 'string' || typeof value.s !== 'string' || typeof value.g !== 'number' || typeof value.q !== 'number') return undefined;
    return { v: Number(value.v), h: value.h, s: value.s, g: value.g, q: value.q };
  } catch {
    return undefined;
  }
}
