import type { Finding } from '../../core/finding.js';
import { warning } from '../../core/finding.js';
import type { HttpContext, InboundMessage } from '../../core/message.js';
import { unchecked, verdictFrom, type Verdict } from '../../core/verdict.js';
import type { CheckerContext, ProtocolChecker } from '../protocol.js';
import { isEnvelope } from './envelope.js';
import { ExchangePairing } from './exchange-pairing.js';
import { idempotencyKeyFindings } from './idempotency-rule.js';
import { stringField } from './json-value.js';
import { isJsonObject } from '../../core/json.js';
import { requestIdConflict, requestIdEcho } from './request-id-rules.js';
import { matchRoute, pathWithoutQuery } from './route-matcher.js';
import { API_ERROR_ENVELOPE, defName, describeRoute, type BodySpec, type RouteSpec, type SchemaSpec } from './route-table.js';
import { PI_REST_RULES } from './rule-ids.js';
import { schemaCheckFor } from './schema-lookup.js';
import { SessionVersionTracker } from './session-version-rules.js';
import { registerSessionEnv } from './session-env.js';
import { ENV_CARRYING_DEFS, inferSchemaByShape } from './shape-inference.js';
import { TicketStateTracker } from './ticket-rules.js';

/**
 * One checker per recording: Pi REST rules span exchanges (ticket polls, session versions), so the
 * state lives here rather than per connection. Each body is validated against the `$def` its route and
 * status name; behavioural findings are added on top.
 */
export class PiRestChecker implements ProtocolChecker {
  private readonly tickets = new TicketStateTracker();
  private readonly sessions = new SessionVersionTracker();
  private readonly pairing = new ExchangePairing();

  constructor(private readonly context: CheckerContext) {}

  judge(message: InboundMessage): Verdict {
    return this.scrubbed(this.judgeMessage(message));
  }

  end(): Finding[] {
    return [];
  }

  private judgeMessage(message: InboundMessage): Verdict {
    const http = message.http;
    if (!http) return this.judgeWithoutRoute(message.value);
    const path = pathWithoutQuery(http.path);
    const method = http.method.toUpperCase();
    const match = matchRoute(method, path);
    if (!match) return unchecked(`no route matches ${method} ${path}`);
    return message.sender === 'client'
      ? this.judgeRequest(message.value, http, path, match.route)
      : this.judgeResponse(message.value, http, path, match.route);
  }

  /**
   * Findings quote ids and paths from the traffic; should one of them carry a registered env value,
   * it must not reach a finding. MessageJudge scrubs as well; this keeps the checker safe on its own.
   */
  private scrubbed(verdict: Verdict): Verdict {
    const secrets = this.context.secrets;
    if (secrets.size === 0) return verdict;
    const findings = verdict.findings.map((f) => ({ ...f, message: secrets.scrub(f.message), pointer: secrets.scrub(f.pointer) }));
    return verdict.reason === undefined ? { ...verdict, findings } : { ...verdict, findings, reason: secrets.scrub(verdict.reason) };
  }

  private judgeRequest(body: unknown, http: HttpContext, path: string, route: RouteSpec): Verdict {
    const spec = route.request;
    // Register before anything else: the values were sent whatever the verdict turns out to be.
    if (spec.kind === 'json' && ENV_CARRYING_DEFS.has(defName(spec.schema) ?? '')) registerSessionEnv(body, this.context.secrets);
    const findings = [...idempotencyKeyFindings(http, path)];
    if (spec.kind === 'json') findings.push(...requestIdConflict(http, body));
    this.pairing.open(http, { bodyRequestId: spec.kind === 'json' ? stringField(body, 'requestId') : undefined });
    switch (spec.kind) {
      case 'json':
        return this.validate(spec.schema, body, findings);
      case 'octet-stream':
        return unchecked(`${describeRoute(route)} takes an octet-stream body, not JSON`, findings);
      default:
        return unchecked(`${describeRoute(route)} takes no JSON body`, findings);
    }
  }

