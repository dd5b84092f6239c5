import { error, pointerOf, type Finding } from '../../core/finding.js';
import { PI_SESSION_API_ID } from './schemas.js';
import type { SchemaCheck, SchemaRegistry } from '../../schema/schema-registry.js';
import { prefixFindings } from './finding-paths.js';
import { isJsonObject } from '../../core/json.js';

const TOP_LEVEL = ['requestId', 'state', 'error', 'evidence'];
const STATES = ['succeeded', 'failed'];

/**
 * The request body of `POST /v1/ticket/{ticketId}/reconcile`. The OpenAPI writes it inline, so there is
 * no `$def` to compile; this is that inline schema by hand, using the session API's own `$def`s for the
 * parts it references (`identifier`, `apiError`):
 *
 * `{requestId: identifier, state: "succeeded"|"failed", error?: apiError,
 *   evidence: {piEntryIds: identifier[1..256]}}`, no other properties at either level.
 */
export function reconcileRequestCheck(registry: SchemaRegistry, ref: string): SchemaCheck {
  const identifier = registry.def(PI_SESSION_API_ID, 'identifier');
  const apiError = registry.def(PI_SESSION_API_ID, 'apiError');
  if (!identifier.ok) return identifier;
  if (!apiError.ok) return apiError;
  return {
    ok: true,
    ref,
    validate(value: unknown): Finding[] {
      if (!isJsonObject(value)) return [error('schema', '', '(root): must be object')];
      const findings: Finding[] = [];
      for (const key of ['requestId', 'state', 'evidence']) {
        if (!(key in value)) findings.push(error('schema', '', `(root): missing required property '${key}'`));
      }
      for (const key of Object.keys(value)) {
        if (!TOP_LEVEL.includes(key)) findings.push(error('schema', pointerOf(key), `${pointerOf(key)}: unexpected property '${key}'`));
      }
      if ('requestId' in value) findings.push(...prefixFindings(identifier.validate(value.requestId), '/requestId'));
      if ('state' in value && !STATES.includes(value.state as string)) {
        findings.push(error('schema', '/state', `/state: must be one of ${STATES.map((s) => JSON.stringify(s)).join(', ')}`));
      }
      if ('error' in value) findings.push(...prefixFindings(apiError.validate(value.error), '/error'));
      if ('evidence' in value) findings.push(...evidenceFindings(value.evidence, identifier));
      return findings;
    },
  };
}

function evidenceFindings(evidence: unknown, identifier: Extract<SchemaCheck, { ok: true }>): Finding[] {
  if (!isJsonObject(evidence)) return [error('schema', '/evidence', '/evidence: must be object')];
  const findings: Finding[] = [];
  for (const key of Object.keys(evidence)) {
    if (key !== 'piEntryIds') findings.push(error('schema', pointerOf('evidence', key), `${pointerOf('evidence', key)}: unexpected property '${key}'`));
  }
  if (!('piEntryIds' in evidence)) {
    findings.push(error('schema', '/evidence', "/evidence: missing required property 'piEntryIds'"));
    return findings;
  }
  const ids = evidence.piEntryIds;
  if (!Array.isArray(ids)) {
    findings.push(error('schema', '/evidence/piEntryIds', '/evidence/piEntryIds: must be array'));
    return findings;
  }
  if (ids.length < 1) findings.push(error('schema', '/evidence/piEntryIds', '/evidence/piEntryIds: must NOT have fewer than 1 items'));
  if (ids.length > 256) findings.push(error('schema', '/evidence/piEntryIds', '/evidence/piEntryIds: must NOT have more than 256 items'));
  ids.forEach((id, i) => findings.push(...prefixFindings(identifier.validate(id), `/evidence/piEntryIds/${i}`)));
  return findings;
}
