/**
 * ACP half of the Pi daemon stand-in (/v1/session/{ref}/apc): a real ACP agent built with
 * @agentclientprotocol/sdk's AgentSideConnection over the WebSocket. Results and session/update
 * payloads come from our scenario (scenario.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import {
  AgentSideConnection,
  RequestError,
  type Agent,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type CancelNotification,
  type CloseSessionRequest,
  type CloseSessionResponse,
  type InitializeRequest,
  type InitializeResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  type PromptRequest,
  type PromptResponse,
  type SessionNotification,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from '@agentclientprotocol/sdk';
import { acpStreamFromWebSocket } from '../acp-over-ws.js';
import type { DaemonState, PiReceivedWs, SessionRecord } from './state.js';

type Json = Record<string, unknown>;

class StandInAcpAgent implements Agent {
  private readonly prompts = new Map<string, AbortController>();

  constructor(
    private readonly conn: AgentSideConnection,
    private readonly state: DaemonState,
    private readonly session: SessionRecord,
  ) {}

  initialize(_params: InitializeRequest): InitializeResponse {
    return structuredClone(this.state.scenario.acpInitialize) as unknown as InitializeResponse;
  }

  authenticate(_params: AuthenticateRequest): AuthenticateResponse {
    return {};
  }

  /** The /apc route is bound to one daemon session: session/new attaches to it (any cwd is accepted). */
  newSession(_params: NewSessionRequest): NewSessionResponse {
    return { sessionId: this.session.sessionId, ...(structuredClone(this.state.scenario.acpLoadResult) as Json) } as NewSessionResponse;
  }

  async loadSession(params: LoadSessionRequest): Promise<LoadSessionResponse> {
    if (params.sessionId !== this.session.sessionId && params.sessionId !== this.session.name) {
      throw RequestError.resourceNotFound(params.sessionId);
    }
    for (const update of this.state.scenario.acpLoadHistory) {
      await this.conn.sessionUpdate({ ...(structuredClone(update) as unknown as SessionNotification), sessionId: params.sessionId });
    }
    return structuredClone(this.state.scenario.acpLoadResult) as LoadSessionResponse;
  }

  listSessions(_params: ListSessionsRequest): ListSessionsResponse {
    const spec = this.session.spec;
    return { sessions: [{ sessionId: this.session.sessionId, cwd: typeof spec.cwd === 'string' ? spec.cwd : '/', ...(this.session.name ? { title: this.session.name } : {}) }] };
  }

  closeSession(_params: CloseSessionRequest): CloseSessionResponse {
    return {};
  }

  setSessionMode(_params: SetSessionModeRequest): SetSessionModeResponse {
    return {};
  }

  /** Streams the scenario's text turn (or the tool-call turn when the prompt mentions READFILE), then end_turn. */
  async prompt(params: PromptRequest): Promise<PromptResponse> {
    const abort = new AbortController();
    this.prompts.get(params.sessionId)?.abort();
    this.prompts.set(params.sessionId, abort);
    const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    const updates = text.includes('READFILE') ? this.state.scenario.acpToolTurn : this.state.scenario.acpTextTurn;
    try {
      for (const update of updates) {
        if (abort.signal.aborted || this.state.closing) break;
        if (this.state.settings.eventDelayMs > 0) await sleep(this.state.settings.eventDelayMs);
        if (abort.signal.aborted || this.state.closing) break;
        await this.conn.sessionUpdate({ ...(structuredClone(update) as unknown as SessionNotification), sessionId: params.sessionId });
      }
    } finally {
      if (this.prompts.get(params.sessionId) === abort) this.prompts.delete(params.sessionId);
    }
    return { stopReason: abort.signal.aborted ? 'cancelled' : 'end_turn' };
  }

  cancel(params: CancelNotification): void {
    this.prompts.get(params.sessionId)?.abort();
  }
}

export function attachAcp(state: DaemonState, ws: WebSocket, session: SessionRecord, record: PiReceivedWs): AgentSideConnection {
  ws.on('error', () => undefined);
  const stream = acpStreamFromWebSocket(ws, {
    onIncoming: (m) => record.fromClient.push(m),
    onOutgoing: (m) => record.toClient.push(m),
  });
  return new AgentSideConnection((conn) => new StandInAcpAgent(conn, state, session), stream);
}
