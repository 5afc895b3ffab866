// Usage: node trace_profile.js OUT.json SCRIPT.js
// Starts Node's tracing with the V8 CPU profiler category from inside the process, runs the
// work, and writes the collected trace events.
const { Session } = require('inspector');
const fs = require('fs');
const s = new Session(); s.connect();
const events = [];
s.on('NodeTracing.dataCollected', m => events.push(...m.params.value));
s.post('NodeTracing.start', { traceConfig: { includedCategories: ['v8', 'node', 'disabled-by-default-v8.cpu_profiler'] } }, () => {
  require(process.argv[3]);
  s.post('NodeTracing.stop', () => { fs.writeFileSync(process.argv[2], JSON.stringify({ traceEvents: events })); });
});
