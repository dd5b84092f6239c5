// Preloaded (`node -r`) by bench/startup-split.js: where a CLI start's CPU goes, from inside the process.
// process.cpuUsage() (all threads, µs) at the first line of JavaScript (Node's own start before it), around each
// file required (its compile and top-level run, less the files it requires), each builtin's first require, the
// addon's dlopen, the schema files read and hashed, SQLite's calls, the server's `listening`, the first response
// ended, and the 'exit' event. Appends one JSON line to STARTUP_MARKS_OUT at exit.
const startCpu = process.cpuUsage();
const Module = require('node:module');
const fs = require('node:fs');

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const marks = { nodeStart: (startCpu.user + startCpu.system) / 1000, files: [], inside: {} };
const addInside = (what, ms) => (marks.inside[what] = (marks.inside[what] ?? 0) + ms);

// Self time of each file: its own inclusive time less that of the files it requires.
const open = [];
function timed(kind, file, load) {
  const start = cpu();
  open.push(0);
  try {
    return load();
  } finally {
    const children = open.pop();
    const inclusive = cpu() - start;
    if (open.length > 0) open[open.length - 1] += inclusive;
    marks.files.push({ kind, file, self: inclusive - children });
  }
}
for (const ext of ['.js', '.cjs', '.json', '.node']) {
  const load = Module._extensions[ext];
  if (load) Module._extensions[ext] = function (module, file) { return timed(ext === '.node' ? 'addon' : 'file', file, () => load.call(this, module, file)); };
}

/** Wraps `object[name]` to add its CPU to `marks.inside[what]`. */
function counted(object, name, what) {
  const original = object[name];
  object[name] = function (...args) {
    const start = cpu();
    try {
      return original.apply(this, args);
    } finally {
      addInside(what, cpu() - start);
    }
  };
}
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (!String(path).includes('/schemas/')) return readFileSync.call(this, path, ...rest);
  const start = cpu();
  try {
    return readFileSync.call(this, path, ...rest);
  } finally {
    addInside('schema files read', cpu() - start);
  }
};

// Hooks set on a module's first require by the CLI, so that the probe loads nothing of its own.
const onFirstLoad = {
  crypto(crypto) {
    // The schemas' sha256 only (a preload may hash too).
    const createHash = crypto.createHash;
    crypto.createHash = function (algorithm, ...rest) {
      const hash = createHash.call(this, algorithm, ...rest);
      if (algorithm === 'sha256') for (const name of ['update', 'digest']) counted(hash, name, 'sha256');
      return hash;
    };
  },
  http(http) {
    const end = http.ServerResponse.prototype.end;
    http.ServerResponse.prototype.end = function (...args) {
      marks.firstResponse ??= cpu();
      return end.apply(this, args);
    };
    const listen = http.Server.prototype.listen;
    http.Server.prototype.listen = function (...args) {
      this.once('listening', () => (marks.listening ??= cpu()));
      return listen.apply(this, args);
    };
  },
  'better-sqlite3'(Database) {
    for (const name of ['prepare', 'pragma', 'exec']) counted(Database.prototype, name, 'SQLite calls');
    const opened = function (...args) {
      const start = cpu();
      try {
        return new Database(...args);
      } finally {
        addInside('SQLite calls', cpu() - start);
      }
    };
    Object.setPrototypeOf(opened, Database);
    opened.prototype = Database.prototype;
    return opened;
  },
};
const seen = new Map();
const load = Module._load;
Module._load = function (request, ...rest) {
  const name = request.replace(/^node:/, '');
  if (seen.has(name)) return seen.get(name) ?? load.call(this, request, ...rest);
  const builtin = Module.isBuiltin(request);
  let loaded = builtin ? timed('builtin', name, () => load.call(this, request, ...rest)) : load.call(this, request, ...rest);
  if (onFirstLoad[name]) loaded = onFirstLoad[name](loaded) ?? loaded;
  // A builtin or a hooked package keeps the object handed out first; other requests go on through the loader.
  seen.set(name, builtin || onFirstLoad[name] ? loaded : undefined);
  return loaded;
};

process.on('exit', () => {
  marks.exit = cpu();
  if (process.env.STARTUP_MARKS_OUT) fs.appendFileSync(process.env.STARTUP_MARKS_OUT, JSON.stringify(marks) + '\n');
});
