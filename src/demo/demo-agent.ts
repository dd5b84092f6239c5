/**
 * The bundled AG-UI agent `proxy demo` talks to: a tiny HTTP server that answers `POST <any path>`
 * with a scripted AG-UI run as Server-Sent Events, framed by hand (`data: <json>\n\n`). It is
 * deterministic (fixed message and tool-call ids, fixed text) except for what the client sends
 * (threadId, runId) and a timestamp on RUN_STARTED, so two runs differ only where normalization
 * looks. One event is deliberately wrong so the verdicts have something to show.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface DemoAgent {
  url: string;
  close(): Promise<void>;
}

/** The events of one run, for a RunAgentInput's threadId and runId. */
export function demoEvents(threadId: string, runId: string, now = Date.now()): Array<Record<string, unknown>> {
  return [
    { type: 'RUN_STARTED', threadId, runId, timestamp: now },
    { type: 'TEXT_MESSAGE_START', messageId: 'demo-msg-1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'demo-msg-1', delta: 'Let me check ' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'demo-msg-1', delta: 'the weather in Paris.' },
    { type: 'TEXT_MESSAGE_END', messageId: 'demo-msg-1' },
    { type: 'TOOL_CALL_START', toolCallId: 'demo-call-1', toolCallName: 'get_weather', parentMessageId: 'demo-msg-1' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'demo-call-1', delta: '{"city":' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'demo-call-1', delta: '"Paris"}' },
    { type: 'TOOL_CALL_END', toolCallId: 'demo-call-1' },
    // The deliberate mistake: arguments for a tool call that has already ended.
    { type: 'TOOL_CALL_ARGS', toolCallId: 'demo-call-1', delta: ' ' },
    { type: 'STATE_SNAPSHOT', snapshot: { city: 'Paris', forecast: null } },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/forecast', value: 'sunny, 21 °C' }] },
    { type: 'TEXT_MESSAGE_START', messageId: 'demo-msg-2', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'demo-msg-2', delta: 'It is sunny in Paris, 21 °C.' },
    { type: 'TEXT_MESSAGE_END', messageId: 'demo-msg-2' },
    { type: 'RUN_FINISHED', threadId, runId },
  ];
}

export async function startDemoAgent(options: { eventDelayMs?: number } = {}): Promise<DemoAgent> {
  const delay = options.eventDelayMs ?? 5;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' }).end('{"error":"method not allowed"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let input: { threadId?: unknown; runId?: unknown } = {};
        try {
          input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof input;
        } catch {
          /* answered below */
        }
        if (typeof input.threadId !== 'string' || typeof input.runId !== 'string') {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"threadId and runId are required"}');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const event of demoEvents(input.threadId, input.runId)) {
          if (res.destroyed) return;
          res.write(`data: ${JSON.stringify(event)}\n\n`);
          if (delay > 0) await sleep(delay);
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
