import type { Finding } from '../core/finding.js';
import type { HeaderMap } from '../core/header-value.js';
import type { InboundMessage } from '../core/message.js';
import type { Transport } from '../core/transport.js';
import type { Verdict } from '../core/verdict.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import type { SchemaSpec } from '../schema/schema-sources.js';
import type { RecordingSecrets } from './recording-secrets.js';
import type { RecordingScope } from './recording-scope.js';
import type { HttpMissAnswer, MissAnswers, MissedHttpRequest, MissFacts } from './miss-answer.js';
import type { FaultAnswers } from './fault-answers.js';
import type { ProtocolViews } from './inspector-views.js';
import type { FieldRoles } from './field-roles.js';

/*
 * The parts a protocol module is made of. The protocols themselves, and `ProtocolId`, the union of
 * their ids, are listed in one place only: catalog.ts. These types take a module's id as a plain
 * string (or as the literal `Id` a module declares), so that a module can be written without the
 * catalog that lists it.
 */

/** What carries a channel's messages: a recording's transports, and `file`, a file handed to `validate`. */
export type ChannelTransport = ChannelHint['transport'];

/** What the capture layer knows about a channel before (or as) its first message arrives. */
export interface ChannelHint {
  /** `file`: a file handed to `validate`, which could hold anything. */
  transport: Transport | 'file';
  method?: string;
  /** Request path without query. */
  path?: string;
  /** Response content type, for HTTP. */
  contentType?: string;
  /** Negotiated (or offered) WebSocket subprotocol. */
  subprotocol?: string;
  /** Parsed request body, for HTTP. */
  requestBody?: unknown;
  /** The request's headers as stored (credentials redacted), for HTTP: MCP's `Mcp-Session-Id` says a body-less GET is its own. */
  requestHeaders?: HeaderMap;
  /**
   * An event stream's first event, when it is text and not JSON (the older MCP transport's `endpoint`
   * event names the URL its client POSTs to): it may name the stream's protocol before any JSON does.
   */
  firstEvent?: string;
  /**
   * A protocol already recognised in the channel's first messages (a stdio child's first lines), and
   * the evidence that recognised it (`ACP method initialize`): it is taken as it is.
   */
  sniffed?: { protocol: string; evidence: string };
}

export interface CheckerContext {
  registry: SchemaRegistry;
  /** Recording-wide store of write-only secrets (Pi session env values) and their leak check. */
  secrets: RecordingSecrets;
  /** For AG-UI: the RunAgentInput that opened this stream, when the capture layer saw it. */
  requestBody?: unknown;
  /**
   * Where the channel runs, when known: its transport and, for HTTP and WebSocket, the request's
   * method, path and headers as stored (an event of an HTTP answer carries no request of its own:
   * MCP finds a GET stream's session by its `Mcp-Session-Id`).
   */
  channel?: { transport: ChannelTransport; method?: string; path?: string; requestHeaders?: HeaderMap };
  /** Recording-wide state shared by the checkers of every channel; absent when judging one stream alone. */
  scope?: RecordingScope;
}

/**
 * A stateful checker for one stream or connection (for Pi REST: one per recording).
 * judge() returns the message's verdict: schema findings plus behavioural findings.
 * end() returns stream-level findings (truncation, unanswered requests), which the caller
 * attaches to the last message of the stream.
 */
export interface ProtocolChecker {
  judge(message: InboundMessage): Verdict;
  /**
   * The verdict of a message that is not JSON, when the protocol knows such a message (OpenAI's
   * `data: [DONE]`); undefined (or absent) leaves it an `invalid-json` error.
   */
  judgeText?(message: InboundMessage): Verdict | undefined;
  end(how: 'complete' | 'aborted'): Finding[];
  /**
   * Called after end(), and for a stream cut without end(): findings of a state that spans streams and ended with this one, which
   * belong on another stream's last message because this one has no message to carry them (an MCP
   * session over HTTP ended by its client's DELETE: its end goes to the session's last exchange).
   * `to` is the checker of that stream, as the caller made it.
   */
  endElsewhere?(end: StreamEnd): HandedFindings[];
}

/**
 * How a stream ended, for endElsewhere: as end()'s `how`, or `cut` for one whose stream rules do
 * not run (an upstream that failed, a stream its client or the proxy's stop cut; end() is not
 * called); and an HTTP exchange's status.
 */
