import { describeWithCorpus, corpusJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { matchRoute, piRestProtocol, ROUTES, type BodySpec } from '../../src/protocols/pi-rest/index.js';
import { upstreamFixture } from '../protocols/pi-rest/pi-rest-helpers.js';

type OpenApiSchema = { $ref?: string; allOf?: Array<{ properties?: { data?: { $ref?: string } } }>; type?: string; required?: string[] };
type OpenApiBody = { content?: Record<string, { schema: OpenApiSchema }> };
type OpenApiOperation = { operationId: string; requestBody?: OpenApiBody; responses: Record<string, OpenApiBody & { $ref?: string }> };

const openapi = corpusJson<{ paths: Record<string, Record<string, OpenApiOperation | unknown[]>> }>({ paths: {} }, 'schemas-extra', 'session-api.openapi.json');

/** The OpenAPI body, in the route table's terms, so the two can be compared. */
function describeOpenApiBody(body: OpenApiBody | undefined): string {
  if (!body?.content) return 'none';
  if (body.content['application/octet-stream']) return 'octet-stream';
  const schema = body.content['application/json'].schema;
  if (schema.$ref) return `def ${schema.$ref.replace(/^\.\//, '')}`;
  if (schema.allOf) return `envelope ${schema.allOf[1].properties!.data!.$ref!.replace(/^\.\//, '')}`;
  if (schema.required?.includes('evidence')) return 'reconcile';
  if (schema.type === 'object') return 'any-object';
  return 'unknown';
}

function describeTableBody(body: BodySpec): string {
  if (body.kind !== 'json') return body.kind;
  const s = body.schema;
  const file = (id: string) => id.slice(id.lastIndexOf('/') + 1);
  if (s.kind === 'def') return `def ${file(s.doc)}#/$defs/${s.name}`;
  if (s.kind === 'envelope') return `envelope ${file(s.data.doc)}#/$defs/${s.data.name}`;
  return s.kind;
}

describeWithCorpus('the hand-written route table', () => {
  const operations = Object.entries(openapi.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as OpenApiOperation })),
  );

  it('has exactly the operations of session-api.openapi.json', () => {
    expect(ROUTES.map((r) => r.operationId).sort()).toEqual(operations.map((o) => o.op.operationId).sort());
  });

  it.each(operations.map((o) => [o.op.operationId, o] as const))('%s matches the OpenAPI facts', (_id, { path, method, op }) => {
    const route = ROUTES.find((r) => r.operationId === op.operationId)!;
    expect(route.method).toBe(method);
    expect(route.template).toBe(path);
    expect(describeTableBody(route.request)).toBe(describeOpenApiBody(op.requestBody));
    const statuses = Object.keys(op.responses).map(Number);
    expect(route.errors).toEqual(statuses.filter((s) => s >= 400));
    for (const s of statuses.filter((s) => s < 400)) {
      const expected = s === 101 ? 'upgrade' : describeOpenApiBody(op.responses[String(s)]);
      expect(describeTableBody(route.success[s]), `${op.operationId} ${s}`).toBe(expected);
    }
    expect(Object.keys(route.success).map(Number)).toEqual(statuses.filter((s) => s < 400));
    for (const s of statuses.filter((s) => s >= 400)) expect(op.responses[String(s)].$ref).toMatch(/^#\/components\/responses\//);
  });

  it('matches literal segments before placeholders and decodes parameters', () => {
    expect(matchRoute('GET', '/v1/schedule/status')?.route.operationId).toBe('getScheduleStatus');
    expect(matchRoute('GET', '/v1/schedule/nightly')?.route.operationId).toBe('getSchedule');
    expect(matchRoute('get', '/v1/session/agent%2Fa?x=1')).toEqual({ route: expect.objectContaining({ operationId: 'getSession' }), params: { sessionRef: 'agent/a' } });
    expect(matchRoute('GET', '/v1/ticket?method=POST')?.route.operationId).toBe('getTicketByIdempotency');
    expect(matchRoute('POST', '/v1/ticket/t-1/reconcile')?.route.operationId).toBe('reconcileTicket');
    expect(matchRoute('GET', '/v1/session/')).toBeUndefined();
    expect(matchRoute('GET', '/v2/session')).toBeUndefined();
    expect(matchRoute('GET', '/session')).toBeUndefined();
  });
});

describeWithCorpus('piRestProtocol detection', () => {
  it('classifies HTTP on known /v1 routes high, and leaves WebSockets and other paths to others', () => {
    expect(piRestProtocol.classify({ transport: 'http', method: 'POST', path: '/v1/session' })).toBeGreaterThanOrEqual(0.9);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/ticket/ticket-1' })).toBeGreaterThanOrEqual(0.8);
    expect(piRestProtocol.classify({ transport: 'ws', path: '/v1/session/agent-a/rpc', subprotocol: 'pi-daemon-rpc.v1' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/session/agent-a/rpc' })).toBeLessThan(0.5);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/unknown' })).toBeLessThan(0.5);
    expect(piRestProtocol.classify({ transport: 'http', path: '/agent/run' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'sse', path: '/v1/session' })).toBe(0);
    expect(piRestProtocol.classify({ transport: 'http', path: '/v1/session', contentType: 'text/event-stream' })).toBe(0);
  });

  it('sniffs envelopes high and request bodies lower, and guesses the sender', () => {
    const envelope = upstreamFixture('ticket.response.json');
    const create = upstreamFixture('create.request.json');
    expect(piRestProtocol.sniff(envelope)).toBeGreaterThanOrEqual(0.9);
    expect(piRestProtocol.sniff(create)).toBeGreaterThan(0);
    expect(piRestProtocol.sniff(create)).toBeLessThan(piRestProtocol.sniff(envelope));
    expect(piRestProtocol.sniff(upstreamFixture('blob.materialize.request.json'))).toBeGreaterThan(0);
    expect(piRestProtocol.sniff(upstreamFixture('rpc.command.frame.json'))).toBe(0);
    expect(piRestProtocol.sniff({ jsonrpc: '2.0', id: 1, method: 'initialize' })).toBe(0);
    expect(piRestProtocol.guessSender(envelope)).toBe('server');
    expect(piRestProtocol.guessSender(upstreamFixture('error.response.json'))).toBe('server');
    expect(piRestProtocol.guessSender(create)).toBe('client');
  });
});
