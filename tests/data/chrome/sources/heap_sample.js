// Takes a sampling heap profile of a script through the inspector, as DevTools' Memory panel does
// ("Allocation sampling", with the objects the garbage collector discarded kept), and writes what
// HeapProfiler.stopSampling returns. Usage: node heap_sample.js OUT SCRIPT
'use strict';
const fs = require('fs');
const inspector = require('inspector');
const path = require('path');
const [out, script] = process.argv.slice(2);
const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params || {}, (err, result) => (err ? reject(err) : resolve(result))));
(async () => {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  require(path.resolve(script));
  const { profile } = await post('HeapProfiler.stopSampling');
  fs.writeFileSync(out, JSON.stringify(profile));
  session.disconnect();
})().catch((e) => { console.error(e); process.exit(1); });