export interface StreamEnd {
  how: 'complete' | 'aborted' | 'cut';
  status?: number;
}

/** Findings one stream's end gives to another stream, for its last message. */
export interface HandedFindings {
  to: ProtocolChecker;
  findings: Finding[];
}

/** Everything that knows what one protocol's messages mean. Adding a protocol means adding one of these. */
export interface ProtocolModule<Id extends string = string> extends ProtocolFacts<Id> {
  readonly title: string;
  /** Which side sent a message, guessed from its shape, for inputs that do not say (validate on a file). */
  guessSender(value: unknown): 'client' | 'server';
  createChecker(context: CheckerContext): ProtocolChecker;
  /**
   * 'stream' (default): one checker per stream or connection.
   * 'recording': one checker for the whole recording, for rules that span exchanges (Pi REST).
   */
  readonly checkerScope?: 'stream' | 'recording';
  /**
   * A copy of a message safe to store, when the protocol knows of write-only fields in it
   * (Pi session `spec.env`, stored as `secrets.digest` of each value); undefined when the message can
   * be stored as it is.
   */
  redactForStorage?(message: InboundMessage, secrets: RecordingSecrets): unknown;
  /** How its streams fold for `diff --semantic`, so that re-chunking the same content is no difference. */
  readonly semantic?: SemanticFold;
  /** What the inspector shows of its conversations besides their messages (the AG-UI run, a Pi or ACP session). */
  readonly views?: ProtocolViews;
}

/**
 * What a client materialises from a stream of a protocol (the AG-UI run, a Pi session's text and
 * tool executions, ACP's chunked messages): `diff --semantic` compares that one result instead of
 * the server messages it folds, which vary in number and cut from run to run.
 */
export interface SemanticFold {
  /** The transports whose streams fold (an AG-UI event stream, not a plain request). */
  readonly transports: readonly ChannelTransport[];
  /** Is this server message compared only through the folded result? */
  folds(value: unknown): boolean;
  /** Does this server message feed the folded result (default: the folded ones)? Pi's message boundaries do, compared one by one too. */
  feeds?(value: unknown): boolean;
  /** Is this client message folded too (compared only through the result, and fed to it)? A conversation whose requests the result pairs with their answers. */
  foldsClient?(value: unknown): boolean;
  /**
   * The folded result of the messages fed, given the exchange's first client message and who sent
   * each message fed (in order); `kind` labels it in reports.
   */
  fold(fed: readonly unknown[], request: unknown, senders?: ReadonlyArray<'client' | 'server'>): { kind: string };
  /**
   * Names a difference between two results by what it is to the protocol (`tool "echo": inputSchema
   * /properties/message/type`), given its pointer into them; reports show the name with the pointer.
   */
  describe?(pointer: string, a: unknown, b: unknown): string | undefined;
  /**
   * Does a call answered whole (over `http`) pair with the same call streamed (over `sse`)? Then
   * `--semantic` aligns them as one call whichever transport carried each, compares the results (the
   * result says how the answer came), and leaves out the response headers that only say that
   * (DELIVERY_HEADERS). A model API's `stream: true` is a choice of delivery, not another call.
   */
  readonly pairsDeliveries?: boolean;
  /** Fields not compared under `--semantic` (Pi's event counters, which count the folded partials too). */
  readonly drops?: readonly string[];
  /**
   * Is this message without JSON one that tells the client nothing, left out under `--semantic`
   * (an SSE event that only primes a stream with a fresh event id)?
   */
  saysNothing?(raw: string): boolean;
  /**
   * Does this folded result tell nothing (no declaration, no list, no call)? An exchange whose only
   * compared message is such a result is left out under `--semantic`: over HTTP, an MCP ping's POST.
   */
  isEmpty?(result: { kind: string }): boolean;
}

/**
 * What every tool needs of a protocol without judging its messages: its id, which channels are its
 * own, and its replay hints. Kept in a module of its own per protocol (`<id>/replay-facts.ts`), apart
 * from the checker, so that a replay does not load the judging code: catalog.ts lists these, and
 * modules.ts the full modules they are part of.
 */
