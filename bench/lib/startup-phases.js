// One run's marks (bench/lib/startup-marks.cjs) split into phases, for bench/startup-split.js and
// bench/startup-floor.js: each file required is of one kind, and what is left to the end mark is the run's work.

/** The CLI's own files in bin/: its entry and the code cache it turns on before the bundle loads. */
const BIN_FILE = /[/\\]bin[/\\](agent-proxy|code-cache)\.js$/;

/** What a marked file is: 'builtin', 'addon', 'validators', 'sqlite', 'bundle', 'bin', 'floor' or 'other'. */
function kindOf({ kind, file }) {
  if (kind === 'builtin' || kind === 'addon') return kind;
  if (file.includes('/schema/compiled/')) return 'validators';
  if (file.includes('better-sqlite3')) return 'sqlite';
  if (file.includes('/dist/')) return 'bundle';
  if (BIN_FILE.test(file)) return 'bin';
  if (file.includes('/bench/lib/floor-')) return 'floor';
  return 'other';
}

/**
 * A run's marks as rows: Node's start, each kind's files (CPU of their own, by `labels[kind]`, 'other files'
 * when it names none), and `workRow`, the rest to the end mark. Also the end mark and the files' total.
 */
export function phasesOf(marks, labels, workRow) {
  const row = { "Node's start, to the first line of JavaScript": marks.nodeStart };
  for (const file of marks.files) {
    const what = labels[kindOf(file)] ?? 'other files';
    row[what] = (row[what] ?? 0) + file.self;
  }
  const end = marks.firstResponse ?? marks.exit;
  const loading = marks.files.reduce((sum, file) => sum + file.self, 0);
  row[workRow] = end - marks.nodeStart - loading;
  return { row, end, loading };
}
