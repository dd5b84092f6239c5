import { SseFramer, type SseFrame } from '../framing/sse-framer.js';
import type { Clock } from '../replay/clock.js';
import type { Substitution } from '../match/correlation.js';
import { planSessions, sseFieldsOf } from '../replay/http/recorded-sessions.js';
import { serverMessagesOf, type ScriptExchange } from '../replay/replay-script.js';
import { ConnectionIds } from './connection-ids.js';
import { learnEndpointIds } from './minted-ids.js';

/** How long an answer the recording had is waited for beyond its recorded gap, on which clock (tests move theirs by hand). */
export interface AnswerWait {
  ms: number;
  clock: Clock;
}

/** One event of the recorded stream: when it came, and its JSON value (undefined for one that is not JSON, the `endpoint` event). */
interface RecordedEvent {
  atMs: number;
  json: unknown;
}

/**
 * The GET stream of a session of an older HTTP+SSE transport (MCP 2024-11-05), as a redrive plays
 * it: the server names the URL its client posts to (with the session in its query) in the stream's
 * first event, `endpoint`, takes each POST with 202, and answers on the stream. Fed the live
 * stream's bytes as they come, it learns the URL the new server named (its session id carried
 * forward into the POSTs, as any minted id) and the ids its events mint, and holds each POST of the
 * session until the stream has carried as many events as it had carried before that POST in the
 * recording: the answers the client waited for come first, as they did (the `initialize` result
 * before `notifications/initialized`, a server's request before the client's answer to it).
 */
export class EndpointStream {
  private readonly framer = new SseFramer();
  private readonly recorded: RecordedEvent[];
  /** The recorded endpoint event's URL, as the client posted to it: path and query. */
  private readonly recordedEndpoint: string | undefined;
  private liveEndpoint: string | undefined;
  /** The data of each live event so far, as far as the recording had events to compare it with (comments are not events, as the recording keeps them apart). */
  private readonly live: string[] = [];
  private ended = false;
  private readonly wakers = new Set<() => void>();
  private readonly minted: ConnectionIds;

  /**
   * `opener`: the recorded GET; `members`: the session's other exchanges (its POSTs), in recorded
   * order; `ids`: the redrive's substitution, which what the stream mints is added to; `wait`: how
   * long, beyond the recorded gap, an event the recording had is waited for, on which clock.
   */
  constructor(
    readonly opener: ScriptExchange,
    private readonly members: readonly ScriptExchange[],
    private readonly endpointEvent: string,
    ids: Substitution,
    private readonly wait: AnswerWait,
  ) {
    const events = serverMessagesOf(opener).filter((m) => m.channel !== 'comment');
    this.recorded = events.map((m) => ({ atMs: m.tOffsetMs, json: m.json }));
    const first = events[0] === undefined ? undefined : sseFieldsOf(events[0]);
    this.recordedEndpoint = first?.event === endpointEvent && first.data !== undefined ? pathAndQuery(first.data) : undefined;
    this.minted = new ConnectionIds(this.recorded.map((e) => e.json), ids);
  }

  /** Does a request of this session wait for the stream (not the stream itself)? */
  holds(exchange: ScriptExchange): boolean {
    return this.members.includes(exchange);
  }

  /** A chunk of the live stream, as it came. */
  take(chunk: Buffer): void {
    for (const frame of this.framer.push(chunk)) this.event(frame);
  }

  /** The live stream ended (or was cut, or failed): no more events will come, and no one waits for them. */
  end(): void {
    for (const frame of this.framer.end()) this.event(frame);
    this.ended = true;
    this.wake();
  }

  /**
   * Resolves once the stream has carried the events it had carried before `exchange` started in
   * the recording, or the wait is over (the recorded gap between the session's last step and the
   * last of those events, plus the wait), or the stream has ended: with why, when they did not all come.
   */
  before(exchange: ScriptExchange): Promise<string | undefined> {
    const due = this.recorded.filter((e) => e.atMs < exchange.startedMs).length;
    return this.awaitEvents(due, exchange.startedMs, (had, limit) => `sent without all it waited for: the stream of exchange ${this.opener.id} had carried ${had} of the ${due} events it had before it in the recording ${limit}`);
  }

