public class Busy {
    static volatile long sink;
    static long spinA(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * 31 ^ (s >>> 3); return s; }
    static long spinB(long n) { double d = 1; for (long i = 0; i < n; i++) d = Math.sqrt(d + i); return (long) d; }
    static long alloc(int n) { long s = 0; for (int i = 0; i < n; i++) { int[] a = new int[64 + (i & 255)]; s += a.length; } return s; }
    static final Object lock = new Object();
    static void locker() { synchronized (lock) { sink += spinA(2_000_000); } }
    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + 2_000_000_000L;
        Thread a = new Thread(() -> { while (System.nanoTime() < end) sink += spinA(1_000_000); }, "worker-a");
        Thread b = new Thread(() -> { while (System.nanoTime() < end) sink += spinB(1_000_000); }, "worker-b");
        Thread c = new Thread(() -> { while (System.nanoTime() < end) sink += alloc(10_000); }, "allocator");
        Thread d = new Thread(() -> { while (System.nanoTime() < end) locker(); }, "locker-1");
        Thread e = new Thread(() -> { while (System.nanoTime() < end) locker(); }, "locker-2");
        Thread f = new Thread(() -> { while (System.nanoTime() < end) java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L); }, "parker");
        for (Thread t : new Thread[]{a, b, c, d, e, f}) t.start();
        for (Thread t : new Thread[]{a, b, c, d, e, f}) t.join();
    }
}
