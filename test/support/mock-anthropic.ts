/**
 * A loopback Anthropic Messages API mock for the official `@anthropic-ai/sdk` client (shared/docs/
 * llm-api-notes.md): `POST /v1/messages` answers "Hello from the mock model." as one `Message`, or,
 * with `"stream": true`, as the SSE events the SDK's MessageStream expects, each with `event:` equal
 * to its `data.type` (message_start, a text block's start, deltas and stop, message_delta, message_stop).
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { MOCK_HELLO, MOCK_MODEL } from './mock-openai.js';

export interface MockAnthropic {
  /** The client's `baseURL`, e.g. `http://127.0.0.1:40123` (the SDK adds `/v1/messages`). */
  url: string;
  close(): Promise<void>;
}

export async function startMockAnthropic(): Promise<MockAnthropic> {
  let answered = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { stream?: boolean; model?: string };
      const id = `msg_mock_${++answered}`;
      const model = body.model ?? MOCK_MODEL;
      const usage = { input_tokens: 10, output_tokens: 6 };
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: MOCK_HELLO }], stop_reason: 'end_turn', stop_sequence: null, usage }));
        return;
      }
      const event = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(event({ type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }));
      res.write(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
      res.write(event({ type: 'ping' }));
      for (const piece of MOCK_HELLO.match(/\S+\s*/g) ?? []) res.write(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }));
      res.write(event({ type: 'content_block_stop', index: 0 }));
      res.write(event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } }));
      res.end(event({ type: 'message_stop' }));
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    url: origin,
    close,
  };
}
