// Three functions take turns, each spinning on arithmetic for a fixed amount of work: a
// recording of about a second with dozens of runs of consecutive samples in one function,
// what a writer must keep in time order.
function alpha(n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i ^ 0x55); return x; }
function beta(n) { let x = 1; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
function gamma(n) { let x = 0; for (let i = 0; i < n; i++) x += (i & 7) ? i % 13 : Math.sin(i); return x; }
const order = [alpha, beta, gamma, beta, alpha, gamma];
let total = 0;
for (let round = 0; round < 48; round++) total += order[round % order.length](4000000);
console.log(total > 0 ? 'done' : 'never');
