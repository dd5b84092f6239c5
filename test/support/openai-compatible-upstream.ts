/**
 * A stand-in for an OpenAI-compatible server on 127.0.0.1 that drifts from the OpenAI description as one of
 * vLLM, Ollama, LiteLLM, OpenRouter, llama.cpp or TGI does: `POST /v1/chat/completions` answers as the scenario its
 * request's `model` names (a documented drift, openai-compatible-drifts.ts, or a real output, openai-real-outputs.ts),
 * streamed one SSE event per write, or whole.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { COMPATIBLE_DRIFTS, type CompatibleDrift } from './openai-compatible-drifts.js';

export interface CompatibleUpstream {
  /** The origin, e.g. `http://127.0.0.1:40123`; the SDK's baseURL is this plus `/v1`. */
  origin: string;
  close(): Promise<void>;
}

function answer(res: ServerResponse, body: Record<string, unknown>, scenarios: readonly CompatibleDrift[]): void {
  const drift = scenarios.find((d) => d.id === body.model);
  if (!drift) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no drift named ${String(body.model)}`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } }));
    return;
  }
  if ('json' in drift.answer) {
    res.writeHead(drift.answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(drift.answer.json));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const event of drift.answer.events) res.write(event);
  res.end();
}

/** Answers with the given scenarios (the documented drifts unless told). */
export async function startCompatibleUpstream(scenarios: readonly CompatibleDrift[] = COMPATIBLE_DRIFTS): Promise<CompatibleUpstream> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = {};
      }
      answer(res, (body ?? {}) as Record<string, unknown>, scenarios);
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    origin,
    close,
  };
}
