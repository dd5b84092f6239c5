/**
 * The inspector page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
 * real recordings, a real server, a real page. Skipped, with the reason in the suite name, when
 * chromium or playwright-core is missing. INSPECTOR_SCREENSHOTS=1 also writes the README's
 * screenshots to docs/images/.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startInspector, type RunningInspector } from '../../src/ui/server/inspector-server.js';
import { postRun, runInput } from '../record/record-helpers.js';
import { browserUnavailable, CHROMIUM, CHROMIUM_ARGS, liveRecorder, MCP_ECHO_TOOL, MCP_SESSION_LINES, openMcpRecording, recordAgui, sendRun, writeBigRecording, writeForwardRecording, writeMcpRecording, writeOpenAiRecording, writeRestRecording, writeStdioRecording } from './ui-helpers.js';
import { STANDIN_HELLO } from '../support/openai-scenario.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { tlsText } from '../../src/core/tls-text.js';

const unavailable = await browserUnavailable();
const SECRET = 's3cret-token-7f1e';
const SCREENSHOTS = process.env.INSPECTOR_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/images/', import.meta.url)) : undefined;

describe.skipIf(unavailable !== undefined)(`inspector page in Chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  // Made in beforeAll, not while the file is collected: where the browser is missing the block is
  // skipped with its hooks, and a folder made here would be left behind.
  let folder: TempDir | undefined;
  let dir: string;
  let A: string;
  let B: string;
  let browser: Browser;
  let inspector: RunningInspector;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    folder = tempDir('agent-proxy-ui-');
    dir = folder.dir;
    A = join(dir, 'a.db');
    B = join(dir, 'b.db');
    const { chromium } = await import('playwright-core');
    // launch() gives the browser a fresh temporary user-data-dir of its own, removed on close.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    // The client sends a secret: the recording keeps `Bearer <redacted>`, and so does the curl.
    await recordAgui(A, ['default', 'broken-content-before-start'], { authorization: `Bearer ${SECRET}` });
    await recordAgui(B, ['default', 'default'], { authorization: `Bearer ${SECRET}` });
    inspector = await startInspector({ recording: A, listen: 0, diff: B });
  });

  afterAll(async () => {
    await inspector?.close();
    await browser?.close();
    folder?.cleanup();
  });

  // A tab a test has finished with is opened again by a later test: loaded anew (through about:blank,
  // so that a URL that differs only in its hash is still a load, not a hash change) with an empty
  // error list. A new context and page cost the browser a renderer process each (~0.5 s of CPU).
  const idle: Page[] = [];
  const inUse: Page[] = [];
  afterEach(() => {
    idle.push(...inUse.splice(0));
  });

  async function newTab(url: string, clipboard: boolean): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => errorsOf(page).push(e.message));
    page.on('console', (m) => m.type() === 'error' && errorsOf(page).push(m.text()));
    // Nothing may leave the machine: the page works offline.
    await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
      errorsOf(page).push(`external request: ${route.request().url()}`);
      return route.abort();
    });
    return page;
  }

  /** The page at `url` + `hash`, loaded in a tab of its own; `clipboard`: in a new context allowed to use it, not opened again. */
  async function open(url: string, hash = '#/', clipboard = false): Promise<Page> {
    const reused = clipboard ? undefined : idle.pop();
    const page = reused ?? (await newTab(url, clipboard));
    if (reused) await page.goto('about:blank');
    (page as Page & { errors: string[] }).errors = [];
    if (!clipboard) inUse.push(page);
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
    expect(await page.locator('#timeline-count').textContent()).toBe('2 exchanges · 1 invalid message');
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
    expect(await page.locator('#run-outcome').textContent()).toBe('Run finished');
    expect(await page.locator('#run-invalid').count()).toBe(0);
    // Ids read as recorded: no CSS upper-cases them (innerText is the text as rendered).
    const input = page.locator('#run-conversation .run-item.input .who');
    expect(await input.locator('.item-id').evaluate((el) => (el as HTMLElement).innerText)).toBe('u1');
    expect(await input.evaluate((el) => getComputedStyle(el).textTransform)).toBe('none');
    expect(await page.locator('#run-conversation .run-item.message.assistant .who .role').evaluate((el) => (el as HTMLElement).innerText)).toBe('assistant');
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
    // The findings that went away are listed as text, not only in a tooltip.
    expect(await fixed.locator('.verdict-findings li').first().innerText()).toContain('first-event-must-be-run-started');
    await fixed.locator('a.diff-link.side-a').click();
    await page.waitForSelector('#message[data-seq="2"]');
    expect(page.url()).toMatch(/#\/exchange\/2\/message\/2$/);
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
      await sendRun(rec.recorder.url, 'broken-content-before-start', 1);
      await page.waitForSelector('.tl-row[data-exchange-id="1"] .invalid-count', { timeout: 10_000 });

      // A stream still in progress shows up too, before it ends.
      const abort = new AbortController();
      const res = await postRun(`${rec.recorder.url}/scenario/endless`, {}, runInput('thread-2', 'run-2'), abort.signal);
      // The stream is endless: it can only show up while it is open.
      await page.waitForSelector('.tl-row[data-exchange-id="2"]', { timeout: 10_000 });
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
      const page = await open(server.url, '#/exchange/1');
      await page.waitForSelector('.msg-row[data-seq="20"]');
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

  it('flags the invalid event in the AG-UI run view: class, marker and the finding', async () => {
    const page = await open(inspector.url, '#/exchange/2/run');
    await page.waitForSelector('#run-conversation .run-item');
    expect(await page.locator('#run-invalid').textContent()).toBe('✗ 1 invalid event, flagged below');
    const flagged = page.locator('#run-conversation .run-item.invalid');
    expect(await flagged.count()).toBe(1);
    expect(await flagged.getAttribute('data-seq')).toBe('2');
    expect(await flagged.locator('.invalid-mark').isVisible()).toBe(true);
    const finding = flagged.locator('.run-findings li', { hasText: 'first-event-must-be-run-started' });
    expect(await finding.locator('.rule').textContent()).toBe('first-event-must-be-run-started');
    expect(await finding.textContent()).toContain("First event must be 'RUN_STARTED'");
    expect(await finding.isVisible()).toBe(true);
    expect(await page.locator('#run-conversation .run-item:not(.invalid) .invalid-mark').count()).toBe(0);
    expect(errorsOf(page)).toEqual([]);
  });

  it('moves through the message list with ↓/↑ and j/k, but not while typing in a field', async () => {
    const page = await open(inspector.url, '#/exchange/1/message/1');
    await page.waitForSelector('#message[data-seq="1"]');
    const selectedAfter = async (key: string, seq: number) => {
      await page.keyboard.press(key);
      await page.waitForSelector(`#message[data-seq="${seq}"]`);
      await page.waitForSelector(`.msg-row.selected[data-seq="${seq}"]`);
      expect(page.url()).toMatch(new RegExp(`#/exchange/1/message/${seq}$`));
    };
    await selectedAfter('j', 2);
    await selectedAfter('ArrowDown', 3);
    await selectedAfter('k', 2);
    await selectedAfter('ArrowUp', 1);
    // At the top, ↑ stays on the first message.
    await page.keyboard.press('ArrowUp');
    await selectedAfter('j', 2);
    // A j pressed in a form field is the field's: it selects nothing (else the next j would land on 4).
    await page.locator('#msg-invalid').focus();
    await page.keyboard.press('j');
    await page.locator('#msg-invalid').blur();
    await selectedAfter('j', 3);
    expect(errorsOf(page)).toEqual([]);

    // With only invalid messages listed, the keys step through those.
    const broken = await open(inspector.url, '#/exchange/2');
    await broken.waitForSelector('.msg-row[data-seq]');
    await broken.check('#msg-invalid');
    await broken.waitForFunction(() => [...document.querySelectorAll('.msg-row[data-seq]')].every((r) => r.classList.contains('invalid')));
    await broken.locator('#msg-invalid').blur();
    await broken.keyboard.press('j');
    await broken.waitForSelector('#message[data-seq="2"]');
    expect(await broken.locator('#message h3 .badge.invalid').count()).toBe(1);
  });

  it('copies a message as JSON and the request as curl, whose Authorization stays redacted', async () => {
    const page = await open(inspector.url, '#/exchange/1/message/1', true);
    await page.waitForSelector('#message[data-seq="1"]');
    const clipboardAfter = async (button: string) => {
      const before = Number((await page.locator(button).getAttribute('data-copied')) ?? '0');
      await page.click(button);
      await page.waitForSelector(`${button}[data-copied="${before + 1}"]`);
      return page.evaluate(() => navigator.clipboard.readText());
    };
    const json = JSON.parse(await clipboardAfter('#copy-json')) as { threadId: string; messages: Array<{ id: string }> };
    expect(json).toMatchObject({ threadId: 'thread-1', runId: 'run-1', messages: [{ id: 'u1', role: 'user' }] });

    const curl = await clipboardAfter('#copy-curl');
    const target = (await (await fetch(inspector.url + '/api/recording')).json()) as { target: string };
    expect(curl.split('\n')[0]).toBe('# the recording keeps no secrets: replace each <redacted> before running');
    expect(curl.split('\n')[1]).toMatch(new RegExp(`^curl -N -X POST ${target.target.replace(/[.]/g, '\\.')}/scenario/default `));
    expect(curl).toContain(`-H 'authorization: Bearer <redacted>'`);
    expect(curl).not.toContain(SECRET);
    expect(curl).toContain(`--data-raw '${JSON.stringify(json)}'`);
    expect(errorsOf(page)).toEqual([]);
  });

  it('hides the headers toggle where there are no headers (stdio), and keeps it for HTTP, with what chose the protocol', async () => {
    const file = join(dir, 'stdio.db');
    writeStdioRecording(file);
    const stdio = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(stdio.url, '#/exchange/1');
      await page.waitForSelector('#exchange-view .msg-row[data-seq="1"]');
      expect(await page.locator('#exchange-headers').count()).toBe(0);
      expect(await page.locator('#copy-curl').count()).toBe(0);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await stdio.close();
    }
    const page = await open(inspector.url, '#/exchange/1');
    await page.waitForSelector('#exchange-view .msg-row[data-seq="1"]');
    expect(await page.locator('#exchange-headers summary').textContent()).toBe('Request and response headers');
    // What chose the protocol stands next to it, as in show.
    expect((await page.locator('#exchange-facts').textContent())?.split(' · ')[1]).toBe('agui, chosen by RunAgentInput body');
  });

  it('draws the tab its protocol declares: the Pi session of a Pi RPC exchange, the AG-UI run of an AG-UI one', async () => {
    const file = join(dir, 'pi-session.db');
    writeStdioRecording(file);
    const stdio = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(stdio.url, '#/exchange/1/session');
      await page.waitForSelector('#session-pairs tr.pair');
      expect(await page.locator('.tabs a').allTextContents()).toEqual(['Messages', 'Pi session']);
      expect(await page.locator('#session-pairs tr.pair').getAttribute('data-seqs')).toBe('1 2');
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await stdio.close();
    }
    const page = await open(inspector.url, '#/exchange/1');
    await page.waitForSelector('#exchange-view .msg-row[data-seq="1"]');
    expect(await page.locator('.tabs a').allTextContents()).toEqual(['Messages', 'AG-UI run']);
  });

  it('draws an MCP session (the server and its capabilities, the tools with their input schema folded, the calls with arguments and results), live too, and an OpenAI answer assembled', async () => {
    const file = join(dir, 'mcp-session.db');
    writeMcpRecording(file);
    const mcp = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(mcp.url, '#/exchange/1/session');
      await page.waitForSelector('#mcp-calls tr.pair');
      expect(await page.locator('.tabs a').allTextContents()).toEqual(['Messages', 'MCP session']);
      expect(await page.locator('#mcp-server').textContent()).toBe('s 1 · protocol 2025-11-25capabilities: tools, logging');
      const tool = page.locator('#mcp-tools tr[data-tool="echo"]');
      expect(await tool.locator('td').allTextContents()).toEqual(['echo', 'Echoes the message back', 'message' + JSON.stringify(MCP_ECHO_TOOL.inputSchema, null, 2)]);
      expect(await tool.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      const cells = async (method: string) => (await page.locator(`#mcp-calls tr[data-method="${method}"] td`).allTextContents()).slice(2);
      expect(await cells('tools/call')).toEqual(['tools/call', 'echo', '7 ms', '{"message":"hi"}', '#8 Echo: hi']);
      expect(await cells('resources/read')).toEqual(['resources/read', 'file:///gone', '2 ms', '{"uri":"file:///gone"}', '#10 error -32002 Resource not found']);
      expect(await page.locator('#mcp-calls tr[data-method="resources/read"]').getAttribute('class')).toBe('pair failed');
      expect((await cells('tools/list')).at(-1)).toBe('#5 1 tool: echo');
      // A call's row selects its request and answer, as the pairs of other sessions do.
      await page.locator('#mcp-calls tr[data-method="tools/call"] a').first().click();
      await page.waitForSelector('#mcp-calls tr.selected[data-seqs="6 8"]');
      expect(errorsOf(page)).toEqual([]);
      await shot(page, 'inspector-mcp-session.png');
    } finally {
      await mcp.close();
    }
    // Live: a call drawn unanswered is answered in place when its answer is recorded.
    const growing = openMcpRecording(join(dir, 'mcp-live.db'), 6);
    const live = await startInspector({ recording: join(dir, 'mcp-live.db'), live: true, listen: 0 });
    try {
      const page = await open(live.url, '#/exchange/1/session');
      await page.waitForSelector('#mcp-calls tr.pair.unpaired[data-method="tools/call"]');
      await page.waitForSelector('body[data-live="connected"]');
      growing.add(MCP_SESSION_LINES.slice(6, 8));
      await page.waitForSelector('#mcp-calls tr.pair.ok[data-method="tools/call"]');
      expect((await page.locator('#mcp-calls tr[data-method="tools/call"] td').allTextContents()).at(-1)).toBe('#8 Echo: hi');
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await live.close();
      growing.close();
    }
    const llm = join(dir, 'openai.db');
    writeOpenAiRecording(llm);
    const openai = await startInspector({ recording: llm, listen: 0 });
    try {
      const page = await open(openai.url, '#/exchange/1/answer');
      await page.waitForSelector('#answer-outcome');
      expect(await page.locator('.tabs a').allTextContents()).toEqual(['Messages', 'Answer']);
      expect(await page.locator('#answer-outcome').textContent()).toBe('Stopped: tool_calls');
      expect(await page.locator('.answer-tool-call[data-tool="get_weather"] pre').textContent()).toBe(`args: ${JSON.stringify({ city: 'Paris' }, null, 2)}`);
      await page.locator('.tabs a[data-tab="messages"]').click();
      await page.waitForSelector('#exchange-view .msg-row[data-seq="1"]');
      await page.goto(`${openai.url}/#/exchange/2/answer`);
      await page.waitForSelector('.answer-text');
      expect(await page.locator('.answer-text pre').textContent()).toBe(STANDIN_HELLO);
      expect(await page.locator('#answer-usage').textContent()).toMatch(/^tokens: \d+ in, \d+ out$/);
      expect(errorsOf(page)).toEqual([]);
      await shot(page, 'inspector-answer.png');
    } finally {
      await openai.close();
    }
  });

  it("groups a forward recording's timeline under its hosts, as show does, and narrows it to one host", async () => {
    const file = join(dir, 'forward.db');
    writeForwardRecording(file);
    const server = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(server.url);
      await page.waitForSelector('#timeline .tl-row');
      const lines = async () => page.locator('#timeline .tl-host, #timeline .tl-row').evaluateAll((els) => els.map((el) => el.getAttribute('data-host') ?? `#${el.getAttribute('data-exchange-id')}`));
      expect(await lines()).toEqual(['a.test', '#1', '#3', 'b.test', '#2', '#4', 'c.test:8443', '#5']);
      expect(await page.locator('#timeline .tl-host[data-host="b.test"]').textContent()).toBe('b.test2 exchanges');
      await page.selectOption('#filter-host', 'b.test');
      await page.waitForFunction(() => document.querySelectorAll('#timeline .tl-row').length === 2);
      expect(await lines()).toEqual(['b.test', '#2', '#4']);
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await server.close();
    }
    // Any other recording: no host lines, no host filter.
    const plain = await open(inspector.url);
    await plain.waitForSelector('#timeline .tl-row');
    expect(await plain.locator('#timeline .tl-host, #filter-host').count()).toBe(0);
  });

  it("shows an https:// upstream's TLS facts in the exchange head, and no TLS line for a plain one", async () => {
    const file = join(dir, 'tls.db');
    const tls = { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', subject: 'CN=localhost', issuer: 'CN=Test CA', validFrom: '2026-12-02T05:59:59.000Z', validTo: '2027-12-02T05:59:59.000Z', fingerprint256: 'AB:CD', authorized: true };
    writeRestRecording(file, { tls });
    const server = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(server.url, '#/exchange/1');
      await page.waitForSelector('#exchange-tls');
      expect(await page.locator('#exchange-tls').textContent()).toBe(tlsText(tls));
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await server.close();
    }
    const plain = await open(inspector.url, '#/exchange/1');
    await plain.waitForSelector('#exchange-view .msg-row[data-seq="1"]');
    expect(await plain.locator('#exchange-tls').count()).toBe(0);
  });

  it('labels REST bodies by schema and status, and draws hostile recorded text as text', async () => {
    const file = join(dir, 'rest-hostile.db');
    const path = '/v1/session"><img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script>';
    writeRestRecording(file, { path });
    const rest = await startInspector({ recording: file, listen: 0 });
    try {
      const page = await open(rest.url);
      await page.waitForSelector('.tl-row[data-exchange-id="1"]');
      expect(await page.locator('.tl-row .tl-what').textContent()).toBe(`POST ${path}`);
      await page.click('.tl-row[data-exchange-id="1"]');
      await page.waitForSelector('.msg-row[data-seq="2"]');
      expect(await page.locator('.msg-label').allTextContents()).toEqual(['sessionCreateRequest', 'response 202']);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await rest.close();
    }
  });

  it('diff view: links to side B, a regression\'s findings as text, a changed message side by side', async () => {
    const restA = join(dir, 'rest-a.db');
    const restB = join(dir, 'rest-b.db');
    writeRestRecording(restA);
    writeRestRecording(restB, { cwd: '/elsewhere', invalidAnswer: 'ticket-shape' });
    const diffed = await startInspector({ recording: restA, listen: 0, diff: restB });
    try {
      const page = await open(diffed.url, '#/diff');
      await page.waitForSelector('#diff-summary');
      expect(await page.locator('.diff-ex a.diff-exchange-link.side-b').getAttribute('href')).toBe('#/b/exchange/1');
      // One exchange is "1 exchange", in the header and the diff's sides alike.
      expect(await page.locator('#recording-info').textContent()).toContain(' · 1 exchange · 2 messages · 0 invalid · 0 findings · ');
      expect(await page.locator('#diff-view > .dim').textContent()).toContain('(1 exchange, 2 messages)');
      expect(await page.locator('#diff-summary .card').allInnerTexts()).toEqual(
        expect.arrayContaining(['1 exchange changed', '2 messages changed', '0 messages added', '1 regression', '0 fixes'].map((t) => expect.stringMatching(new RegExp(`^${t.replace(' ', '\\s*')}$`)))),
      );

      // The regression says what is wrong in B, as text on the page.
      const regression = page.locator('.diff-msg', { has: page.locator('.verdict-change.regression') });
      const finding = regression.locator('.verdict-findings li');
      expect(await finding.isVisible()).toBe(true);
      expect(await finding.innerText()).toMatch(/ticket-shape.*\/ticketId.*the ticket id T-1 is not a ticket/s);

      // Rows name the bodies as their detail pages do, not by the diff's alignment label ('object').
      expect(await page.locator('.diff-msg a.diff-link.side-a').allTextContents()).toEqual(['#1 → sessionCreateRequest', '#2 ← response 202']);
      expect(await page.locator('.diff-msg a.diff-link.side-b').allTextContents()).toEqual(['#1 → sessionCreateRequest', '#2 ← response 202']);
      // The changed request: A's and B's JSON side by side, the differing value marked on both.
      const changed = page.locator('.diff-msg[data-change="changed"]', { has: page.locator('a.diff-link.side-b[href="#/b/exchange/1/message/1"]') });
      await changed.locator('details.compare summary').click();
      await changed.locator('details.compare[data-loaded]').waitFor();
      const marked = (side: string) => changed.locator(`.compare-side.side-${side} .jl.hl-changed`);
      expect(await marked('a').textContent()).toContain('"cwd": "/w"');
      expect(await marked('b').textContent()).toContain('"cwd": "/elsewhere"');
      await shot(page, 'inspector-diff.png');

      // B's link opens B's message, marked as side B, with the way back to the diff.
      await changed.locator('a.diff-link.side-b').click();
      await page.waitForSelector('#exchange-view[data-exchange-id="1"] .side-mark');
      await page.waitForSelector('#message[data-seq="1"]');
      expect(await page.locator('#message pre.json').textContent()).toContain('"cwd": "/elsewhere"');
      expect(await page.locator('#exchange-view .ex-title a').first().getAttribute('href')).toBe('#/diff');
      expect(await page.locator('#nav a[data-nav="diff"]').getAttribute('class')).toContain('active');
      expect(errorsOf(page)).toEqual([]);
    } finally {
      await diffed.close();
    }
  });

  it('draws the timeline with no timer to wait for: chromium --headless --dump-dom shows it, no "loading…"', async () => {
    const profile = join(dir, 'cli-profile');
    const child = spawn(CHROMIUM, [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, '--dump-dom', inspector.url + '/'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let dom = '';
    child.stdout.on('data', (chunk: Buffer) => (dom += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(dom).not.toContain('loading…');
    expect(dom).toContain('data-ready="timeline"');
    expect(dom.match(/class="tl-row/g)).toHaveLength(2);
    expect(dom).toContain('/scenario/broken-content-before-start');

    // The same without a wait in playwright: the DOM at the load event already holds the rows.
    const page = await open(inspector.url, '');
    expect(await page.locator('.tl-row').count()).toBe(2);
    expect(await page.locator('#view').textContent()).not.toContain('loading…');
  }, 60_000);
});
