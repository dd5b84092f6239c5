/**
 * A browser front end for the CORS tests: a page served from its own loopback origin that runs the
 * official `@ag-ui/client` HttpAgent against the agent URL in its query (`?agent=…`), as a
 * Next.js app on :3000 runs it against its agent on :8000. The client is bundled for the browser
 * with rolldown (as scripts/bundle-cli.mjs bundles the CLI) into a temp folder, once per file.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { HttpAgent } from '@ag-ui/client';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** The run every page (and the Node client recording it for replay) asks for: same thread, run and message. */
export const RUN = { threadId: 'thread-cors', runId: 'run-cors', message: { id: 'u1', role: 'user' as const, content: 'Hi' } };

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>AG-UI front end</title>
<pre id="text"></pre>
<script type="module">
import { HttpAgent } from './agui-client.js';
const text = document.getElementById('text');
const agent = new HttpAgent({ url: new URLSearchParams(location.search).get('agent'), threadId: ${JSON.stringify(RUN.threadId)}, initialMessages: [${JSON.stringify(RUN.message)}] });
const types = [];
try {
  await agent.runAgent({ runId: ${JSON.stringify(RUN.runId)} }, {
    onEvent: ({ event }) => void types.push(event.type),
    onTextMessageContentEvent: ({ event }) => void (text.textContent += event.delta),
  });
  window.outcome = { ok: true, types };
} catch (error) {
  window.outcome = { ok: false, types, error: String(error && error.message ? error.message : error) };
}
</script>
`;

/** Bundles `@ag-ui/client` for the browser into `dir/agui-client.js`, and writes the page beside it. */
export async function buildPage(dir: string): Promise<void> {
  const entry = join(dir, 'entry.js');
  writeFileSync(entry, "export { HttpAgent } from '@ag-ui/client';\n");
  const { rolldown } = await import('rolldown');
  const bundle = await rolldown({ input: entry, platform: 'browser', resolve: { modules: [NODE_MODULES] }, logLevel: 'silent' });
  try {
    await bundle.write({ dir, format: 'esm', entryFileNames: 'agui-client.js' });
  } finally {
    await bundle.close();
  }
  writeFileSync(join(dir, 'index.html'), PAGE);
}

export interface PageOrigin {
  /** `http://127.0.0.1:PORT`: the page's origin. */
  readonly origin: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { '/': 'text/html; charset=utf-8', '/agui-client.js': 'text/javascript; charset=utf-8' };

/** Serves the page and its script from `dir` on a loopback port of its own: the front end's origin. */
export async function servePage(dir: string): Promise<PageOrigin> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    const type = TYPES[path];
    if (!type) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(readFileSync(join(dir, path === '/' ? 'index.html' : path)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface PageOutcome {
  ok: boolean;
  /** The AG-UI event types the client handed the page. */
  types: string[];
  error?: string;
  /** The text the page put together from TEXT_MESSAGE_CONTENT. */
  text: string;
}

/** Opens the page (in a fresh browser context: no preflight cache) against `agentUrl`, and waits until its run has succeeded or failed. */
export async function runPage(browser: Browser, page: PageOrigin, agentUrl: string): Promise<PageOutcome> {
  const context = await browser.newContext();
  try {
    const tab: Page = await context.newPage();
    await tab.goto(`${page.origin}/?agent=${encodeURIComponent(agentUrl)}`);
    await tab.waitForFunction('window.outcome !== undefined');
    const outcome = (await tab.evaluate('window.outcome')) as Omit<PageOutcome, 'text'>;
    return { ...outcome, text: (await tab.locator('#text').textContent()) ?? '' };
  } finally {
    await context.close();
  }
}

/** The same run from Node with the same client, as a test records it to replay it to the page. */
export async function runFromNode(agentUrl: string): Promise<void> {
  const agent = new HttpAgent({ url: agentUrl, threadId: RUN.threadId, initialMessages: [RUN.message] });
  await agent.runAgent({ runId: RUN.runId });
}
