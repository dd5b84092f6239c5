import { describeWithCorpus, bareRegistry, corpusDir, readSharedJson } from '../support/shared.js';
/**
 * The specification's own examples of MCP 2026-07-28 messages (../shared/schemas-extra/mcp/
 * 2026-07-28-examples, one folder per type) through the MCP checker, as a modern session over stdio:
 * each request is judged valid by its method's definition, and each response, after the request of
 * its method (a listen's after its acknowledgement), by the method's response definition. No finding
 * on the spec's own examples.
 */
import { expect, it } from 'vitest';
import type { Sender } from '../../src/core/message.js';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { protocolById } from '../../src/protocols/modules.js';

const EXAMPLES = ['schemas-extra', 'mcp', '2026-07-28-examples'];
type Json = Record<string, unknown>;

const examplesOf = (type: string): Json[] => corpusDir(...EXAMPLES, type).map((file) => readSharedJson<Json>(...EXAMPLES, type, file));

function judged(lines: Array<[Sender, Json]>) {
  const checker = protocolById('mcp').createChecker({ registry: bareRegistry(), secrets: new SecretTracker(), channel: { transport: 'stdio' } });
  return lines.map(([sender, value]) => checker.judge({ sender, carrier: 'line', value }));
}

describeWithCorpus('MCP 2026-07-28: the specification\'s examples', () => {
  const types = corpusDir(...EXAMPLES);

  it('judges every example request valid by its method\'s definition', () => {
    const requests = types.filter((type) => type.endsWith('Request') && examplesOf(type).some((m) => m.jsonrpc === '2.0' && 'id' in m));
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const type of requests) {
      for (const request of examplesOf(type).filter((m) => 'id' in m)) {
        const [verdict] = judged([['client', request]]);
        expect({ type, status: verdict.status, findings: verdict.findings, ref: verdict.schemaRef?.replace(/^.*\//, '') }).toEqual({ type, status: 'valid', findings: [], ref: type });
      }
    }
  });

  it('judges every example response valid, after a request of its method, by the method\'s response definition', () => {
    const responses = types.filter((type) => type.endsWith('ResultResponse') && types.includes(type.replace(/ResultResponse$/, 'Request')));
    expect(responses.length).toBeGreaterThanOrEqual(8);
    for (const type of responses) {
      const [request] = examplesOf(type.replace(/ResultResponse$/, 'Request'));
      for (const response of examplesOf(type)) {
        // A listen's server acknowledges it before anything else of it (mcp-listen-not-acknowledged-first), as the spec's own example does.
        const before: Array<[Sender, Json]> = type === 'SubscriptionsListenResultResponse' ? examplesOf('SubscriptionsAcknowledgedNotification').map((m) => ['server', m]) : [];
        const verdict = judged([['client', { ...request, id: response.id }], ...before, ['server', response]]).at(-1)!;
        expect({ type, status: verdict.status, findings: verdict.findings, ref: verdict.schemaRef?.replace(/^.*\//, '') }).toEqual({ type, status: 'valid', findings: [], ref: type });
      }
    }
  });
});