export interface ProtocolFacts<Id extends string = string, Over extends ChannelTransport = ChannelTransport> {
  readonly id: Id;
  /**
   * Its carriers: the transports it runs over. Messages sampled on any other never choose it
   * (JSON-RPC is not judged on HTTP); on a channel of one of them, classify says how sure its
   * route, subprotocol or media type make it, and a message's sniff how sure its shape does.
   */
  readonly transports: readonly Over[];
  /**
   * On a stdio child, whose first lines choose its protocol (the first sniffed as one of the
   * protocols that run there): whether a line sniffed as this protocol decides the stream
   * (default: it does). Plain JSON-RPC's responses do not, since a dialect's (ACP's) are JSON-RPC
   * responses too: they decide only when nothing more specific came in the lines held back.
   */
  decidesStdio?(value: unknown): boolean;
  /**
   * Its fields that are not plain data, each with its role (field-roles.ts): the ids its peers mint,
   * what differs on every run, what is stored as a digest or redacted. Record, replay and diff all
   * read this one list, through the helpers of field-roles.ts.
   */
  readonly fields?: FieldRoles;
  /**
   * How sure (0..1) we are that a channel carries this protocol; 0 means not ours. Only evidence that
   * is the protocol's own counts (its routes, its subprotocol, its media type, its request body): a
   * `/v1/` prefix or an event stream alone is anybody's.
   */
  classify(hint: ChannelHint): number;
  /**
   * How sure (0..1) we are that a lone parsed message belongs to this protocol (for files and stdio).
   * With the evidence texts, a fact and not the module's: telling a file's protocol loads only the
   * module of the protocol it has.
   */
  sniff(value: unknown): number;
  /** What in a channel this protocol claims made it claim it (`route GET /v1/session/{sessionRef}`), for `show`. */
  channelEvidence(hint: ChannelHint): string;
  /** What in a message it sniffs as its own made it so (`ACP method initialize`, `AG-UI event RUN_STARTED`). */
  messageEvidence(value: unknown): string;
  /**
   * The protocol this one is a dialect of (ACP of JSON-RPC): when a sample's messages vote for the base,
   * any message that is the dialect's own makes the stream the dialect's.
   */
  readonly dialectOf?: string;
  /** What `proxy replay` must know to match requests and echo the client's ids (see ReplayHints). */
  readonly replay?: ReplayHints;
  /**
   * The schema documents its messages are judged by, and where each is read from: every registry
   * loads them (the catalog declares them). Its checker addresses them by `$id` through
   * `CheckerContext.registry`, and may choose among several versions per conversation.
   */
  readonly schemas?: readonly SchemaSpec[];
  /**
   * The family it belongs to, a name `record --protocol` also takes (`pi-daemon`: the daemon's REST
   * and RPC): given it, the family's protocols are told apart per exchange, as `auto` does.
   */
  readonly family?: string;
  /** A binary wire encoding its messages may travel in besides JSON (AG-UI's protobuf). */
  readonly binding?: WireBinding;
  /**
   * Its module assembles model answers (`views.answer`): `show` loads the protocol modules for a
   * recording's answers and token totals only when an exchange is of such a protocol.
   */
  readonly answers?: boolean;
  /**
   * The rules its checker's `end()` reports about a stream as a whole (a run never finished, a
   * request never answered). Such a finding is stored on the stream's last message with the pointer
   * `''`, as one on a message's whole document is; the rule tells the two apart (`at the end of the
   * stream` in every text output).
   */
  readonly streamEndRules?: readonly string[];
  /**
   * The protocols whose folders its own code imports from, by id: the one it is a dialect of (ACP
   * reuses JSON-RPC's envelope, correlation and miss answer), the one whose messages it carries (the
   * daemon's framed RPC carries Pi RPC's commands), the one that holds a schema it is judged by too
   * (pi-rest, the Pi daemon's session API). Its folder imports from no other, and never from one that
   * builds on it (lint:deps, rules `protocol-builds-on:<id>`, read this list).
   */
  readonly buildsOn?: readonly string[];
}

/**
 * A binary encoding of a protocol's messages: a body of its media type is a stream of frames, each a
 * 4-byte big-endian length and a payload, which decodes to the JSON value the text binding carries.
 * The record pipeline frames and decodes such a body through it, and the redaction of what is stored
 * re-encodes a frame whose secret fields it replaced. Its codec, often a large library, is loaded on
 * first need.
 */
