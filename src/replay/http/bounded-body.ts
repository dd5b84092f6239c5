import type { IncomingMessage } from 'node:http';

/** A request body as far as replay read it. */
export type BoundedBody =
  | { kind: 'whole'; body: Buffer }
  /**
   * Longer than the limit: reading stopped (the request is paused) as soon as that was known, from
   * Content-Length before any byte, or when the streamed body went past it. `head` holds what was
   * read (at most the limit plus one chunk); `bytes` is the declared length, or what had arrived.
   */
  | { kind: 'too-large'; head: Buffer[]; bytes: number; declared: boolean };

/**
 * Reads a request body of at most `limit` bytes, and calls `done` once: with the whole body, or as
 * soon as it is known to be longer. Memory stays within the limit whatever the client sends.
 */
export function readBoundedBody(req: IncomingMessage, limit: number, done: (body: BoundedBody) => void): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    done({ kind: 'too-large', head: [], bytes: declared, declared: true });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    if (size <= limit) return;
    req.off('data', onData).off('end', onEnd);
    req.pause();
    done({ kind: 'too-large', head: chunks, bytes: size, declared: false });
  };
  const onEnd = () => done({ kind: 'whole', body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
  req.on('data', onData).on('end', onEnd);
}
