/**
 * The inspector page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
 * real recordings, a real server, a real page. Skipped, with the reason in the suite name, when
 * chromium or playwright-core is missing. INSPECTOR_SCREENSHOTS=1 also writes the README's
 * screenshots to docs/images/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import { postRun, runInput } from '../record/record-helpers.js';
import { browserUnavailable, CHROMIUM, CHROMIUM_ARGS, liveRecorder, recordAgui, scratchDir, sendRun, writeBigRecording } from './ui-helpers.js';

const unavailable = await browserUnavailable();
const SCREENSHOTS = process.env.INSPECTOR_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/images/', import.meta.url)) : undefined;

describe.skipIf(unavailable !== undefined)(`inspector page in Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const dir = scratchDir();
  const A = join(dir, 'a.db');
  const B = join(dir, 'b.db');
  let browser: Browser;
  let inspector: RunningInspector;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    // launch() gives the browser a fresh temporary user-data-dir of its own, removed on close.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    await recordAgui(A, ['default', 'broken-content-before-start']);
    await recordAgui(B, ['default', 'default']);
    inspector = await startInspector({ recording: A, listen: 0, diff: B });
  });

  afterAll(async () => {
    await inspector?.close();
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(url: string, hash = '#/'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    // Nothing may leave the machine: the page works offline.
    await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
      errors.push(`external request: ${route.request().url()}`);
      return route.abort();
    });
    (page as Page & { errors: string[] }).errors = errors;
    await page.goto(url + '/' + hash);
    return page;
  }

  const errorsOf = (page: Page) => (page as Page & { errors: string[] }).errors;
  const shot = async (page: Page, name: string) => {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, name) });
  };

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
  });

  it('opens a recorded AG-UI run on the timeline, filters to invalid, and shows the finding at its JSON pointer', async () => {
    const page = await open(inspector.url);
    await page.waitForSelector('.tl-row[data-exchange-id="2"]');
    expect(await page.locator('.tl-row').count()).toBe(2);
    expect(await page.locator('.tl-row[data-exchange-id="2"] .invalid-count').textContent()).toMatch(/✗ \d+/);
    expect(await page.locator('.tl-row[data-exchange-id="1"] .invalid-count').count()).toBe(0);
    await shot(page, 'inspector-timeline.png');

    await page.check('#filter-invalid');
    await page.waitForFunction(() => document.querySelectorAll('.tl-row').length === 1);
    expect(await page.locator('.tl-row').getAttribute('data-exchange-id')).toBe('2');

    await page.click('.tl-row[data-exchange-id="2"]');
    await page.waitForSelector('#exchange-view[data-exchange-id="2"] .msg-row[data-seq]');
    await page.check('#msg-invalid');
    await page.waitForFunction(() => [...document.querySelectorAll('.msg-row[data-seq]')].every((r) => r.classList.contains('invalid')));
    const invalidRow = page.locator('.msg-row.invalid').first();
    expect(await invalidRow.locator('.msg-label').textContent()).toBe('TEXT_MESSAGE_CONTENT');
    await invalidRow.click();
    await page.waitForSelector('#message[data-seq="2"]');
    expect(page.url()).toMatch(/#\/exchange\/2\/message\/2$/);

    const finding = page.locator('#findings li[data-pointer="/type"]');
    expect(await finding.locator('.rule').textContent()).toBe('first-event-must-be-run-started');
    expect(await finding.textContent()).toContain("First event must be 'RUN_STARTED'");
    // The line of /type is highlighted as an error and marked with the rule; /delta is not.
    const typeLine = page.locator('#message .jl[data-pointer="/type"]');
    expect(await typeLine.getAttribute('class')).toMatch(/\bhl-error\b.*\bhl-start\b|\bhl-start\b.*\bhl-error\b/);
    expect(await typeLine.getAttribute('data-finding')).toBe('/type');
    expect(await typeLine.textContent()).toContain('"type": "TEXT_MESSAGE_CONTENT"');
    expect(await typeLine.textContent()).toContain('first-event-must-be-run-started');
    expect(await page.locator('#message .jl[data-pointer="/delta"]').getAttribute('class')).toBe('jl');
    await shot(page, 'inspector-message.png');
    expect(errorsOf(page)).toEqual([]);
  });

  it('selecting an event shows the AG-UI state at that point; the run view materialises the conversation', async () => {
    const page = await open(inspector.url, '#/exchange/1');
    await page.waitForSelector('.msg-row[data-seq="1"]');
    const rowOf = (label: string) => page.locator('.msg-row', { has: page.locator('.msg-label', { hasText: new RegExp(`^${label}$`) }) });
    const stateText = async () => JSON.parse((await page.locator('#state-at pre.json').first().textContent())!) as unknown;

    await rowOf('RUN_STARTED').click();
    await page.waitForSelector('#state-at[data-seq="2"]');
    expect(await stateText()).toEqual({});

    await rowOf('STATE_SNAPSHOT').click();
    const snapshot = Number(await rowOf('STATE_SNAPSHOT').getAttribute('data-seq'));
    await page.waitForSelector(`#state-at[data-seq="${snapshot}"]`);
    expect(await stateText()).toEqual({ counter: 0, status: 'working' });

    await rowOf('STATE_DELTA').click();
    await page.waitForSelector(`#state-at[data-seq="${snapshot + 1}"]`);
    expect(await stateText()).toEqual({ counter: 1, status: 'done' });

    await page.click('.tabs a[data-tab="run"]');
    await page.waitForSelector('#run-conversation .run-item');
    expect(await page.locator('#run-outcome').textContent()).toContain('Run finished');
    expect(await page.locator('#run-conversation .run-item.message.assistant pre').textContent()).toBe('Hello from the AG-UI stand-in.');
    const tool = page.locator('#run-conversation .run-item.tool-call');
    expect(await tool.textContent()).toContain('get_weather');
    expect(await tool.textContent()).toContain('"city": "Paris"');
    expect(await tool.textContent()).toContain('"tempC": 21');
    // Selecting the snapshot in the run view shows the state right after it.
    await page.locator('#run-conversation .run-item.state').first().click();
    await page.waitForSelector(`#state-at[data-seq="${snapshot}"]`);
    expect(await stateText()).toEqual({ counter: 0, status: 'working' });
    expect(await page.locator('#run-conversation .run-item.state').first().getAttribute('class')).toContain('selected');
    await tool.click();
    await page.waitForSelector('#state-at[data-seq]:not([data-seq="' + snapshot + '"])');
    await shot(page, 'inspector-run.png');
    expect(errorsOf(page)).toEqual([]);
  });

  it('opens the diff view of two recordings, with links to the messages that differ', async () => {
    const page = await open(inspector.url, '#/diff');
    await page.waitForSelector('#diff-summary');
    expect(await page.locator('#nav a[data-nav="diff"]').getAttribute('class')).toContain('active');
    expect(await page.locator('.diff-ex').count()).toBeGreaterThanOrEqual(1);
    const fixed = page.locator('.diff-msg', { hasText: 'fixed' });
    expect(await fixed.count()).toBe(1);
    await fixed.locator('a.diff-link').click();
    await page.waitForSelector('#message[data-seq="2"]');
    expect(page.url()).toMatch(/#\/exchange\/2\/message\/2$/);
    await page.goto(inspector.url + '/#/diff');
    await page.waitForSelector('#diff-summary');
    await shot(page, 'inspector-diff.png');
    expect(errorsOf(page)).toEqual([]);
  });

  it('live: with record --ui, an exchange sent through the proxy appears on the open page, and a stream still open before it ends', async () => {
    const out = join(dir, 'live.db');
    let live: RunningInspector | undefined;
    const rec = await liveRecorder(out, (event) => live?.publish(event));
    try {
      live = await startInspector({ recording: rec.recorder.out, live: true, listen: 0 });
      const page = await open(live.url);
      await page.waitForSelector('#live-indicator:not([hidden])');
      await page.waitForSelector('body[data-ready="timeline"]');
      // Wait until the page's EventSource is connected before sending.
      await page.waitForSelector('body[data-live="connected"]', { timeout: 5000 });
      const sent = Date.now();
      await sendRun(rec.recorder.url, 'broken-content-before-start', 1);
      await page.waitForSelector('.tl-row[data-exchange-id="1"] .invalid-count', { timeout: 10_000 });
      // How quickly is for the information of whoever reads the log: a loaded machine says nothing about the inspector.
      console.log(`live: the exchange appeared on the page ${Date.now() - sent} ms after it was sent`);

      // A stream still in progress shows up too, before it ends.
      const abort = new AbortController();
      const started = Date.now();
      const res = await postRun(`${rec.recorder.url}/scenario/endless`, {}, runInput('thread-2', 'run-2'), abort.signal);
      // The stream is endless: it can only show up while it is open.
      await page.waitForSelector('.tl-row[data-exchange-id="2"]', { timeout: 10_000 });
      console.log(`live: an open stream appeared on the page ${Date.now() - started} ms after it started`);
      abort.abort();
      await res.body?.cancel().catch(() => undefined);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await live?.close();
      await rec.close();
    }
  });

  it('a 100k-message recording: the message list draws only the rows in view, pages to the end and deep-links', async () => {
    const big = join(dir, 'big.db');
    writeBigRecording(big, 100_000);
    const server = await startInspector({ recording: big, listen: 0 });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      contexts.push(context);
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(server.url + '/#/exchange/1');
      await page.waitForSelector('.msg-row[data-seq="20"]');
      console.log(`100k messages: first screen of the message list after ${Date.now() - t0} ms`);
      expect(await page.locator('#message-count').textContent()).toBe('100001 messages');
      // Only the rows in view (plus a margin) exist in the DOM.
      expect(await page.locator('.msg-row').count()).toBeLessThan(100);
      // Scroll to the end: the last page is fetched and drawn.
      await page.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.waitForSelector('.msg-row[data-seq="100001"]');
      // Deep link into the middle.
      await page.goto(server.url + '/#/exchange/1/message/50000');
      await page.waitForSelector('#message[data-seq="50000"]');
      await page.waitForSelector('.msg-row.selected[data-seq="50000"]');
    } finally {
      await server.close();
    }
  });
});
