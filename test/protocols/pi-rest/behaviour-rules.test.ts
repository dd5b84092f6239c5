import { describe, expect, it } from 'vitest';
import { PI_REST_RULES } from '../../../src/protocols/pi-rest/index.js';
import type { Finding } from '../../../src/core/finding.js';
import type { Verdict } from '../../../src/core/verdict.js';
import { bareRegistry, registryWithout, testRegistry } from '../../support/shared.js';
import { clone, judgeExchange, newJudge, requestMessage, responseMessage } from './pi-rest-helpers.js';
import { restExchanges } from './rest-exchanges.js';

const records = restExchanges();
const byLabel = (label: string) => records.find((r) => r.label === label)!;

type Envelope = { requestId: string; ok: boolean; data: Record<string, unknown> };

function ruleFindings(verdict: Verdict, rule: string): Finding[] {
  return verdict.findings.filter((f) => f.rule === rule);
}

describe('request-id-not-echoed', () => {
  it('flags an envelope that does not echo X-Request-Id (header looked up case-insensitively)', () => {
    const { judge } = newJudge(testRegistry());
    const body = clone(byLabel('capabilities').response.body as Envelope);
    body.requestId = 'req-someone-else';
    const verdict = judgeExchange(judge, { method: 'GET', path: '/v1/capabilities', requestHeaders: { 'x-request-id': 'req-capabilities-1' }, status: 200, responseBody: body }).response!;
    expect(verdict.status).toBe('invalid');
    expect(ruleFindings(verdict, PI_REST_RULES.requestIdEcho)).toEqual([
      {
        rule: 'request-id-not-echoed',
        severity: 'error',
        pointer: '/requestId',
        message: "the envelope's requestId 'req-someone-else' does not echo the request's X-Request-Id 'req-capabilities-1'",
      },
    ]);
  });

  it("without the header, expects the body's requestId on a success envelope", () => {
    const { judge } = newJudge(testRegistry());
    const reserve = byLabel('blob.reserve');
    const response = clone(reserve.response.body as Envelope);
    response.requestId = 'http-5b0d3c1e-made-up-by-the-server';
    const verdicts = judgeExchange(judge, {
      method: 'POST',
      path: reserve.request.path,
      requestHeaders: reserve.request.headers,
      requestBody: reserve.request.body,
      status: 202,
      responseBody: response,
    });
    expect(verdicts.request!.status).toBe('valid');
    expect(verdicts.response!.status).toBe('invalid');
    expect(ruleFindings(verdicts.response!, PI_REST_RULES.requestIdEcho)).toEqual([
      expect.objectContaining({ severity: 'error', pointer: '/requestId', message: expect.stringContaining("the request body's requestId 'req-blob-reserve-1'") }),
    ]);
  });

  it('pairs a response with its own request, not with an earlier one whose response was never captured', () => {
    const { judge } = newJudge(testRegistry());
    const reserve = byLabel('blob.reserve');
    const lost = { ...(reserve.request.body as object), requestId: 'req-lost' };
    judge.judge(requestMessage('POST', reserve.request.path, { ...reserve.request.headers, 'Idempotency-Key': 'lost-1' }, lost));
    const verdicts = judgeExchange(judge, {
      method: 'POST',
      path: reserve.request.path,
      requestHeaders: reserve.request.headers,
      requestBody: reserve.request.body,
      status: 202,
      responseBody: reserve.response.body,
    });
    expect(verdicts.response).toEqual(expect.objectContaining({ status: 'valid', findings: [] }));
  });

  it('accepts a generated id on an error envelope when the request had no X-Request-Id (refused before the body was read)', () => {
    const { judge } = newJudge(testRegistry());
    const stale = byLabel('session.update.precondition-failed');
    const verdicts = judgeExchange(judge, {
      method: 'PUT',
      path: stale.request.path,
      requestHeaders: stale.request.headers,
      requestBody: stale.request.body,
      status: 412,
      responseBody: stale.response.body,
    });
    expect(verdicts.response).toEqual(expect.objectContaining({ status: 'valid', findings: [] }));
  });
});