  private judgeResponse(body: unknown, http: HttpContext, path: string, route: RouteSpec): Verdict {
    const pending = this.pairing.take(http);
    const findings: Finding[] = [];
    // A request with a JSON body got this warning on its own message already.
    if (pending === undefined) findings.push(...idempotencyKeyFindings(http, path));
    if (isEnvelope(body)) findings.push(...requestIdEcho(http, body, pending?.bodyRequestId));

    const status = http.status;
    if (status === undefined) return unchecked(`the response to ${describeRoute(route)} has no HTTP status, so its $def cannot be chosen`, findings);
    const chosen = responseSpec(route, status);
    if ('reason' in chosen) return unchecked(chosen.reason, findings);
    findings.push(...chosen.findings);
    if (chosen.body.kind !== 'json') return unchecked(noJsonReason(route, status, chosen.body), findings);

    const schema = chosen.body.schema;
    if (status < 400) findings.push(...this.observeResources(defName(schema), body, `${route.method} ${path} → ${status}`));
    return this.validate(schema, body, findings);
  }

  /** No HTTP context (a file of bodies): pick the `$def` by shape, or leave the body unchecked. */
  private judgeWithoutRoute(body: unknown): Verdict {
    const spec = inferSchemaByShape(this.context.registry, body);
    if (!spec) {
      return unchecked('no HTTP route context: a Pi REST body is checked against the $def of its route and status, and this body does not fit exactly one of their shapes');
    }
    const name = defName(spec) ?? '';
    if (ENV_CARRYING_DEFS.has(name)) registerSessionEnv(body, this.context.secrets);
    return this.validate(spec, body, this.observeResources(name, body, 'a body without route'));
  }

  private validate(spec: SchemaSpec, body: unknown, behavioural: Finding[]): Verdict {
    const check = schemaCheckFor(this.context.registry, spec);
    if (!check.ok) return unchecked(check.reason, behavioural, check.ref);
    const schemaFindings = check.validate(body);
    if (spec.kind === 'any-object' && schemaFindings.length === 0) {
      return unchecked('the route table types this body only as a JSON object; its fields are not specified', behavioural, check.ref);
    }
    return verdictFrom([...schemaFindings, ...behavioural], check.ref);
  }

  /** Ticket states and session versions seen in a success body. */
  private observeResources(def: string | undefined, body: unknown, where: string): Finding[] {
    if (!isEnvelope(body) || body.ok !== true || !isJsonObject(body.data)) return [];
    const data = body.data;
    switch (def) {
      case 'ticketEnvelope': {
        const findings = this.tickets.observe(data, '/data');
        const operation = data.operation;
        const sessionId = stringField(data, 'sessionId');
        if ((operation === 'create' || operation === 'update') && isJsonObject(data.result)) {
          this.sessions.note(data.result, `the result of ticket '${String(data.ticketId)}'`);
        }
        if (operation === 'delete' && data.state === 'succeeded' && sessionId !== undefined) this.sessions.forget(sessionId);
        return findings;
      }
      case 'sessionEnvelope':
        return this.sessions.check(data, '/data', where);
      case 'sessionListEnvelope': {
        if (!Array.isArray(data.sessions)) return [];
        return data.sessions.flatMap((s, i) => this.sessions.check(s, `/data/sessions/${i}`, where));
      }
      default:
        return [];
    }
  }
}

type ChosenSpec = { body: BodySpec; findings: Finding[] } | { reason: string };

/**
 * Which body a status carries: every 4xx/5xx is `apiErrorEnvelope` (the daemon authenticates and
 * admits before routing, so 401/429/503 can come from any route); a declared success status has its
 * own body; an undeclared 2xx falls back to the route's only JSON success body, with a warning.
 */
function responseSpec(route: RouteSpec, status: number): ChosenSpec {
  if (status >= 400) return { body: { kind: 'json', schema: API_ERROR_ENVELOPE }, findings: [] };
  const declared = route.success[status];
  if (declared) return { body: declared, findings: [] };
  const jsonSuccess = Object.entries(route.success).filter(([, b]) => b.kind === 'json');
  if (status >= 200 && status < 300 && jsonSuccess.length === 1) {
    const [declaredStatus, body] = jsonSuccess[0];
    return {
      body,
      findings: [
        warning(PI_REST_RULES.undeclaredStatus, '', `${describeRoute(route)} answered ${status}, but the route table declares ${declaredStatus}; checked against that status's body`),
      ],
    };
  }
  return { reason: `${describeRoute(route)} declares no JSON body for status ${status}` };
}

function noJsonReason(route: RouteSpec, status: number, body: BodySpec): string {
  switch (body.kind) {
    case 'octet-stream':
      return `${describeRoute(route)} answers ${status} with an octet-stream body, not JSON`;
    case 'upgrade':
      return `${describeRoute(route)} answers ${status} by switching to a WebSocket; its frames belong to another protocol module`;
    default:
      return `${describeRoute(route)} declares no body for status ${status}`;
  }
}
