import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/net/addresses.js';
import { loadUpstreamTls } from '../../src/net/upstream-tls.js';
import { upstreamAgent } from '../../src/record/capture-context.js';
import { HAS_OPENSSL, makeTestCertificates, type TestCertificates } from '../support/tls-fixtures.js';

describe.skipIf(!HAS_OPENSSL)('loadUpstreamTls', () => {
  let certs: TestCertificates;
  beforeAll(() => {
    certs = makeTestCertificates();
  });
  afterAll(() => certs?.remove());

  it('--ca builds one secure context at start, which every upstream connection shares', () => {
    const tls = loadUpstreamTls({ ca: [certs.caFile] });
    expect(tls.secureContext).toBeDefined();
    // A `ca` list on the agent would make Node build the whole trust store again for each new connection.
    const agent = upstreamAgent(parseTarget('https://localhost:9'), tls) as unknown as { options: Record<string, unknown> };
    expect(agent.options.secureContext).toBe(tls.secureContext);
    expect(agent.options.ca).toBeUndefined();
  });

  it('without --ca, Node keeps its default store and nothing is built', () => {
    expect(loadUpstreamTls({})).toEqual({ rejectUnauthorized: true });
    expect(loadUpstreamTls({ insecure: true })).toEqual({ rejectUnauthorized: false });
  });
});
