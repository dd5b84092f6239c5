import { error, warning, type Finding } from '../../core/finding.js';
import type { Sender } from '../../core/message.js';
import { MCP_RULES as RULES } from './mcp-rules.js';

/**
 * Where a session is in MCP's lifecycle (legacy versions): `start` before anything; `initializing`
 * once the client sent initialize; `answered` once the server returned its InitializeResult;
 * `operating` once the client sent `notifications/initialized`. `off`: the lifecycle is not judged
 * (a modern session, which has none; initialize failed; or the session did not start with it, which
 * is reported once).
 */
type Phase = 'start' | 'initializing' | 'answered' | 'operating' | 'off';

/** The lifecycle rules: initialize first and once, nothing but ping before it is done, then `notifications/initialized`. */
export class Lifecycle {
  private phase: Phase = 'start';
  private initializedMissingSaid = false;

  /** Whether the InitializeResult came (capabilities are known from then on). */
  get negotiated(): boolean {
    return this.phase === 'answered' || this.phase === 'operating';
  }

  /** A modern session (2026-07-28) has no initialize: its lifecycle is not judged. */
  modern(): void {
    if (this.phase === 'start') this.phase = 'off';
  }

  /**
   * A session the recording joined after its initialize (over HTTP, a proxy started while a client
   * was connected): where it is in the lifecycle is not known, so the lifecycle is not judged.
   */
  joined(): void {
    if (this.phase === 'start') this.phase = 'off';
  }

  request(sender: Sender, method: string): Finding[] {
    if (sender === 'client') return this.clientRequest(method);
    if (method === 'ping' || this.phase === 'off' || this.phase === 'operating') return [];
    return [warning(RULES.beforeInitialized, '/method', `the server sent '${method}' before the client's notifications/initialized; before it, a server sends only ping and logging`)];
  }

  notification(sender: Sender, method: string): Finding[] {
    if (sender !== 'client') return [];
    if (this.phase === 'start') return this.notFirst(method);
    if (method === 'notifications/initialized' && this.phase === 'answered') this.phase = 'operating';
    return [];
  }

  /** The server answered initialize: with a result (`ok`) or an error. */
  initializeAnswered(ok: boolean): void {
    if (this.phase === 'initializing') this.phase = ok ? 'answered' : 'off';
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    if (how !== 'complete' || this.phase !== 'answered' || this.initializedMissingSaid) return [];
    return [warning(RULES.initializedMissing, '', 'the server returned its InitializeResult, but the client never sent notifications/initialized')];
  }

  private clientRequest(method: string): Finding[] {
    if (method === 'initialize') {
      if (this.phase === 'start') {
        this.phase = 'initializing';
        return [];
      }
      if (this.phase === 'off') return [];
      return [error(RULES.initializeRepeated, '/method', 'initialize was already sent in this session; a session is initialized once')];
    }
    if (this.phase === 'start') return this.notFirst(method);
    if (method === 'ping') return [];
    if (this.phase === 'initializing') {
      return [warning(RULES.beforeInitialized, '/method', `the client sent '${method}' before the server answered initialize; before that a client sends only ping`)];
    }
    if (this.phase === 'answered' && !this.initializedMissingSaid) {
      this.initializedMissingSaid = true;
      return [warning(RULES.beforeInitialized, '/method', `the client sent '${method}' after the InitializeResult without sending notifications/initialized first`)];
    }
    return [];
  }

  private notFirst(method: string): Finding[] {
    this.phase = 'off';
    return [error(RULES.initializeNotFirst, '/method', `the client's first message is '${method}'; an MCP session starts with initialize`)];
  }
}