  /** Resolves once the stream has carried every event the recording holds of it (bounded as `before`): with why, when not. */
  whole(): Promise<string | undefined> {
    const due = this.recorded.length;
    return this.awaitEvents(due, this.opener.endedMs ?? Infinity, (had, limit) => `ended with ${had} of the ${due} events the recording holds of it ${limit}`);
  }

  /**
   * The URL a POST of the session goes to: the one the live endpoint event named, where the
   * recorded POST went to the recorded one; else `url` (the recorded one, with the ids carried).
   */
  urlFor(exchange: ScriptExchange, url: string): string {
    const recorded = `${exchange.path ?? '/'}${exchange.query ? `?${exchange.query}` : ''}`;
    return this.liveEndpoint !== undefined && recorded === this.recordedEndpoint ? this.liveEndpoint : url;
  }

  private event(frame: SseFrame): void {
    if (frame.data === undefined) return;
    if (this.live.length === 0 && frame.event === this.endpointEvent && this.recordedEndpoint !== undefined) {
      this.liveEndpoint = pathAndQuery(frame.data);
      if (this.liveEndpoint !== undefined) this.minted.ids.add(learnEndpointIds(this.recordedEndpoint, this.liveEndpoint));
    }
    this.live.push(this.live.length < this.recorded.length ? frame.data : '');
    this.minted.learn(this.live);
    this.wake();
  }

  private async awaitEvents(due: number, untilMs: number, unmet: (had: number, limit: string) => string): Promise<string | undefined> {
    if (this.live.length >= due) return undefined;
    // The recorded gap: from the session's last step before `untilMs` to the last event awaited.
    const lastStepMs = Math.max(this.opener.startedMs, ...this.members.filter((e) => e.startedMs < untilMs).map((e) => e.startedMs));
    const limitMs = Math.max(0, this.recorded[due - 1].atMs - lastStepMs) + this.wait.ms;
    const beforeTheWaitWasOver = await this.until(() => this.live.length >= due || this.ended, limitMs);
    if (this.live.length >= due) return undefined;
    return unmet(this.live.length, beforeTheWaitWasOver ? '(the stream ended)' : `(waited ${seconds(limitMs)})`);
  }

  /** Resolves with true once `done()` holds, false once `limitMs` has passed first. */
  private async until(done: () => boolean, limitMs: number): Promise<boolean> {
    const over = new AbortController();
    let check!: () => void;
    const met = new Promise<boolean>((resolve) => {
      check = () => {
        if (done()) resolve(true);
      };
    });
    this.wakers.add(check);
    check();
    try {
      return await Promise.race([met, this.wait.clock.sleep(limitMs, over.signal).then(() => false)]);
    } finally {
      over.abort();
      this.wakers.delete(check);
    }
  }

  private wake(): void {
    for (const check of [...this.wakers]) check();
  }
}

/**
 * The legacy session streams among a recording's HTTP exchanges, each found by its GET's
 * `endpoint` event (the protocols' session hints say which), with the exchanges that post to it.
 */
export class EndpointStreams {
  private readonly byExchange = new Map<ScriptExchange, EndpointStream>();

  constructor(exchanges: readonly ScriptExchange[], ids: Substitution, wait: AnswerWait) {
    const byId = new Map(exchanges.map((e) => [e.id, e]));
    for (const session of planSessions(exchanges).sessions) {
      if (session.via !== 'query' || session.hints.endpointEvent === undefined) continue;
      const [opener, ...members] = session.exchanges;
      // planSessions labels the exchanges it places: the script's own are found by id.
      const own = (e: ScriptExchange) => byId.get(e.id) ?? e;
      const stream = new EndpointStream(own(opener), members.map(own), session.hints.endpointEvent, ids, wait);
      for (const e of [opener, ...members]) this.byExchange.set(own(e), stream);
    }
  }

  /** The stream `exchange` opens or posts to, if it is one of a legacy session's. */
  of(exchange: ScriptExchange): EndpointStream | undefined {
    return this.byExchange.get(exchange);
  }
}

/** The path and query of an endpoint event's URL (relative, or absolute on the server's origin). */
function pathAndQuery(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim(), 'http://endpoint.invalid');
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
