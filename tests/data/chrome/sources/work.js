// A small CPU-bound script: two hot functions under a loop, a closure, some garbage.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sortMany() {
  const a = [];
  for (let i = 0; i < 20000; i++) a.push({ v: (i * 7919) % 10007 });
  a.sort((x, y) => x.v - y.v);
  return a.length;
}
let total = 0;
const end = Date.now() + 300;
while (Date.now() < end) {
  total += fib(20);
  total += sortMany();
}
console.log(total > 0 ? 'done' : 'never');
