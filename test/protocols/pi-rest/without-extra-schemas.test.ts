import { describe, expect, it } from 'vitest';
import { PI_SESSION_API_ID } from '../../../src/schema/schema-registry.js';
import { DASHBOARD_API_ID, SCHEDULE_SCHEMA_ID } from '../../../src/protocols/pi-rest/route-table.js';
import { bareRegistry } from '../../support/shared.js';
import { judgeExchange, newJudge } from './pi-rest-helpers.js';
import { restExchanges } from './rest-exchanges.js';

const exchanges = restExchanges();
const body = <T = unknown>(label: string, side: 'request' | 'response' = 'response') => exchanges.find((e) => e.label === label)![side].body as T;
const envelope = (data: unknown) => ({ apiVersion: '1.0', requestId: 'req-1', hostInstanceId: 'host-1', ok: true, data });

describe('Pi REST without --schemas (project schemas only)', () => {
  it('leaves dashboard and schedule envelopes unchecked, naming the missing $id, and still checks the rest', () => {
    const registry = bareRegistry();
    expect(registry.has(DASHBOARD_API_ID)).toBe(false);
    expect(registry.has(SCHEDULE_SCHEMA_ID)).toBe(false);
    const { judge } = newJudge(registry);

    const dashboard = judgeExchange(judge, {
      method: 'GET',
      path: '/v1/dashboard/capabilities',
      status: 200,
      responseBody: envelope({ apiVersion: '1.0', authentication: 'service-bearer', resources: { inventory: true } }),
    }).response!;
    expect(dashboard.status).toBe('unchecked');
    expect(dashboard.reason).toContain(DASHBOARD_API_ID);
    expect(dashboard.reason).toContain('--schemas');
    expect(dashboard.schemaRef).toBe(`${PI_SESSION_API_ID}#/$defs/dashboardServiceCapabilitiesEnvelope`);
    expect(dashboard.findings).toEqual([]);

    const schedules = judgeExchange(judge, {
      method: 'GET',
      path: '/v1/schedule',
      status: 200,
      responseBody: envelope({ schedules: [] }),
    }).response!;
    expect(schedules.status).toBe('unchecked');
    expect(schedules.reason).toContain(SCHEDULE_SCHEMA_ID);
    expect(schedules.reason).toContain('--schemas');

    // The same checker still judges what the project schema covers on its own.
    const ticket = body<{ data: { ticketId: string } }>('session.create');
    const polled = judgeExchange(judge, { method: 'GET', path: `/v1/ticket/${ticket.data.ticketId}`, status: 200, responseBody: ticket }).response!;
    expect(polled).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/ticketEnvelope`, findings: [] });

    const notFound = judgeExchange(judge, { method: 'GET', path: '/v1/session/nope', status: 404, responseBody: body('session.get.not-found') }).response!;
    expect(notFound).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/apiErrorEnvelope`, findings: [] });

    const create = body<{ requestId: string }>('session.create', 'request');
    const created = judgeExchange(judge, {
      method: 'POST',
      path: '/v1/session',
      requestHeaders: { 'Idempotency-Key': 'create-1', 'X-Request-Id': create.requestId },
      requestBody: create,
      status: 202,
    }).request!;
    expect(created).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/sessionCreateRequest`, findings: [] });

    const session = judgeExchange(judge, { method: 'GET', path: '/v1/session/agent-a', status: 200, responseBody: body('session.get') }).response!;
    expect(session.status).toBe('valid');
  });
});
