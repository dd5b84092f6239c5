/**
 * The HTML view's whole stylesheet, inline in the page (a CI artifact opens with no network): system
 * fonts, the verdict colours of the CLI (red invalid, yellow unchecked or a warning, green valid).
 * No `<` or `&` in it, so the page stays well-formed XML.
 */
export const HTML_VIEW_STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1f2328; background: #fff; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h2 { font-size: 1.15em; margin: 1.5em 0 .5em; }
h3 { font-size: 1em; margin: 1em 0 .3em; }
.meta, .dim { color: #656d76; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { text-align: left; vertical-align: top; padding: .15em .6em; border-bottom: 1px solid #d0d7de; }
th { font-weight: 600; }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-all; margin: .2em 0; padding: .4em; background: #f6f8fa; }
details.exchange { border: 1px solid #d0d7de; border-radius: 6px; margin: .6em 0; padding: .3em .8em; }
details.exchange > summary { cursor: pointer; font-weight: 600; }
.invalid, .error { color: #cf222e; }
.unchecked, .warning { color: #9a6700; }
.valid { color: #1a7f37; }
.empty { color: #656d76; }
ul.findings { margin: .1em 0; padding-left: 1.2em; }
.more { font-style: italic; color: #656d76; }
`;
