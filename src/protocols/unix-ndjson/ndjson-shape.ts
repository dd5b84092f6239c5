/**
 * What one line of the Pi daemon's unix-ndjson protocol is: a command (it has `operation`,
 * sent by the client), a response or an event (`kind`, sent by the daemon), or neither.
 */
export type NdjsonShape =
  | { kind: 'command'; operation: string; requestId?: string; sessionId?: string; generation?: number }
  | { kind: 'response'; requestId?: string; ok?: boolean; hostInstanceId?: string }
  | { kind: 'event'; event?: string; sessionId?: string; generation?: number; sequence?: number; hostInstanceId?: string }
  | { kind: 'other' };

export function classifyNdjson(value: unknown): NdjsonShape {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'other' };
  const r = value as Record<string, unknown>;
  if (typeof r.operation === 'string') {
    return { kind: 'command', operation: r.operation, requestId: str(r.requestId), sessionId: str(r.sessionId), generation: int(r.generation) };
  }
  if (r.kind === 'response') {
    return { kind: 'response', requestId: str(r.requestId), ok: typeof r.ok === 'boolean' ? r.ok : undefined, hostInstanceId: str(r.hostInstanceId) };
  }
  if (r.kind === 'event') {
    return {
      kind: 'event',
      event: str(r.event),
      sessionId: str(r.sessionId),
      generation: int(r.generation),
      sequence: int(r.sequence),
      hostInstanceId: str(r.hostInstanceId),
    };
  }
  return { kind: 'other' };
}

/** The major version of a `protocolVersion` string ("1.0" → 1, "2.3" → 2), or undefined. */
export function majorVersion(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)\.\d+$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function int(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}
