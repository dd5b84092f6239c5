/** A response's server-sent events as they come; `close` is the client's cancellation. */
export interface SseEvents {
  /** The next event's data (its `data:` lines joined), skipping events without any; undefined once the stream ends. */
  next(): Promise<string | undefined>;
  close(): void;
}

/** Reads `res`'s body as server-sent events; `controller` aborts the request that `res` answers. */
export function sseEvents(res: Response, controller: AbortController): SseEvents {
  const reader = res.body!.getReader();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (data !== '') return data;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += Buffer.from(value).toString('utf8');
      }
    },
    close: () => controller.abort(),
  };
}