describe('request-id-header-body-mismatch', () => {
  it('flags a mutating body whose requestId differs from X-Request-Id', () => {
    const { judge } = newJudge(testRegistry());
    const create = byLabel('session.create');
    const verdict = judge.judge(requestMessage('POST', '/v1/session', { ...create.request.headers, 'X-Request-Id': 'req-header' }, create.request.body));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([
      {
        rule: 'request-id-header-body-mismatch',
        severity: 'error',
        pointer: '/requestId',
        message: "the body's requestId 'req-create-1' differs from the X-Request-Id header 'req-header'; the daemon requires them to match",
      },
    ]);
  });
});

describe('ticket-state-regressed', () => {
  it('flags a ticket that leaves succeeded on a later poll', () => {
    const { judge } = newJudge(testRegistry());
    const [queued, succeeded] = records.filter((r) => r.label === 'ticket.poll').slice(0, 2);
    const path = succeeded.request.path;
    const first = judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: queued.response.body }).response!;
    const second = judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: succeeded.response.body }).response!;
    expect([first.status, second.status]).toEqual(['valid', 'valid']);
    const backAgain = judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: queued.response.body }).response!;
    expect(backAgain.status).toBe('invalid');
    expect(backAgain.findings).toEqual([
      {
        rule: 'ticket-state-regressed',
        severity: 'error',
        pointer: '/data/state',
        message: "ticket 'ticket-standin-1' was already succeeded, a terminal state, but is now reported as queued",
      },
    ]);
  });

  it('lets an indeterminate ticket be reconciled to succeeded, but not go back to running', () => {
    const { judge } = newJudge(testRegistry());
    const poll = records.filter((r) => r.label === 'ticket.poll')[0];
    const withState = (state: string) => {
      const body = clone(poll.response.body as Envelope);
      body.data.state = state;
      return body;
    };
    const path = poll.request.path;
    const ticketId = (poll.response.body as Envelope).data.ticketId as string;
    expect(judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: withState('indeterminate') }).response!.findings).toEqual([]);
    const reconcile = judgeExchange(judge, {
      method: 'POST',
      path: `/v1/ticket/${ticketId}/reconcile`,
      requestHeaders: { 'Idempotency-Key': 'reconcile-1', 'X-Request-Id': 'req-reconcile-1' },
      requestBody: { requestId: 'req-reconcile-1', state: 'succeeded', evidence: { piEntryIds: ['f73e22a6'] } },
      status: 200,
      responseBody: { ...withState('succeeded'), requestId: 'req-reconcile-1' },
    });
    expect(reconcile.request!.status).toBe('valid');
    expect(reconcile.response).toEqual(expect.objectContaining({ status: 'valid', findings: [] }));
    const running = judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: withState('running') }).response!;
    expect(running.findings.map((f) => [f.rule, f.pointer])).toEqual([['ticket-state-regressed', '/data/state']]);
  });
});

describe('session-generation-decreased / session-revision-decreased', () => {
  it('flags a session view older than one already seen', () => {
    const { judge } = newJudge(testRegistry());
    const after = byLabel('session.get.after-update').response.body as Envelope;
    expect([after.data.generation, after.data.revision]).toEqual([2, 3]);
    expect(judgeExchange(judge, { method: 'GET', path: '/v1/session/agent-a', status: 200, responseBody: after }).response!.status).toBe('valid');
    const before = byLabel('session.get').response.body as Envelope;
    expect([before.data.generation, before.data.revision]).toEqual([1, 1]);
    const verdict = judgeExchange(judge, { method: 'GET', path: '/v1/session/agent-a', status: 200, responseBody: before }).response!;
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings.map((f) => [f.rule, f.severity, f.pointer])).toEqual([
      ['session-generation-decreased', 'error', '/data/generation'],
      ['session-revision-decreased', 'error', '/data/revision'],
    ]);
    expect(verdict.findings[1].message).toBe(
      "session 'agent-a' has revision 1, lower than the revision 3 seen earlier (GET /v1/session/agent-a → 200)",
    );
  });

  it('checks every session of a list page, and counts a finished ticket result as seen', () => {
    const { judge } = newJudge(testRegistry());
    // The update ticket's result says generation 2, revision 3.
    const updated = records.filter((r) => r.label === 'ticket.poll')[3];
    expect(judgeExchange(judge, { method: 'GET', path: updated.request.path, status: 200, responseBody: updated.response.body }).response!.status).toBe('valid');
    const list = byLabel('session.list');
    const page = list.response.body as Envelope;
    expect((page.data.sessions as Array<{ revision: number }>)[0].revision).toBe(1);
    const verdict = judgeExchange(judge, { method: 'GET', path: list.request.path, status: 200, responseBody: page }).response!;
    expect(verdict.findings.map((f) => [f.rule, f.pointer])).toEqual([
      ['session-generation-decreased', '/data/sessions/0/generation'],
      ['session-revision-decreased', '/data/sessions/0/revision'],
    ]);
  });

  it('does not judge an old ticket result polled after the session moved on', () => {
    const { judge } = newJudge(testRegistry());
    const current = byLabel('session.get.after-update').response.body;
    judgeExchange(judge, { method: 'GET', path: '/v1/session/agent-a', status: 200, responseBody: current });
    const oldCreateTicket = records.filter((r) => r.label === 'ticket.poll')[1];
    const verdict = judgeExchange(judge, { method: 'GET', path: oldCreateTicket.request.path, status: 200, responseBody: oldCreateTicket.response.body }).response!;
    expect(verdict).toEqual(expect.objectContaining({ status: 'valid', findings: [] }));
  });
});

