import { error, warning, type Finding } from '../../core/finding.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { HttpContext, InboundMessage, Sender } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { SchemaRegistry } from '../../schema/schema-registry.js';
import { classifyJsonRpc, formatId, idKey, JSON_RPC_RULES, JsonRpcCorrelator, type JsonRpcShape, type PendingRequest } from '../json-rpc/index.js';
import type { ProtocolChecker } from '../protocol.js';
import { missingCapability } from './capabilities.js';
import { Lifecycle } from './lifecycle.js';
import { LISTEN_METHOD } from './listen-stream.js';
import { ListenSubscriptions } from './listen-subscriptions.js';
import { MCP_RULES as RULES } from './mcp-rules.js';
import { RequestLedger } from './request-ledger.js';
import { McpSchemaPass, noSchemaReason, schemaTableOf } from './schema-choice.js';
import { isMcpVersion, MCP_HTTP_DEFAULT_VERSION, MCP_META_VERSION, MCP_MODERN_VERSIONS } from './schemas.js';
import { ToolCatalog } from './tool-catalog.js';

/**
 * One MCP session: a stdio server's stdin and stdout. Each message is judged against the schema of
 * the version the session negotiated (the InitializeResult's `protocolVersion`; a modern request's
 * `_meta` version), by the definition for its method and direction: the JSON-RPC envelope, then the
 * method's request or notification, or the result of the request a response answers. And by the
 * session's rules: the lifecycle, ids, cancellation, progress and the negotiated capabilities.
 */
