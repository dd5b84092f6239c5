import { basename, extname } from 'node:path';
import { UsageError } from '../core/errors.js';

export const EXPORT_FORMATS = ['ndjson', 'har', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The extension that names each format, and what a refusal calls the file. */
const EXTENSIONS: Readonly<Record<string, ExportFormat>> = { '.ndjson': 'ndjson', '.har': 'har', '.html': 'html', '.htm': 'html' };
const FILE_KIND: Readonly<Record<ExportFormat, string>> = { ndjson: 'an NDJSON file', har: 'a HAR file', html: 'an HTML page' };

/**
 * What `export` writes: `--format` when given, else what the `--out` extension names (`.ndjson`,
 * `.har`, `.html`), else NDJSON on stdout. A `--format` that contradicts the extension is refused rather than
 * obeyed: a `run.har` holding NDJSON (or the reverse) is a mistake nobody sees until a tool chokes on it.
 */
export function exportFormatOf(format: ExportFormat | undefined, out: string | undefined): ExportFormat {
  const named = out === undefined ? undefined : EXTENSIONS[extname(out).toLowerCase()];
  if (format !== undefined) {
    if (named !== undefined && named !== format) {
      throw new UsageError(`--format ${format}, but --out ${basename(out!)} names ${FILE_KIND[named]}; drop --format, or end --out in .${format}`);
    }
    return format;
  }
  if (out === undefined) return 'ndjson';
  if (named === undefined) throw new UsageError(`--out ${basename(out)}: cannot tell the format from its name; add --format ndjson, har or html, or end it in .ndjson, .har or .html`);
  return named;
}
