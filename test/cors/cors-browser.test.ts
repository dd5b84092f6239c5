/**
 * A browser front end on another origin, for real: headless Chromium (/usr/bin/chromium, driven by
 * playwright-core) opens a page on one loopback port that runs the official `@ag-ui/client`
 * HttpAgent against the proxy on another, so every request is cross-origin and the browser sends
 * its preflight and checks the answers' CORS headers itself. Skipped, with the reason in the suite
 * name, when chromium or playwright-core is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserUnavailable, CHROMIUM, CHROMIUM_ARGS } from '../ui/ui-helpers.js';
import { PREFLIGHT_MAX_AGE, startAguiAgent } from '../support/agui-agent.js';
import { onCleanup, record, replay, useCleanups } from '../replay/replay-helpers.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { buildPage, runFromNode, runPage, servePage, type PageOrigin } from './agui-page.js';

useCleanups();

const unavailable = await browserUnavailable();
/** Recorded headers keep the spelling they travelled with (Chromium's `Origin`): compared by lower-cased name. */
const lowerCased = (headers: Record<string, unknown> | null) => Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));

/** What the stand-in's default run says, in three TEXT_MESSAGE_CONTENT deltas. */
const TEXT = 'Hello from the AG-UI stand-in.';

describe.skipIf(unavailable !== undefined)(`an AG-UI front end on another origin, in Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  // Made in the hook, not when the file is collected: without a browser the block is skipped and its afterAll never runs.
  let folder: TempDir;
  let browser: Browser;

  beforeAll(async () => {
    folder = tempDir('agent-proxy-cors-');
    const { chromium } = await import('playwright-core');
    // Bundled while the browser starts.
    [browser] = await Promise.all([chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }), buildPage(folder.dir)]);
  });

  afterAll(async () => {
    await browser?.close();
    folder?.cleanup();
  });

  async function page(): Promise<PageOrigin> {
    const served = await servePage(folder.dir);
    onCleanup(() => served.close());
    return served;
  }

  async function corsAgent() {
    const agent = await startAguiAgent({ cors: true });
    onCleanup(() => agent.close());
    return agent;
  }

  it('record passes the preflight and the CORS headers on unchanged: the run reaches the page, and the recording holds the OPTIONS exchange', async () => {
    const front = await page();
    const agent = await corsAgent();
    const rec = await record(agent.url);

    const outcome = await runPage(browser, front, `${rec.url}/agent`);
    expect(outcome).toMatchObject({ ok: true, text: TEXT });
    expect(outcome.types.at(-1)).toBe('RUN_FINISHED');

    const [preflight, run] = (await rec.finish()).exchanges();
    expect(preflight).toMatchObject({ method: 'OPTIONS', path: '/agent', status: 204 });
    expect(lowerCased(preflight.requestHeaders)).toMatchObject({ origin: front.origin, 'access-control-request-method': 'POST' });
    expect(lowerCased(preflight.responseHeaders)).toMatchObject({ 'access-control-allow-origin': front.origin, 'access-control-allow-methods': 'POST', 'access-control-max-age': String(PREFLIGHT_MAX_AGE) });
    expect(run).toMatchObject({ method: 'POST', path: '/agent', status: 200 });
    expect(lowerCased(run.requestHeaders)).toMatchObject({ origin: front.origin });
    expect(lowerCased(run.responseHeaders)).toMatchObject({ 'access-control-allow-origin': front.origin, vary: 'Origin' });
  });

  it('replay answers the preflight and names the page origin: the official client on the page gets the recorded run', async () => {
    const rec = await record((await startAguiAgent().then((a) => (onCleanup(() => a.close()), a))).url);
    await runFromNode(`${rec.url}/agent`);
    await rec.finish();
    const served = await replay(rec.out, { strict: true });

    const outcome = await runPage(browser, await page(), `${served.url}/agent`);
    expect(outcome).toMatchObject({ ok: true, text: TEXT });
    expect(outcome.types).toEqual(expect.arrayContaining(['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'TOOL_CALL_RESULT', 'RUN_FINISHED']));
    expect(served.missed).toEqual([]);
    expect((await served.close()).ok).toBe(true);
  });

  it('with --cors off the same page is blocked by the browser: the preflight misses and no text arrives', async () => {
    const rec = await record((await startAguiAgent().then((a) => (onCleanup(() => a.close()), a))).url);
    await runFromNode(`${rec.url}/agent`);
    await rec.finish();
    const served = await replay(rec.out, { cors: false });

    const outcome = await runPage(browser, await page(), `${served.url}/agent`);
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/Failed to fetch/);
    expect(outcome.text).toBe('');
    expect(served.missed.map((m) => `${m.request.method} ${m.request.path}`)).toEqual(['OPTIONS /agent']);
  });

  it('a recording made from a page replays to a page served from another port: the recorded preflight, under the new origin', async () => {
    const agent = await corsAgent();
    const rec = await record(agent.url);
    expect(await runPage(browser, await page(), `${rec.url}/agent`)).toMatchObject({ ok: true, text: TEXT });
    await rec.finish();
    const served = await replay(rec.out, { strict: true });

    const outcome = await runPage(browser, await page(), `${served.url}/agent`);
    expect(outcome).toMatchObject({ ok: true, text: TEXT });
    expect(served.served.map((s) => s.method)).toEqual(['OPTIONS', 'POST']);
    expect(served.missed).toEqual([]);
  });
});
