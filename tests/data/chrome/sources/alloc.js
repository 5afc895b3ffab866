// A small allocating script for node --heap-prof: three functions allocate strings, objects and
// arrays. What makeStrings and makeObjects make is kept (reachable from the global object when
// the profile is written at exit); makeArrays' arrays are garbage, which the sampling heap
// profiler drops once they are collected.
globalThis.kept = [];
function makeStrings(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push('item-' + i + '-' + 'x'.repeat(i % 64));
  return out;
}
function makeObjects(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ id: i, name: 'o' + i, tags: [i, i + 1] });
  return out;
}
function makeArrays(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(new Array(32).fill(i));
  return out;
}
for (let round = 0; round < 20; round++) {
  globalThis.kept.push(makeStrings(2000));
  globalThis.kept.push(makeObjects(1000));
  makeArrays(500);
}
console.log(globalThis.kept.length > 0 ? 'done' : 'never');
