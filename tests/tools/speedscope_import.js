// SPDX-License-Identifier: MIT
// Opens a profile file with speedscope's own importer (from the speedscope npm package, run
// without a browser) and prints what speedscope understood, as JSON:
//   {"importer": "Importing as ...", "name": ..., "active": N,
//    "profiles": [{"name", "unit", "total", "folded": ["a;b 3", ...],
//                  "frames": [{"name", "file", "line", "col"}, ...]}]}
// "folded" lists every root-to-node path of speedscope's merged call tree with its self weight,
// so it compares line for line with folded stacks. "frames" lists the profile's frames as
// speedscope made them (two frames are two boxes, whatever their names), in its order.
// Usage: node speedscope_import.js SPEEDSCOPE_PACKAGE_DIR FILE [NAME_SEEN_BY_SPEEDSCOPE]
// With SPEEDSCOPE_TIME_ORDER=1, each profile also lists "timeOrder": its time-order view as
// speedscope walks it (forEachCall), ["O" or "C", frame name, value] per frame opened or closed.
// With SPEEDSCOPE_IMPORT_ONLY=1 in the environment, "folded" and "frames" are left out: only the
// import is done (what the benchmarks time). With SPEEDSCOPE_EXPORT=OUT, what speedscope
// imported is also written to OUT by speedscope's own exporter (its "Export" button), a
// speedscope JSON file.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

function fail(message) {
  process.stderr.write(`speedscope_import: ${message}\n`);
  process.exit(2);
}

const [packageDir, file, shownName] = process.argv.slice(2);
if (!packageDir || !file) fail('usage: speedscope_import.js PACKAGE_DIR FILE [NAME]');
const release = path.join(packageDir, 'dist', 'release');
const html = fs.readFileSync(path.join(release, 'index.html'), 'utf8');
const bundleName = (html.match(/<script src="(speedscope-[^"]+\.js)">/) || [])[1];
if (!bundleName) fail('no speedscope bundle named in index.html');
let source = fs.readFileSync(path.join(release, bundleName), 'utf8');

// The bundle is the whole web app. Its import module is kept and the start of the user
// interface (the last statement) is cut off; the module is found by its exported names.
const exportsMatch = source.match(/\$l\((\w+),\{importFromFileSystemDirectoryEntry:/) ||
  source.match(/(\w+)=\{\};\w+\(\1,\{importFromFileSystemDirectoryEntry:/);
if (!exportsMatch) fail('import module not found in the bundle');
const moduleObject = exportsMatch[1];
const initMatch = source.match(new RegExp(
  '\\w+=Promise\\.resolve\\(\\)\\.then\\(\\(\\)=>\\((\\w+)\\(\\),' + moduleObject + '\\)\\)'));
if (!initMatch) fail('initialiser of the import module not found');
// The exporter is found by its shape: it numbers frames through a Map as it meets them and
// writes `exporter: speedscope@VERSION`.
const exportMatch = source.match(
  /function (\w+)\(\w+\)\{let \w+=\[\],\w+=new Map;function \w+\(\w+\)\{let \w+=\w+\.get\(\w+\);[^]{0,400}?exporter:`speedscope@/);
if (process.env.SPEEDSCOPE_EXPORT && !exportMatch) fail('exporter not found in the bundle');
const uiStart = source.lastIndexOf('console.log(`speedscope v$');
const bundleEnd = source.lastIndexOf('})();');
if (uiStart < 0 || bundleEnd < uiStart) fail('start of the user interface not found');
source = source.slice(0, uiStart) +
  `globalThis.__importModule=()=>(${initMatch[1]}(),${moduleObject});` +
  (exportMatch ? `globalThis.__exportGroup=${exportMatch[1]};` : '') + source.slice(bundleEnd);

const logged = [];
const sandbox = {
  console: { log: (...a) => logged.push(a.join(' ')), warn() {}, error: (...a) => logged.push(a.join(' ')), info() {} },
  TextDecoder, TextEncoder, URL, atob, btoa, WebAssembly, setTimeout, clearTimeout,
  Blob: class {},
  navigator: { userAgent: 'node', platform: 'linux' },
  location: { hash: '', search: '', href: 'file:///speedscope' },
  document: {
    createElement: () => ({ style: {}, getContext: () => null, setAttribute() {}, appendChild() {} }),
    head: { appendChild() {} }, body: {}, addEventListener() {}, querySelector: () => null,
  },
  addEventListener() {},
  matchMedia: () => ({ matches: false, addEventListener() {}, addListener() {} }),
  localStorage: { getItem: () => null, setItem() {} },
  // The JFR importer loads its WebAssembly decoder (jfrview) by fetching a file next to the
  // bundle: handed the file's bytes, wasm-bindgen's loader instantiates them directly.
  fetch: async (url) => fs.readFileSync(path.join(release, path.basename(String(url)))),
};
sandbox.window = sandbox;
sandbox.self = sandbox;
sandbox.globalThis = sandbox;
vm.createContext(sandbox);
vm.runInContext(source, sandbox, { filename: bundleName });
const importer = sandbox.__importModule();

function foldedLines(profile) {
  const sums = new Map();
  const walk = (node, names) => {
    for (const child of node.children) {
      const here = names.concat(child.frame.name);
      const self = child.getSelfWeight();
      if (self > 0) {
        const key = here.join(';');
        sums.set(key, (sums.get(key) || 0) + self);
      }
      walk(child, here);
    }
  };
  walk(profile.getGroupedCalltreeRoot(), []);
  return [...sums].map(([stack, weight]) => `${stack} ${weight}`).sort();
}

function timeOrder(profile) {
  const events = [];
  profile.forEachCall((node, value) => events.push(['O', node.frame.name, value]),
                      (node, value) => events.push(['C', node.frame.name, value]));
  return events;
}

function frameList(profile) {
  const frames = [];
  profile.forEachFrame(f => frames.push({ name: f.name, file: f.file, line: f.line, col: f.col }));
  return frames;
}

(async () => {
  const bytes = fs.readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const group = await importer.importProfilesFromArrayBuffer(shownName || path.basename(file), buffer);
  if (!group) fail(`speedscope could not import ${file}: ${logged.join(' | ')}`);
  if (process.env.SPEEDSCOPE_EXPORT)
    fs.writeFileSync(process.env.SPEEDSCOPE_EXPORT, JSON.stringify(sandbox.__exportGroup(group)) + '\n');
  const result = {
    importer: logged.find(l => l.startsWith('Importing as')) || null,
    name: group.name,
    active: group.indexToView,
    profiles: group.profiles.map(p => ({
      name: p.getName(),
      unit: p.getWeightUnit(),
      total: p.getTotalWeight(),
      folded: process.env.SPEEDSCOPE_IMPORT_ONLY === '1' ? undefined : foldedLines(p),
      frames: process.env.SPEEDSCOPE_IMPORT_ONLY === '1' ? undefined : frameList(p),
      timeOrder: process.env.SPEEDSCOPE_TIME_ORDER === '1' ? timeOrder(p) : undefined,
    })),
  };
  process.stdout.write(JSON.stringify(result, null, 1) + '\n');
})().catch(e => fail(`speedscope failed on ${file}: ${e && e.stack || e}`));
