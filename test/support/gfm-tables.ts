/**
 * The tables of a GitHub-flavoured Markdown text, read as GitHub reads them (github.github.com/gfm,
 * "Tables"): a header row, a delimiter row of `---` cells, then body rows until a blank line or a
 * line without a pipe; cells split at every `|` not escaped by a backslash (in code spans too). It
 * throws where a table is not well formed: a delimiter row missing or malformed, or a row whose
 * cell count differs from the header's (GitHub would pad or drop cells silently).
 */
export interface GfmTable {
  header: string[];
  rows: string[][];
}

export function gfmTables(markdown: string): GfmTable[] {
  const lines = markdown.split('\n');
  const tables: GfmTable[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opens = /^(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (opens) {
      fence = opens[1];
      continue;
    }
    if (!line.startsWith('|')) continue;
    const header = cells(line);
    const delimiter = lines[i + 1] === undefined ? [] : cells(lines[i + 1]!);
    if (delimiter.length !== header.length || !delimiter.every((c) => /^:?-+:?$/.test(c))) throw new Error(`line ${i + 2}: not the delimiter row of a ${header.length}-column table: ${lines[i + 1]}`);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.includes('|') && lines[j]!.trim() !== ''; j++) {
      const row = cells(lines[j]!);
      if (row.length !== header.length) throw new Error(`line ${j + 1}: ${row.length} cells in a ${header.length}-column table: ${lines[j]}`);
      rows.push(row);
    }
    tables.push({ header, rows });
    i = j - 1;
  }
  return tables;
}

function cells(line: string): string[] {
  const parts: string[] = [];
  let cell = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      cell += c + line[i + 1];
      i++;
    } else if (c === '|') {
      parts.push(cell);
      cell = '';
    } else cell += c;
  }
  parts.push(cell);
  // A leading and a trailing pipe open and close the row.
  if (line.trimStart().startsWith('|')) parts.shift();
  if (line.trimEnd().endsWith('|') && !line.trimEnd().endsWith('\\|')) parts.pop();
  return parts.map((p) => p.trim());
}

/** A cell's text as it renders: backslash escapes and the entities for markup characters undone. */
export function cellText(cell: string): string {
  return cell.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
