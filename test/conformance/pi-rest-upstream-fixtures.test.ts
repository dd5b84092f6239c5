import { describeWithCorpus, bareRegistry, corpusJson, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { schemaCheckFor } from '../../src/protocols/pi-rest/index.js';
import { DASHBOARD_API_ID } from '../../src/protocols/pi-rest/route-table.js';
import { judgeExchange, newJudge } from '../protocols/pi-rest/pi-rest-helpers.js';
import { upstreamFixture } from './pi-rest-corpus.js';

interface ManifestEntry {
  file: string;
  schemaRef: string | null;
  expectValid?: boolean;
}

const DOC_IDS: Record<string, string> = {
  'session-api.schema.json': PI_SESSION_API_ID,
  'dashboard-api.schema.json': DASHBOARD_API_ID,
};

/** RPC frames, raw Pi RPC and ACP messages travel over WebSockets: other modules' fixtures. */
const NOT_REST = /^(rpc[A-Z]|piRpc|jsonRpcMessage)/;

const manifest = corpusJson<{ entries: ManifestEntry[] }>({ entries: [] }, 'fixtures', 'pi-daemon', 'upstream-v0.3.0', 'manifest.json');
const restEntries = manifest.entries
  .filter((e) => e.file.startsWith('session-api/') && e.schemaRef !== null)
  .map((e) => {
    const [file, def] = e.schemaRef!.split('#/$defs/');
    return { ...e, doc: DOC_IDS[file], def };
  })
  .filter((e) => e.doc !== undefined && !NOT_REST.test(e.def));

describeWithCorpus('upstream pi-daemon v0.3.0 session-api fixtures (REST $defs)', () => {
  it.each(restEntries.map((e) => [e.file, e] as const))('%s validates as the manifest expects', (file, e) => {
    const check = schemaCheckFor(fullRegistry(), { kind: 'def', doc: e.doc, name: e.def });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    const findings = check.validate(upstreamFixture(file.slice('session-api/'.length)));
    expect(findings.length === 0, JSON.stringify(findings)).toBe(e.expectValid);
    if (!e.expectValid) expect(findings.every((f) => f.rule === 'schema' && f.severity === 'error')).toBe(true);
  });

  it('without an HTTP route, picks the same $def by shape for every request and envelope it can name', () => {
    const { judge } = newJudge(fullRegistry());
    const bodies = restEntries.filter((e) => e.doc === PI_SESSION_API_ID && /(Request|Envelope)$/.test(e.def));
    let named = 0;
    for (const e of bodies) {
      const value = upstreamFixture(e.file.slice('session-api/'.length));
      const verdict = judge.judge({ sender: e.def.endsWith('Request') ? 'client' : 'server', carrier: 'body', value });
      if (verdict.status === 'unchecked') {
        // Dashboard envelopes need their route; a body with a property its $def does not allow fits no shape.
        expect(e.def.startsWith('dashboard') || e.expectValid === false, `${e.file}: ${verdict.reason}`).toBe(true);
        expect(verdict.reason).toContain('no HTTP route context');
        continue;
      }
      named++;
      expect(verdict.schemaRef, e.file).toBe(`${PI_SESSION_API_ID}#/$defs/${e.def}`);
      expect(verdict.status, e.file).toBe('valid');
    }
    // capabilities, create, update, blob reserve, blob materialize, error, list, session, ticket, schedule list/status.
    expect(named).toBe(11);
  });
});

describeWithCorpus('upstream pi-daemon v0.3.0 answers, judged with what ships (no --schemas)', () => {
  it.each([
    ['/v1/capabilities', 'capabilities.response.json', 'capabilitiesEnvelope'],
    ['/v1/dashboard/capabilities', 'dashboard.capabilities.response.json', 'dashboardServiceCapabilitiesEnvelope'],
  ])('GET %s is valid, not unchecked', (path, file, def) => {
    const { judge } = newJudge(bareRegistry());
    const verdict = judgeExchange(judge, { method: 'GET', path, status: 200, responseBody: upstreamFixture(file) }).response!;
    expect(verdict).toEqual({ status: 'valid', schemaRef: `${PI_SESSION_API_ID}#/$defs/${def}`, findings: [] });
  });
});
