import { warning, type Finding } from '../../core/finding.js';
import type { HttpContext } from '../../core/message.js';
import { headerValue } from '../../core/header-value.js';
import { PI_REST_RULES } from './rule-ids.js';
import { isMutating } from './route-table.js';

/**
 * Every POST, PUT and DELETE (blob content uploads included) must carry a non-empty `Idempotency-Key`
 * header; without one the daemon answers 400 `invalid_idempotency_key`. A warning, because that 400 is
 * the daemon doing its job: the request was wrong, not the protocol exchange.
 */
export function idempotencyKeyFindings(http: HttpContext, path: string): Finding[] {
  const method = http.method.toUpperCase();
  if (!isMutating(method)) return [];
  const key = headerValue(http.requestHeaders, 'idempotency-key');
  if (key !== undefined && key.length > 0) return [];
  return [
    warning(
      PI_REST_RULES.idempotencyKey,
      '',
      `${method} ${path} has no Idempotency-Key header; the daemon requires one on every POST, PUT and DELETE and answers 400 invalid_idempotency_key`,
    ),
  ];
}