export class McpChecker implements ProtocolChecker {
  private readonly correlator = new JsonRpcCorrelator();
  private readonly ledger = new RequestLedger();
  private readonly lifecycle = new Lifecycle();
  private readonly tools = new ToolCatalog();
  /** The negotiated version; before it, the version the initialize request asked for. */
  private version?: string;
  private requestedVersion?: string;
  private clientCapabilities?: unknown;
  private serverCapabilities?: unknown;
  /** Requests (by sender and id) sent as tasks (`params.task`), which a CreateTaskResult may answer. */
  private readonly taskRequests = new Set<string>();
  private judged = 0;
  /** 2026-07-28 over stdio: the session's listen subscriptions, which share its channel (over HTTP each has its own stream: http-checker.ts). */
  private listens?: ListenSubscriptions;
  /** Joined after its start: what a message says of one before the join cannot be checked. */
  private joined = false;

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly stdio: boolean,
  ) {}

  /** No message was judged yet. */
  get untouched(): boolean {
    return this.judged === 0;
  }

  /** The recording joined this session after its start (its first message is not initialize): its lifecycle is not judged. */
  joinedMidway(): void {
    this.joined = true;
    this.lifecycle.joined();
  }

  judge(message: InboundMessage): Verdict {
    this.judged++;
    const { value, sender, http } = message;
    if (value === undefined) return verdictFrom([this.notJsonRpc(sender, `it is not JSON (${message.parseError ?? 'not parsed'})`)]);
    if (!Array.isArray(value)) return this.one(sender, value, '', http);
    // A batch (2025-03-26 allowed them): each member judged as a message.
    if (value.length === 0) return verdictFrom([this.notJsonRpc(sender, 'it is an empty batch')]);
    const verdicts = value.map((member, i) => this.one(sender, member, `/${i}`, http));
    const findings = verdicts.flatMap((v) => v.findings);
    const judged = verdicts.find((v) => v.schemaRef !== undefined);
    if (!judged) return unchecked(verdicts.find((v) => v.reason)?.reason ?? 'no schema applies to this message', findings);
    return verdictFrom(findings, judged.schemaRef);
  }

  /** The version the InitializeResult negotiated (or a modern request named), once known. */
  get negotiatedVersion(): string | undefined {
    return this.version;
  }

  /**
   * The requests of `sender` among `ids` (by idKey) still open, neither answered nor cancelled, as
   * the warnings end() gives: over HTTP, the requests a POST sent, when its stream ended.
   */
  unanswered(sender: Sender, ids: ReadonlySet<string>, how: 'complete' | 'aborted'): Finding[] {
    const when = how === 'aborted' ? 'before the stream was aborted' : 'before the stream ended';
    return this.correlator
      .inFlight()
      .filter((p) => p.sender === sender && p.id !== null && ids.has(idKey(p.id)) && !this.ledger.wasCancelled(p.sender, p.id))
      .map((p) => warning(JSON_RPC_RULES.unansweredRequest, '', `request ${formatId(p.id)} ('${p.method}') sent by the ${sender} was never answered ${when}`));
  }

  /**
   * Over HTTP, the session's end (its client's DELETE, which the server accepted, or a new initialize
   * on its endpoint, whose server issues no session ids): what end() says of a stdio session, but of
   * the server's requests only, since each POST's end reported the client's its stream never answered.
   */
  sessionEnded(): Finding[] {
    const open = this.correlator.inFlight().filter((p) => p.sender === 'server' && p.id !== null && !this.ledger.wasCancelled(p.sender, p.id));
    const unanswered = open.map((p) => warning(JSON_RPC_RULES.unansweredRequest, '', `request ${formatId(p.id)} ('${p.method}') sent by the server was never answered before the session ended`));
    return [...unanswered, ...this.lifecycle.end('complete')];
  }

  end(how: 'complete' | 'aborted'): Finding[] {
    // A cancelled request need not be answered: the correlator's warnings, one per request in flight
    // in inFlight()'s order, without those.
    const pending = this.correlator.inFlight();
    // A listen lives until the transport closes (or its server ends it): it owes no answer either.
    const unanswered = this.correlator.end(how).filter((_, i) => !this.ledger.wasCancelled(pending[i].sender, pending[i].id) && !this.listens?.isListen(pending[i].sender, pending[i].id));
    return [...unanswered, ...this.lifecycle.end(how)];
  }

  private one(sender: Sender, value: unknown, at: string, http: HttpContext | undefined): Verdict {
    const shape = classifyJsonRpc(value);
    if (!isJsonObject(value) || value.jsonrpc !== '2.0' || shape.kind === 'other') {
      return verdictFrom([this.notJsonRpc(sender, isJsonObject(value) ? 'it is not a JSON-RPC 2.0 request, notification or response' : 'it is not a JSON object')]);
    }
    const behaviour = this.behaviour(sender, shape, value, http);
    if (this.joined) behaviour.findings = behaviour.findings.filter((f) => !BEFORE_THE_JOIN.has(f.rule));
    const version = this.versionOf(value, http);
    const reason = noSchemaReason(this.registry, version);
    if (reason !== undefined || !isMcpVersion(version)) return unchecked(reason ?? `MCP ${version} has no shipped schema`, prefixed(behaviour.findings, at));
    const pass = new McpSchemaPass(this.registry, version);
    this.schema(pass, shape, value, behaviour.answers);
    const findings = prefixed([...pass.findings, ...behaviour.findings], at);
    if (!pass.ran) return unchecked(pass.reasons.join('; ') || 'no schema applies to this message', findings);
    return verdictFrom(findings, pass.ref);
  }

  /**
   * The version a message is judged by: a modern request's own; else the one the session negotiated;
   * on HTTP, the `MCP-Protocol-Version` header of the request (a server message: of the request it
   * came back on); the one initialize asked for; and on HTTP without any of these, 2025-03-26 (the
   * transport's rule for a request without the header).
   */
  private versionOf(value: JsonObject, http?: HttpContext): string | undefined {
    const meta = isJsonObject(value.params) && isJsonObject(value.params._meta) ? value.params._meta[MCP_META_VERSION] : undefined;
    if (typeof meta === 'string' && MCP_MODERN_VERSIONS.has(meta)) return meta;
    const header = http ? headerOf(http.requestHeaders, 'mcp-protocol-version') : undefined;
    return this.version ?? header ?? this.requestedVersion ?? (http ? MCP_HTTP_DEFAULT_VERSION : undefined);
  }

  private behaviour(sender: Sender, shape: JsonRpcShape, value: JsonObject, http: HttpContext | undefined): { findings: Finding[]; answers?: PendingRequest } {
    const findings: Finding[] = [];
    const params = isJsonObject(value.params) ? value.params : undefined;
    if (shape.kind === 'request') {
      const meta = params && isJsonObject(params._meta) ? params._meta : undefined;
      const modern = meta?.[MCP_META_VERSION];
      if (typeof modern === 'string' && MCP_MODERN_VERSIONS.has(modern)) {
        // A modern session has no initialize: its requests name their version, which their answers are judged by.
        this.lifecycle.modern();
        this.version ??= modern;
        if (this.stdio && sender === 'client' && shape.method === LISTEN_METHOD) (this.listens ??= new ListenSubscriptions()).request(value);
      }
      findings.push(...this.lifecycle.request(sender, shape.method));
      findings.push(...this.ledger.request(sender, shape.id, shape.method, meta?.progressToken));
      if (shape.method === 'initialize' && sender === 'client') {
        this.requestedVersion ??= typeof params?.protocolVersion === 'string' ? params.protocolVersion : undefined;
        this.clientCapabilities ??= params?.capabilities;
      }
      if (params?.task !== undefined && shape.id !== null && TASK_AUGMENTABLE.has(shape.method)) this.taskRequests.add(`${sender}:${idKey(shape.id)}`);
      findings.push(...this.capability(sender, shape.method));
      if (shape.method === 'tools/call' && sender === 'client') findings.push(...this.tools.call(shape.id === null ? undefined : idKey(shape.id), params));
    } else if (shape.kind === 'notification') {
      findings.push(...this.lifecycle.notification(sender, shape.method));
      // Over stdio a 2026-07-28 server ends a subscription by cancelling its listen: the one cancellation a server may send.
      const endsListen = shape.method === 'notifications/cancelled' && this.listens?.cancelled(params?.requestId) === true;
      if (shape.method === 'notifications/cancelled' && !(endsListen && sender === 'server')) findings.push(...this.ledger.cancelled(sender, params?.requestId));
      if (sender === 'server' && this.listens) findings.push(...this.listens.notification(shape.method, value));
      if (shape.method === 'notifications/progress') findings.push(...this.ledger.progress(sender, params?.progressToken, params?.progress));
      if (shape.method === 'notifications/tools/list_changed' && sender === 'server') this.tools.listChanged();
    }
    if (shape.kind === 'request' || shape.kind === 'notification') findings.push(...this.direction(sender, shape.kind, shape.method, this.versionOf(value, http)));
    const correlated = this.correlator.observe(sender, shape);
    // MCP forbids a null id outright (mcp-null-request-id), where JSON-RPC only discourages it.
    findings.push(...correlated.findings.filter((f) => f.rule !== JSON_RPC_RULES.nullRequestId));
    const answers = correlated.answers;
    if (answers && shape.kind === 'response') {
      this.ledger.answered(sender, answers.id);
      if (answers.method === 'initialize' && answers.sender === 'client') this.initializeAnswered(value, shape.hasResult && !shape.hasError);
      const result = shape.hasResult && !shape.hasError ? value.result : undefined;
      if (answers.method === 'tools/list' && answers.sender === 'client') findings.push(...this.tools.listed(result));
      if (answers.method === 'tools/call' && answers.sender === 'client' && answers.id !== null) findings.push(...this.tools.answered(idKey(answers.id), result));
      if (answers.method === LISTEN_METHOD && answers.sender === 'client' && this.listens) findings.push(...this.listens.response(answers.id, value));
    }
    return { findings, answers };
  }

  private initializeAnswered(value: JsonObject, ok: boolean): void {
    this.lifecycle.initializeAnswered(ok);
    const result = ok && isJsonObject(value.result) ? value.result : undefined;
    if (!result) return;
    if (typeof result.protocolVersion === 'string') this.version = result.protocolVersion;
    this.serverCapabilities = result.capabilities;
  }

  /** A request for a capability its receiver did not declare, once both sides' capabilities are known. */
  private capability(sender: Sender, method: string): Finding[] {
    if (!this.lifecycle.negotiated) return [];
    const receiver = sender === 'client' ? 'server' : 'client';
    const missing = missingCapability(sender, method, sender === 'client' ? this.serverCapabilities : this.clientCapabilities);
    if (missing === undefined) return [];
    return [error(RULES.capabilityNotNegotiated, '/method', `the ${sender} sent '${method}', which needs the ${receiver}'s '${missing}' capability; the ${receiver} did not declare it in initialization`)];
  }

  /** A method the schema of the session's version lets only the other side send. */
  private direction(sender: Sender, kind: 'request' | 'notification', method: string, version: string | undefined): Finding[] {
    const table = isMcpVersion(version) ? schemaTableOf(this.registry, version) : undefined;
    const senders = table?.methods.get(method)?.[kind]?.senders;
    if (!senders || senders.size === 0 || senders.has(sender)) return [];
    const other = sender === 'client' ? 'server' : 'client';
    return [warning(RULES.wrongDirection, '/method', `'${method}' is a ${kind} the ${other} sends in MCP ${version}; the ${sender} sent it`)];
  }

  private schema(pass: McpSchemaPass, shape: JsonRpcShape, value: JsonObject, answers: PendingRequest | undefined): void {
    const table = schemaTableOf(this.registry, pass.version)!;
    if (shape.kind === 'request' || shape.kind === 'notification') {
      pass.run(shape.kind === 'request' ? table.envelope.request : table.envelope.notification, value);
      const own = table.methods.get(shape.method)?.[shape.kind];
      if (own) pass.run(own.def, value);
      return;
    }
    if (shape.kind !== 'response') return;
    if (shape.hasError) {
      pass.run(table.envelope.error, value);
      return;
    }
    pass.run(table.envelope.result, value);
    if (!answers || !shape.hasResult) return;
    // A receiver that does not run it as a task answers as usual: the result's `task` says which it did.
    const sentAsTask = answers.id !== null && this.taskRequests.delete(`${answers.sender}:${idKey(answers.id)}`);
    const asTask = sentAsTask && isJsonObject(value.result) && 'task' in value.result && table.has('CreateTaskResult');
    const method = table.methods.get(answers.method);
    if (!asTask && method?.response) pass.run(method.response, value);
    else {
      const def = asTask ? 'CreateTaskResult' : method?.result;
      if (def) pass.run(def, value.result, '/result');
    }
  }

  private notJsonRpc(sender: Sender, why: string): Finding {
    const where = this.stdio ? (sender === 'server' ? "a line on the server's stdout" : "a line on the server's stdin") : 'a message';
    return error(RULES.notJsonRpc, '', `${where} must be one JSON-RPC message; ${why}${this.stdio && sender === 'server' ? ' (logs belong on stderr)' : ''}`);
  }
}

/**
 * What a session joined midway (over HTTP, a recording started while its client was connected, or a
 * session forgotten while recording) cannot tell from a fault: a response, a cancellation or a
 * progress notification naming a request it may have missed.
 */
const BEFORE_THE_JOIN: ReadonlySet<string> = new Set([JSON_RPC_RULES.unknownResponseId, RULES.cancelUnknownRequest, RULES.progressUnknownToken]);

/**
 * The requests a `task` param makes a task of (2025-11-25): others (the SDK sends `task` on its
 * tasks/get and tasks/result polls too) are answered as usual.
 */
const TASK_AUGMENTABLE: ReadonlySet<string> = new Set(['tools/call', 'sampling/createMessage', 'elicitation/create']);

/** A request header's value, whatever its case (one value: the first of several). */
function headerOf(headers: HttpContext['requestHeaders'], name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
  }
  return undefined;
}

/** Findings of a batch member, with pointers into the whole batch. */
function prefixed(findings: Finding[], at: string): Finding[] {
  return at === '' ? findings : findings.map((f) => ({ ...f, pointer: at + f.pointer }));
}
