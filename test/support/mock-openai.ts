/**
 * A loopback OpenAI-compatible chat-completions mock for driving a real Pi (`api: "openai-completions"`
 * in Pi's models.json; see shared/docs/pi-daemon-notes.md §4). `POST /v1/chat/completions` answers
 * with a deterministic SSE stream of `chat.completion.chunk` objects, a final chunk with
 * `finish_reason` and `usage`, then `data: [DONE]` (with `"stream": false`, or none, one `chat.completion`):
 * - the last message is a tool result → a text reply quoting its first line;
 * - the last user message contains `READ <path>` → one call of Pi's built-in `read` tool on `<path>`
 *   (arguments streamed in two pieces);
 * - otherwise → "Hello from the mock model." in a few text deltas.
 * `GET /v1/models` lists the one model. Every request body is kept in `requests`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

export const MOCK_MODEL = 'mock-model';
export const MOCK_HELLO = 'Hello from the mock model.';

export interface MockOpenAIRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface MockOpenAI {
  /** Base URL for Pi's models.json, e.g. `http://127.0.0.1:40123/v1`. */
  url: string;
  requests: MockOpenAIRequest[];
  close(): Promise<void>;
}

export interface MockOpenAIOptions {
  /** Delay between SSE chunks (ms); 0 writes them back to back. */
  chunkDelayMs?: number;
}

type ChatMessage = { role?: string; content?: unknown };
type Delta = Record<string, unknown>;
interface Reply {
  deltas: Delta[];
  finishReason: 'stop' | 'tool_calls';
}

export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const requests: MockOpenAIRequest[] = [];
  let completions = 0;
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ method: req.method ?? 'GET', path, body });

    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: MOCK_MODEL, object: 'model', created: 0, owned_by: 'mock' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `mock-openai: no route ${req.method} ${path}` } }));
      return;
    }

    completions++;
    const id = `chatcmpl-${completions}`;
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : MOCK_MODEL;
    const messages = isRecord(body) && Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
    const reply = replyTo(messages, completions);
    const created = 1_700_000_000 + completions;
    const chunk = (delta: Delta, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;

    const completionTokens = reply.deltas.length;
    const usage = { prompt_tokens: 10 * completions, completion_tokens: completionTokens, total_tokens: 10 * completions + completionTokens };
    if (isRecord(body) && body.stream !== true) {
      // Not streamed: one chat.completion with the deltas joined.
      const content = reply.deltas.map((d) => (typeof d.content === 'string' ? d.content : '')).join('') || null;
      const toolCalls = reply.finishReason === 'tool_calls' ? joinToolCalls(reply.deltas) : undefined;
      const message = { role: 'assistant', content, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const pause = () => (options.chunkDelayMs ? new Promise((r) => setTimeout(r, options.chunkDelayMs)) : Promise.resolve());
    for (const delta of reply.deltas) {
      res.write(chunk(delta, null));
      await pause();
    }
    res.write(chunk({}, reply.finishReason, { usage }));
    res.end('data: [DONE]\n\n');
  }

  const { origin, close } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1`,
    requests,
    close,
  };
}

function replyTo(messages: ChatMessage[], n: number): Reply {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') {
    const firstLine = textOf(last.content).split('\n')[0] ?? '';
    return textReply(`The file starts with: ${firstLine}`);
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const read = /READ (\S+)/.exec(textOf(lastUser?.content));
  if (read) {
    const args = JSON.stringify({ path: read[1] });
    const cut = Math.floor(args.length / 2);
    const callId = `call_mock_${n}`;
    return {
      finishReason: 'tool_calls',
      deltas: [
        { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: 'read', arguments: '' } }] },
        { tool_calls: [{ index: 0, function: { arguments: args.slice(0, cut) } }] },
        { tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] },
      ],
    };
  }
  return textReply(MOCK_HELLO);
}

/** A streamed tool call's fragments, joined into the message's `tool_calls`. */
function joinToolCalls(deltas: Delta[]): Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> {
  const calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const delta of deltas) {
    for (const part of (delta.tool_calls as Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> | undefined) ?? []) {
      const call = (calls[part.index] ??= { id: part.id ?? '', type: 'function', function: { name: '', arguments: '' } });
      if (part.function?.name) call.function.name = part.function.name;
      call.function.arguments += part.function?.arguments ?? '';
    }
  }
  return calls;
}

/** The text split into word-sized deltas, the first carrying the role. */
function textReply(text: string): Reply {
  const pieces = text.match(/\S+\s*/g) ?? [text];
  return { finishReason: 'stop', deltas: pieces.map((content, i) => (i === 0 ? { role: 'assistant', content } : { content })) };
}

/** OpenAI message content: a string or an array of parts (`{type:"text", text}`). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