describe('idempotency-key-missing', () => {
  it('warns on a mutating request body without Idempotency-Key, and only there', () => {
    const { judge } = newJudge(testRegistry());
    const missing = byLabel('session.create.missing-idempotency-key');
    const verdicts = judgeExchange(judge, {
      method: 'POST',
      path: '/v1/session',
      requestHeaders: missing.request.headers,
      requestBody: missing.request.body,
      status: 400,
      responseBody: missing.response.body,
    });
    expect(verdicts.request).toEqual(
      expect.objectContaining({
        status: 'valid',
        findings: [
          {
            rule: 'idempotency-key-missing',
            severity: 'warning',
            pointer: '',
            message: 'POST /v1/session has no Idempotency-Key header; the daemon requires one on every POST, PUT and DELETE and answers 400 invalid_idempotency_key',
          },
        ],
      }),
    );
    expect(verdicts.response!.findings).toEqual([]);
  });

  it('warns on the response when the request had no body to carry it (DELETE)', () => {
    const { judge } = newJudge(testRegistry());
    const del = byLabel('session.delete');
    const headers = { ...del.request.headers };
    delete headers['Idempotency-Key'];
    const verdict = judge.judge(responseMessage('DELETE', del.request.path, headers, 202, del.response.body));
    expect(verdict.status).toBe('valid');
    expect(verdict.findings.map((f) => [f.rule, f.severity, f.pointer])).toEqual([['idempotency-key-missing', 'warning', '']]);
    expect(verdict.findings[0].message).toContain('DELETE /v1/session/agent-a');
  });
});

