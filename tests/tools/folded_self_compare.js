// SPDX-License-Identifier: MIT
// Compares the self weight per function name of speedscope's import summary (see
// speedscope_import.js) with profkit's folded stacks, where the two agree by design.
// Usage: node folded_self_compare.js SUMMARY.json PROFKIT.folded SCALE [EXCLUDED_NAME...]
//   SCALE divides profkit's weights (1000: profkit's ns against speedscope's µs). Names are cut
//   at " {" (speedscope keys Trace Event frames by name and args). Names starting "(anonymous"
//   are left out (speedscope adds the file and line to them), and so are the EXCLUDED names.
// Prints "compared N functions" and exits 1 with the differences when any function differs.
'use strict';
const fs = require('fs');
const [summaryFile, foldedFile, scaleText, ...excluded] = process.argv.slice(2);
const scale = Number(scaleText);
const leafName = (stack) => {
  const frames = stack.split(';');
  const name = frames[frames.length - 1];
  const cut = name.indexOf(' {');
  return cut >= 0 ? name.slice(0, cut) : name;
};
const add = (sums, line, divisor) => {
  const at = line.lastIndexOf(' ');
  if (at < 0) return;
  const name = leafName(line.slice(0, at));
  sums.set(name, (sums.get(name) || 0) + Number(line.slice(at + 1)) / divisor);
};
const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
const theirs = new Map();
for (const profile of summary.profiles) for (const line of profile.folded) add(theirs, line, 1);
const ours = new Map();
for (const line of fs.readFileSync(foldedFile, 'utf8').split('\n')) if (line) add(ours, line, scale);
const skip = (name) => name.startsWith('(anonymous') || excluded.includes(name);
const differences = [];
let compared = 0;
for (const name of new Set([...theirs.keys(), ...ours.keys()])) {
  if (skip(name)) continue;
  const a = theirs.get(name) || 0, b = ours.get(name) || 0;
  if (a === 0 && b === 0) continue;
  compared++;
  if (Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(a))) differences.push(`${name}: speedscope ${a}, profkit ${b}`);
}
console.log(`compared ${compared} functions`);
if (differences.length) {
  console.log(differences.join('\n'));
  process.exit(1);
}
