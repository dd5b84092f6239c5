import { describe, expect, it } from 'vitest';
import { PI_SESSION_API_ID } from '../../../src/protocols/pi-rest/schemas.js';
import { DASHBOARD_API_ID, SCHEDULE_SCHEMA_ID } from '../../../src/protocols/pi-rest/route-table.js';
import { bareRegistry, registryWithout } from '../../support/shared.js';
import { judgeExchange, newJudge } from './pi-rest-helpers.js';
import { restExchanges } from './rest-exchanges.js';

const exchanges = restExchanges();
const body = <T = unknown>(label: string, side: 'request' | 'response' = 'response') => exchanges.find((e) => e.label === label)![side].body as T;
const envelope = (data: unknown) => ({ apiVersion: '1.0', requestId: 'req-1', hostInstanceId: 'host-1', ok: true, data });

describe('Pi REST without --schemas (what ships)', () => {
  it('judges the dashboard and schedule envelopes with the shipped pi-daemon schemas', () => {
    const { judge } = newJudge(bareRegistry());
    const dashboard = judgeExchange(judge, { method: 'GET', path: '/v1/dashboard/capabilities', status: 200, responseBody: envelope({ apiVersion: '1.0' }) }).response!;
    // Judged, so a body that is not the daemon's is found out: the capabilities need more than a version.
    expect(dashboard.status).toBe('invalid');
    expect(dashboard.schemaRef).toBe(`${PI_SESSION_API_ID}#/$defs/dashboardServiceCapabilitiesEnvelope`);
    expect(dashboard.findings.length).toBeGreaterThan(0);
    expect(dashboard.findings.every((f) => f.rule === 'schema' && f.pointer.startsWith('/data'))).toBe(true);

    const schedules = judgeExchange(judge, { method: 'GET', path: '/v1/schedule', status: 200, responseBody: envelope({ schedules: [] }) }).response!;
    expect(schedules.status).not.toBe('unchecked');
    expect(schedules.reason).toBeUndefined();
  });
});

describe('Pi REST without the dashboard and schedule schemas', () => {
  it('leaves dashboard and schedule envelopes unchecked, naming the missing $id, and still checks the rest', () => {
    const registry = registryWithout(DASHBOARD_API_ID, SCHEDULE_SCHEMA_ID);
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
