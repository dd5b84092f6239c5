// The benchmark client for SSE: posts a run, counts events as they arrive.
import { request } from 'node:http';

const RUN_INPUT = JSON.stringify({ threadId: 'bench-thread', runId: 'bench-run', messages: [] });

/**
 * Streams `${base}/sse?n=N` and counts events; resolves with {status, events, seconds, perSecond}.
 * `perWrite`: how many events the upstream puts in each write() (its default: 64).
 */
export function sseThroughput(base, n, onProgress, perWrite) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(`${base}/sse?n=${n}${perWrite ? `&per=${perWrite}` : ''}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
      let events = 0;
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const chunk = tail + text;
        let at = chunk.indexOf('\n\n');
        let last = 0;
        while (at >= 0) {
          events++;
          last = at + 2;
          at = chunk.indexOf('\n\n', last);
        }
        tail = chunk.slice(last);
        onProgress?.(events);
      });
      res.on('end', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        resolve({ status: res.statusCode, events, seconds, perSecond: events / seconds });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(RUN_INPUT);
  });
}
