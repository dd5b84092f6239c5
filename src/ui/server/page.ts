/**
 * The inspector page's HTML and CSS, kept as string constants so they ship inside dist/ (the
 * package publishes dist and schemas only). The scripts are the compiled src/ui/web/*.ts, served
 * from dist/ui/web/. Nothing refers to an external URL: the page works offline.
 */

import type { InitialData } from '../api-types.js';

/**
 * The page, with the data of its first screen (the recording and its exchanges) inside, so the
 * timeline draws as the scripts run, with no fetch or timer first: a plain headless screenshot,
 * taken when the page has loaded, shows the recording. The JSON sits in a data block, never
 * executed; `<` is escaped so no value can close the block.
 */
export function indexHtml(initial: InitialData): string {
  const json = JSON.stringify(initial).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  // A function, so `$&` and the like in the data stay as they are.
  return INDEX_HTML.replace('<!--initial-data-->', () => `<script type="application/json" id="initial-data">${json}</script>`);
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-proxy inspector</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/web/app.js"></script>
</head>
<body>
<header id="top">
  <a class="brand" href="#/">agent-proxy <b>inspector</b></a>
  <nav id="nav"><a href="#/" data-nav="timeline">Timeline</a></nav>
  <span id="recording-info" class="dim"></span>
  <span id="live-indicator" hidden>● live</span>
</header>
<main id="view"><p class="dim pad">loading…</p></main>
<!--initial-data-->
</body>
</html>
`;

export const STYLE_CSS = `
:root {
  --bg: #fbfbfc; --fg: #1d2330; --dim: #6b7385; --line: #e2e5ec; --panel: #ffffff;
  --accent: #3257d6; --ok: #1f8a4c; --bad: #c62f3a; --warn: #b26a00; --unk: #8a8f9c;
  --hl-error: #fde3e5; --hl-warning: #fff1d6; --sel: #e6edff;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; background: var(--bg); color: var(--fg); }
body { display: flex; flex-direction: column; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.dim { color: var(--dim); }
.pad { padding: 12px 16px; }
.mono { font-family: var(--mono); }
header#top { display: flex; gap: 16px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
header#top .brand { color: var(--fg); font-size: 14px; }
nav a { margin-right: 12px; padding: 2px 6px; border-radius: 4px; }
nav a.active { background: var(--sel); }
#recording-info { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#live-indicator { color: var(--ok); font-weight: 600; }
main#view { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.view-col { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.toolbar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
.toolbar label { display: inline-flex; gap: 4px; align-items: center; }
input[type=search] { width: 240px; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; font: inherit; }
select { font: inherit; padding: 2px 4px; }
.badge { display: inline-block; min-width: 18px; padding: 0 6px; border-radius: 9px; font-size: 11px; line-height: 18px; text-align: center; font-weight: 600; }
.badge.valid { background: #e2f4e9; color: var(--ok); }
.badge.invalid { background: #fbe0e2; color: var(--bad); }
.badge.unchecked { background: #eceef2; color: var(--unk); }
.badge.warning { background: #fff1d6; color: var(--warn); }
.badge.change-added { background: #e2f4e9; color: var(--ok); }
.badge.change-removed { background: #fbe0e2; color: var(--bad); }
.badge.change-changed { background: #fff1d6; color: var(--warn); }
.status-ok { color: var(--ok); } .status-bad { color: var(--bad); }
/* timeline */
.timeline { flex: 1; overflow: auto; }
.tl-head, .tl-row { display: grid; grid-template-columns: 52px minmax(180px, 2fr) 150px 54px 80px 70px 60px minmax(200px, 3fr); gap: 8px; align-items: center; padding: 0 16px; }
.tl-head { position: sticky; top: 0; background: var(--panel); border-bottom: 1px solid var(--line); height: 28px; color: var(--dim); font-size: 12px; z-index: 1; }
.tl-row { height: 28px; border-bottom: 1px solid #f0f1f5; color: var(--fg); }
.tl-row:hover { background: #f3f5fa; text-decoration: none; }
.tl-row.has-invalid .tl-what { color: var(--bad); }
.tl-host { display: flex; gap: 8px; align-items: baseline; padding: 6px 16px 2px; border-bottom: 1px solid var(--line); font-family: var(--mono); font-size: 12px; }
.tl-proto { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.tl-what { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; font-family: var(--mono); font-size: 12px; }
.tl-track { position: relative; height: 14px; background: #f3f4f8; border-radius: 3px; }
.tl-bar { position: absolute; top: 2px; height: 10px; min-width: 3px; border-radius: 2px; background: #7b93e8; }
.tl-bar.invalid { background: var(--bad); } .tl-bar.open { background: repeating-linear-gradient(45deg, #7b93e8, #7b93e8 4px, #aebdf2 4px, #aebdf2 8px); }
.tl-bar.failed { background: var(--warn); }
.tl-axis { position: relative; height: 14px; font-size: 10px; }
.tl-axis span { position: absolute; transform: translateX(-50%); white-space: nowrap; }
.tl-axis span:first-child { transform: none; }
.tl-axis span:last-child { transform: translateX(-100%); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
/* exchange */
.ex-head { padding: 10px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
.ex-title { font-family: var(--mono); font-size: 14px; }
.ex-head details { margin-top: 6px; }
.ex-head summary { cursor: pointer; color: var(--dim); }
table.kv { border-collapse: collapse; font-family: var(--mono); font-size: 12px; margin: 4px 0 4px 12px; }
table.kv td { padding: 1px 12px 1px 0; vertical-align: top; word-break: break-all; }
table.kv td:first-child { color: var(--dim); white-space: nowrap; }
.headers { display: flex; gap: 32px; flex-wrap: wrap; }
.tabs { display: flex; gap: 4px; padding: 0 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
.tabs a { padding: 6px 12px; border-bottom: 2px solid transparent; color: var(--dim); }
.tabs a.active { border-bottom-color: var(--accent); color: var(--fg); }
.split { flex: 1; min-height: 0; display: flex; }
.list-pane { width: 46%; min-width: 320px; display: flex; flex-direction: column; border-right: 1px solid var(--line); background: var(--panel); }
.detail-pane { flex: 1; min-width: 0; overflow: auto; padding: 12px 16px; }
.vlist { flex: 1; min-height: 0; overflow-y: auto; position: relative; }
.vlist-spacer { position: relative; }
.msg-row { position: absolute; left: 0; right: 0; height: 24px; display: grid; grid-template-columns: 56px 18px 1fr 76px 58px; gap: 6px; align-items: center; padding: 0 10px; cursor: pointer; font-size: 12px; border-bottom: 1px solid #f3f4f7; }
.msg-row:hover { background: #f3f5fa; text-decoration: none; }
.msg-row.selected { background: var(--sel); }
.msg-row.invalid .msg-label { color: var(--bad); }
.msg-label { font-family: var(--mono); overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.msg-dir.client { color: #8a4fd6; } .msg-dir.server { color: #0f8a8a; }
.msg-row.placeholder { color: var(--dim); }
h3 { margin: 14px 0 6px; font-size: 13px; }
button.copy { font: 11px system-ui, sans-serif; padding: 1px 8px; margin-left: 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--panel); color: var(--fg); cursor: pointer; vertical-align: middle; }
button.copy:hover { border-color: #b8c3e6; }
.side-mark { margin-right: 6px; }
.findings { list-style: none; padding: 0; margin: 0 0 8px; }
.findings li { padding: 4px 8px; margin-bottom: 4px; border-left: 3px solid var(--bad); background: #fff5f6; cursor: pointer; }
.findings li.warning { border-left-color: var(--warn); background: #fffaf0; }
.findings .rule { font-family: var(--mono); font-weight: 600; margin-right: 6px; }
.findings .ptr { font-family: var(--mono); color: var(--dim); margin-right: 6px; }
pre.json { margin: 0; padding: 6px 0; font: 12px/1.45 var(--mono); background: var(--panel); border: 1px solid var(--line); border-radius: 4px; overflow: auto; }
.jl { padding: 0 10px; white-space: pre; }
.jl.hl-error { background: var(--hl-error); }
.jl.hl-warning { background: var(--hl-warning); }
.jl.hl-start { box-shadow: inset 3px 0 0 var(--bad); }
.jl.hl-start.hl-warning-start { box-shadow: inset 3px 0 0 var(--warn); }
.jl.hl-changed { background: #fff6d9; box-shadow: inset 3px 0 0 var(--warn); }
.jl .mark { color: var(--bad); font-family: system-ui, sans-serif; font-size: 11px; margin-left: 12px; }
.jk { color: #7a3e9d; } .js { color: #1f7a44; } .jn { color: #b25400; } .jb { color: #2151c6; } .jz { color: var(--dim); }
/* run view */
.conv { flex: 1; min-width: 0; overflow: auto; padding: 12px 16px; border-right: 1px solid var(--line); background: var(--panel); max-width: 56%; }
.run-item { margin: 0 0 8px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; cursor: pointer; background: #fff; }
.run-item:hover { border-color: #b8c3e6; }
.run-item.selected { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent); }
/* No text-transform: ids and values are case-sensitive and must read as recorded. */
.run-item .who { font-size: 11px; color: var(--dim); margin-bottom: 2px; display: flex; justify-content: space-between; }
.run-item.invalid { border-color: var(--bad); box-shadow: inset 3px 0 0 var(--bad); }
.run-item .invalid-mark { color: var(--bad); font-weight: 600; }
.run-item .run-findings { margin: 4px 0 0; font-style: normal; }
.run-item.message.user { background: #f3f6ff; }
.run-item.tool-call { background: #fbf7ff; }
.run-item.reasoning { background: #fafafa; font-style: italic; }
.run-item.meta { padding: 2px 10px; border-style: dashed; font-size: 12px; color: var(--dim); }
.run-item pre { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.4 var(--mono); }
.outcome { padding: 6px 10px; border-radius: 6px; margin-bottom: 10px; font-weight: 600; }
.outcome.finished { background: #e2f4e9; color: var(--ok); } .outcome.error { background: #fbe0e2; color: var(--bad); }
.outcome.interrupted { background: #fff1d6; color: var(--warn); } .outcome.open, .outcome.cancelled { background: #eceef2; color: var(--dim); }
/* Pi / ACP session */
table.sess { width: 100%; border-collapse: collapse; font-size: 12px; margin-bottom: 6px; }
table.sess td, table.sess th { padding: 2px 8px; border-bottom: 1px solid #f0f1f5; text-align: left; white-space: nowrap; }
table.sess .num { text-align: right; }
table.sess th { color: var(--dim); font-weight: 500; }
table.sess tr.selected { background: var(--sel); }
table.sess tr.unpaired td:nth-child(3) { color: var(--bad); }
table.sess tr.gap td { background: var(--hl-warning); color: var(--warn); font-weight: 600; }
details.turn { border: 1px solid var(--line); border-radius: 6px; margin-bottom: 8px; padding: 4px 10px; background: #fff; }
details.turn summary { cursor: pointer; }
/* MCP session: descriptions wrap; arguments and results are cut to a line (whole in their tooltip); a tool's input schema unfolds in place */
table.sess td.wrap { white-space: normal; }
table.mcp-calls td.args, table.mcp-calls td.result { font-family: var(--mono); max-width: 12em; overflow: hidden; text-overflow: ellipsis; }
details.schema summary { cursor: pointer; font-family: var(--mono); }
details.schema pre { margin: 4px 0; font: 11px/1.35 var(--mono); white-space: pre-wrap; }
#mcp-server { margin-bottom: 6px; } #mcp-capabilities { margin-top: 2px; }
pre.mcp-instructions { white-space: pre-wrap; font: 12px/1.4 var(--mono); background: #fafafa; padding: 4px 8px; }
/* diff */
.diff { flex: 1; overflow: auto; padding: 12px 16px; }
.diff-ex { border: 1px solid var(--line); border-radius: 6px; margin-bottom: 12px; background: var(--panel); }
.diff-ex > .head { padding: 6px 10px; border-bottom: 1px solid var(--line); display: grid; grid-template-columns: 80px 1fr 1fr; gap: 10px; font-family: var(--mono); font-size: 12px; }
table.diff-msgs { width: 100%; border-collapse: collapse; font-size: 12px; }
table.diff-msgs td, table.diff-msgs th { padding: 3px 10px; border-bottom: 1px solid #f0f1f5; text-align: left; vertical-align: top; }
table.diff-msgs th { color: var(--dim); font-weight: 500; }
.chg { font-family: var(--mono); word-break: break-all; }
.chg .a { color: var(--bad); } .chg .b { color: var(--ok); }
.verdict-findings { margin: 4px 0 0; min-width: 260px; }
details.compare { margin-top: 4px; font-family: system-ui, sans-serif; }
details.compare summary { cursor: pointer; color: var(--accent); }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-top: 4px; }
.compare-side { min-width: 0; }
.compare-side pre.json { max-height: 420px; }
.summary-cards { display: flex; gap: 12px; margin-bottom: 12px; flex-wrap: wrap; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; }
.card b { font-size: 16px; margin-right: 4px; }
.error-box { margin: 16px; padding: 10px; background: #fbe0e2; color: var(--bad); border-radius: 6px; }
`;
