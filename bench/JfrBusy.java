// SPDX-License-Identifier: MIT
// A busy Java program for bench/bench_jfr.sh to record with Java Flight Recorder: several
// threads doing CPU-heavy and allocation-heavy work through many different call paths (so that
// the recording holds many distinct stacks, not one hot loop), a contended lock and parked
// threads (lock and park events). Runs for the number of seconds given (default 60).
//
//   java -XX:StartFlightRecording=settings=profile,filename=OUT.jfr JfrBusy.java [SECONDS]
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

public class JfrBusy {
    static volatile long sink;
    static final Object sharedLock = new Object();

    // Recursion whose depth and branch depend on the seed: many distinct stacks.
    static long descend(int depth, long seed) {
        if (depth == 0) return leaf(seed);
        switch ((int) (seed % 4)) {
            case 0: return branchA(depth - 1, seed / 4 + depth);
            case 1: return branchB(depth - 1, seed / 4 + depth);
            case 2: return branchC(depth - 1, seed / 4 + depth);
            default: return branchD(depth - 1, seed / 4 + depth);
        }
    }
    static long branchA(int depth, long seed) { return descend(depth, seed * 3 + 1) + 1; }
    static long branchB(int depth, long seed) { return descend(depth, seed * 5 + 2) ^ 7; }
    static long branchC(int depth, long seed) { return descend(depth, seed * 7 + 3) - 3; }
    static long branchD(int depth, long seed) { return descend(depth, seed * 11 + 5) | 1; }

    static long leaf(long seed) {
        switch ((int) (seed % 5)) {
            case 0: return spinIntegers(20_000 + seed % 1000);
            case 1: return spinDoubles(20_000 + seed % 1000);
            case 2: return allocateArrays(200 + (int) (seed % 100));
            case 3: return buildStrings(100 + (int) (seed % 50));
            default: return churnMap(200 + (int) (seed % 100));
        }
    }
    static long spinIntegers(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += i * 31 ^ (s >>> 3);
        return s;
    }
    static long spinDoubles(long n) {
        double d = 1;
        for (long i = 0; i < n; i++) d = Math.sqrt(d + i);
        return (long) d;
    }
    static long allocateArrays(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            int[] a = new int[64 + (i & 511)];
            a[i % a.length] = i;
            s += a.length;
        }
        return s;
    }
    static long buildStrings(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) b.append("item").append(i).append(',');
        return b.toString().hashCode();
    }
    static long churnMap(int n) {
        Map<String, List<Integer>> m = new HashMap<>();
        for (int i = 0; i < n; i++) m.computeIfAbsent("k" + (i % 37), k -> new ArrayList<>()).add(i);
        return m.size();
    }
    static long sortNumbers(long seed) {
        long[] a = new long[4096];
        for (int i = 0; i < a.length; i++) a[i] = (seed = seed * 6364136223846793005L + 1442695040888963407L);
        Arrays.sort(a);
        return a[a.length / 2];
    }
    static long bigPowers(long seed) {
        return BigInteger.valueOf(seed | 1).pow(300).mod(BigInteger.valueOf(1_000_003)).longValue();
    }
    static void lockedWork(long seed) {
        synchronized (sharedLock) { sink += spinIntegers(3_000_000 + seed % 1000); }
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            final int id = w;
            threads.add(new Thread(() -> {
                long seed = id * 1_000_003L + 17;
                while (System.nanoTime() < end) {
                    seed = seed * 6364136223846793005L + 1442695040888963407L;
                    long s = Math.abs(seed >>> 1);
                    sink += descend(3 + (int) (s % 9), s);
                    if (s % 7 == 0) sink += sortNumbers(s);
                    if (s % 11 == 0) sink += bigPowers(s);
                }
            }, "worker-" + w));
        }
        for (int w = 0; w < 2; w++) {
            threads.add(new Thread(() -> {
                long seed = 99;
                while (System.nanoTime() < end) lockedWork(seed++);
            }, "locker-" + w));
        }
        threads.add(new Thread(() -> {
            while (System.nanoTime() < end) LockSupport.parkNanos(25_000_000L);
        }, "parker"));
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
    }
}
