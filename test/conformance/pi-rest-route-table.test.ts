import { describeWithCorpus, corpusJson } from '../support/shared.js';
import { expect, it } from 'vitest';
import { routeTable, type BodySpec } from '../../src/protocols/pi-rest/index.js';

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
    expect(routeTable().map((r) => r.operationId).sort()).toEqual(operations.map((o) => o.op.operationId).sort());
  });

  it.each(operations.map((o) => [o.op.operationId, o] as const))('%s matches the OpenAPI facts', (_id, { path, method, op }) => {
    const route = routeTable().find((r) => r.operationId === op.operationId)!;
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
});
