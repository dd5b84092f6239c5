// Preloaded (`node -r`) by bench/startup.js and bench/startup-floor.js: writes the process's CPU (user + system, all
// threads, ms) to the file AGENT_PROXY_CPU_PROBE names when the main thread exits, a command's own figure with µs
// precision instead of the 10 ms ticks of cutime. Workers inherit the preload and skip it.
if (require('node:worker_threads').isMainThread) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    require('node:fs').writeFileSync(process.env.AGENT_PROXY_CPU_PROBE, String((user + system) / 1000));
  });
}