describe('routing', () => {
  it('leaves an unknown route under /v1 unchecked, never valid', () => {
    const { judge } = newJudge(testRegistry());
    const envelope = byLabel('capabilities').response.body;
    expect(judge.judge(responseMessage('GET', '/v1/nothing/here?x=1', {}, 200, envelope))).toEqual({
      status: 'unchecked',
      findings: [],
      reason: 'no route matches GET /v1/nothing/here',
    });
    expect(judge.judge(responseMessage('PATCH', '/v1/session/agent-a', {}, 200, envelope)).reason).toBe('no route matches PATCH /v1/session/agent-a');
  });

  it('leaves a body on a route that takes none unchecked', () => {
    const { judge } = newJudge(testRegistry());
    const verdict = judge.judge(requestMessage('GET', '/v1/session/agent-a', {}, { surprise: true }));
    expect(verdict).toEqual({ status: 'unchecked', findings: [], reason: 'GET /v1/session/{sessionRef} takes no JSON body' });
  });

  it('uses apiErrorEnvelope for any error status, even one the route does not list', () => {
    const { judge } = newJudge(testRegistry());
    const error = byLabel('session.get.not-found').response.body;
    const verdict = judge.judge(responseMessage('GET', '/v1/capabilities', {}, 500, error));
    expect(verdict.status).toBe('valid');
    expect(verdict.schemaRef).toMatch(/#\/\$defs\/apiErrorEnvelope$/);
    // A success envelope on an error status is wrong.
    const wrong = judge.judge(responseMessage('GET', '/v1/capabilities', {}, 503, byLabel('capabilities').response.body));
    expect(wrong.status).toBe('invalid');
    expect(wrong.findings.some((f) => f.rule === 'schema' && f.pointer === '/ok')).toBe(true);
  });

  it('reports a schema error in a request body with its pointer', () => {
    const { judge } = newJudge(testRegistry());
    const create = clone(byLabel('session.create').request.body as { spec: Record<string, unknown> });
    delete create.spec.cwd;
    const verdict = judge.judge(requestMessage('POST', '/v1/session', { 'Idempotency-Key': 'k', 'X-Request-Id': 'req-create-1' }, create));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings).toEqual([{ rule: 'schema', severity: 'error', pointer: '/spec', message: "/spec: missing required property 'cwd'" }]);
  });

  it('checks the inline reconcile body of the OpenAPI by hand', () => {
    const { judge } = newJudge(testRegistry());
    const bad = { requestId: 'req-1', state: 'running', evidence: { piEntryIds: [], extra: 1 }, note: 'x' };
    const verdict = judge.judge(requestMessage('POST', '/v1/ticket/ticket-1/reconcile', { 'Idempotency-Key': 'k' }, bad));
    expect(verdict.status).toBe('invalid');
    expect(verdict.findings.map((f) => f.pointer).sort()).toEqual(['/evidence/extra', '/evidence/piEntryIds', '/note', '/state']);
  });

  it('warns about an undeclared 2xx status and checks the route success body anyway', () => {
    const { judge } = newJudge(testRegistry());
    const create = byLabel('session.create');
    const verdict = judge.judge(responseMessage('POST', '/v1/session', create.request.headers, 200, create.response.body));
    expect(verdict.status).toBe('valid');
    expect(verdict.findings.map((f) => [f.rule, f.severity])).toEqual([['status-not-declared', 'warning']]);
  });

  it('routes the dashboard draft envelopes the OpenAPI writes inline to their data $def, unchecked without that schema', () => {
    const DRAFT_ID = 'https://a.skh.am/pi-daemon/dashboard-session-draft.schema.json';
    const body = { apiVersion: '1.0', requestId: 'req-d1', hostInstanceId: 'host-1', ok: true, data: { draftId: 'd-1' } };
    // The shipped dashboard-session-draft schema judges it: a draft is more than its id.
    for (const registry of [testRegistry(), bareRegistry()]) {
      const judged = newJudge(registry).judge.judge(responseMessage('GET', '/v1/dashboard/session-drafts/d-1', {}, 200, body));
      expect(judged.status).toBe('invalid');
      expect(judged.schemaRef).toContain(DRAFT_ID);
      expect(judged.findings.length).toBeGreaterThan(0);
      expect(judged.findings.every((f) => f.rule === 'schema' && f.pointer.startsWith('/data'))).toBe(true);
    }
    const unchecked = newJudge(registryWithout(DRAFT_ID)).judge.judge(responseMessage('GET', '/v1/dashboard/session-drafts/d-1', {}, 200, body));
    expect(unchecked.status).toBe('unchecked');
    expect(unchecked.reason).toContain(DRAFT_ID);
  });

  it('leaves schedule bodies typed only as object unchecked, but rejects a non-object', () => {
    const { judge } = newJudge(testRegistry());
    const ok = judge.judge(requestMessage('POST', '/v1/schedule/nightly', { 'Idempotency-Key': 'k' }, { cron: '0 3 * * *' }));
    expect(ok.status).toBe('unchecked');
    expect(ok.reason).toContain('only as a JSON object');
    const bad = judge.judge(requestMessage('PUT', '/v1/schedule/nightly', { 'Idempotency-Key': 'k' }, ['not', 'an', 'object']));
    expect(bad.status).toBe('invalid');
    expect(bad.findings).toEqual([{ rule: 'schema', severity: 'error', pointer: '', message: '(root): must be object' }]);
  });
});