export interface WireBinding {
  /** The transport, and the channel its frames are stored under (`proto`). */
  readonly channel: 'proto';
  /** The media type that announces it, compared whole (with a parameter its client reads the body as text). */
  readonly mediaType: string;
  /** What the encoding is called, and whose client reads it, in what a finding says (`protobuf`, `AG-UI`). */
  readonly encoding: string;
  readonly client: string;
  /** Loads the codec; settles whether or not it could (decode says why not then). */
  load(): Promise<void>;
  /** True once load() has settled. */
  settled(): boolean;
  /** One frame's payload as a message, or what kept it from decoding. */
  decode(payload: Uint8Array): { value?: unknown; error?: string };
  /** A whole frame (length prefix and payload) for a message; undefined when the codec is not loaded or refuses it. */
  encodeFrame(value: unknown): Buffer | undefined;
}

/** A message's part in a request made of the other side: asking, or answering; `id` pairs the two. */
export interface PeerRequestRole {
  role: 'request' | 'answer';
  id: string;
}

/**
 * Replay hints of a protocol: how a miss is answered, and which route a path is on. What matching
 * ignores and what it substitutes are the roles of its fields (ProtocolFacts.fields).
 */
export interface ReplayHints {
  /** How a replay answers what it could not match, in the protocol's own error shape (miss-answer.ts). */
  readonly missAnswers?: MissAnswers;
  /** How it says a failure injected by `--fault` (a status, an error event mid-stream), in its own error shape (fault-answers.ts). */
  readonly faultAnswers?: FaultAnswers;
  /**
   * The route template a request path is an instance of (`/v1/session/{sessionRef}`), or undefined:
   * a miss's nearest recorded exchange is looked for on the same route first.
   */
  routeTemplate?(method: string, path: string): string | undefined;
  /**
   * Where a message of a conversation stands in a request one side makes of the other: the request
   * (JSON-RPC's request, Pi's `extension_ui_request`) or its answer, with the id that pairs them;
   * undefined for anything else. A turn-by-turn replay (stdio, WebSocket, NDJSON) takes a client's
   * answer to a request the replay sent whenever it comes, before or after the client's own next
   * message, since the protocol does not order the two (pending-turns.ts).
   */
  peerRequest?(message: unknown): PeerRequestRole | undefined;
  /**
   * How one conversation spreads over many HTTP requests that a session ties together (MCP's
   * Streamable HTTP and HTTP+SSE transports): a replay then plays each live session from the start
   * of a recorded one, under a session id of its own.
   */
  readonly sessions?: SessionHints;
  /**
   * A request whose answer is a stream that lives until its client closes it (MCP 2026-07-28's
   * `subscriptions/listen`): one the recording left open (its client or the recorder cut it) stays
   * open on a replay after its last message, until its client or the replay ends it.
   */
  longLived?(requestBody: unknown): boolean;
}

/**
 * The marks of a protocol's HTTP sessions in a recording and on the wire. A session is opened by a
 * request whose body `opens` (its answer issues the id in `header`), or by a GET whose event stream
 * starts with `endpointEvent` (the URL the client posts to, the id in its query); every later request
 * names it in `header` or in that query.
 */
export interface SessionHints {
  /** The header that issues a session on an answer and names it on later requests, lowercase (`mcp-session-id`). */
  readonly header: string;
  /** Does this client message open a session (MCP's `initialize`)? */
  opens(body: unknown): boolean;
  /** The SSE event whose data is the URL a legacy session's client posts to (`endpoint`). */
  readonly endpointEvent?: string;
  /** The SSE event a legacy session's stream carries each message in (`message`): a miss's answer goes there too. */
  readonly messageEvent?: string;
  /**
   * Does a server message recorded after this client message wait for it to arrive live? A request
   * or a response (the answer to a server's request) does; a notification, which a client may or may
   * not send (a cancellation, a progress), does not.
   */
  awaited(body: unknown): boolean;
  /** The answer to a request naming a session that is not (or no longer) live: MCP's 404, after which its client initializes anew. */
  unknownSession(request: MissedHttpRequest, miss: MissFacts): HttpMissAnswer;
}
