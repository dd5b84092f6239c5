/** Largest message either leg accepts. The proxy must not be stricter than the peers it sits between. */
export const WS_MAX_PAYLOAD = 256 * 1024 * 1024;

/** The subprotocols the client offered, in its order (repeated headers were joined with ', ' by node). */
export function offeredProtocols(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header.split(',').map((p) => p.trim());
}
