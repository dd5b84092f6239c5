/** The line starts that open an SSE body: a field a server sends first, or a comment (`: ping`). */
export type SseStart = 'data:' | 'event:' | 'id:' | ':';

const SSE_STARTS: readonly SseStart[] = ['data:', 'event:', 'id:', ':'];

/**
 * How a body starts, told from its first bytes: the SSE line start it opens with, `'no'` when it does
 * not open like SSE, or `'more'` while too few bytes have come to tell. Meant for bodies announced as
 * length-prefixed protobuf: a real one never opens so, because its first byte would announce a frame
 * of at least 0x3a000000 bytes (~930 MiB), far over what the AG-UI client accepts (10 MB).
 */
export function sseStartOf(head: Uint8Array): SseStart | 'no' | 'more' {
  let undecided = false;
  for (const start of SSE_STARTS) {
    const n = Math.min(start.length, head.length);
    let same = true;
    for (let i = 0; i < n && same; i++) same = head[i] === start.charCodeAt(i);
    if (!same) continue;
    if (head.length >= start.length) return start;
    undecided = true;
  }
  return undecided ? 'more' : 'no';
}
