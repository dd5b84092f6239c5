import { describeWithCorpus, fullRegistry } from '../support/shared.js';
import { expect, it } from 'vitest';
import { PI_SESSION_API_ID } from '../../src/protocols/pi-rest/schemas.js';
import { PI_REST_RULES } from '../../src/protocols/pi-rest/index.js';
import type { Verdict } from '../../src/core/verdict.js';
import { newJudge, requestMessage, responseMessage } from '../protocols/pi-rest/pi-rest-helpers.js';
import { capturedExchanges } from './pi-rest-corpus.js';

/** Behavioural findings the capture legitimately triggers, by `<seq>:<label>/<side>`. */
const EXPECTED_RULES: Record<string, string[]> = {
  // The daemon's own 400 for a POST without Idempotency-Key: the request deserves the warning.
  '3:session.create.missing-idempotency-key/request': [PI_REST_RULES.idempotencyKey],
};

interface Judged {
  where: string;
  recordedDef: string;
  recordedValid: boolean;
  verdict: Verdict;
}

describeWithCorpus('captured pi-daemon v0.3.0 REST lifecycle through one checker', () => {
  const records = capturedExchanges();
  // One checker for the whole recording, in capture order, as the recorder runs it.
  const { judge, secrets } = newJudge(fullRegistry());
  const judged: Judged[] = [];
  for (const r of records) {
    const { method, path, headers } = r.request;
    if (r.request.body !== undefined) {
      judged.push({
        where: `${r.seq}:${r.label}/request`,
        recordedDef: r.request.verdict!.def,
        recordedValid: r.request.verdict!.valid,
        verdict: judge.judge(requestMessage(method, path, headers, r.request.body)),
      });
    }
    if (r.response.body !== undefined) {
      judged.push({
        where: `${r.seq}:${r.label}/response`,
        recordedDef: r.response.verdict!.def,
        recordedValid: r.response.verdict!.valid,
        verdict: judge.judge(responseMessage(method, path, headers, r.response.status, r.response.body, r.response.headers)),
      });
    }
  }

  it('judges every JSON body of the capture (octet-stream bodies are never handed over)', () => {
    expect(records).toHaveLength(38);
    // 7 request bodies (create ×3, update ×2, blob reserve, file materialize) and 36 JSON responses.
    expect(judged.filter((j) => j.where.endsWith('/request'))).toHaveLength(7);
    expect(judged.filter((j) => j.where.endsWith('/response'))).toHaveLength(36);
  });

  it.each(judged.map((j) => [j.where, j] as const))('%s agrees with the recorded verdict', (where, j) => {
    expect(j.recordedValid).toBe(true);
    expect(j.verdict.status, JSON.stringify(j.verdict)).toBe('valid');
    expect(j.verdict.schemaRef).toBe(`${PI_SESSION_API_ID}#/$defs/${j.recordedDef}`);
    expect(j.verdict.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(j.verdict.findings.map((f) => f.rule)).toEqual(EXPECTED_RULES[where] ?? []);
  });

  it('points the idempotency warning at the request that lacked the header', () => {
    const hit = judged.find((j) => j.where === '3:session.create.missing-idempotency-key/request')!;
    expect(hit.verdict.findings).toEqual([
      expect.objectContaining({ rule: PI_REST_RULES.idempotencyKey, severity: 'warning', pointer: '', message: expect.stringContaining('POST /v1/session') }),
    ]);
  });

  it('registered the capture env value and found no leak of it', () => {
    // spec.env {FIXTURE_ENV: "not-a-secret"} of the create/update bodies; responses show only its key and digest.
    expect(secrets.size).toBe(1);
    const all = JSON.stringify(judged.map((j) => j.verdict));
    expect(all).not.toContain('secret-leak');
    expect(all).not.toContain('not-a-secret');
  });
});
