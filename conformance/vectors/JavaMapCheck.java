import java.util.*;

/**
 * Prints test vectors for joinlab javamap.rs: iteration order of java.util.HashMap<Long, Long>
 * (real JDK 17) after sequences of put / remove / Iterator.remove.
 */
public class JavaMapCheck {
    static long state;
    static long next() { state = state * 6364136223846793005L + 1442695040888963407L; return state >>> 33; }

    static String keys(HashMap<Long, Long> m) {
        StringBuilder sb = new StringBuilder("[");
        boolean first = true;
        for (Long k : m.keySet()) { sb.append(first ? "" : ", ").append(k); first = false; }
        return sb.append("]").toString();
    }
    static long checksum(HashMap<Long, Long> m) {
        long h = 0;
        for (Map.Entry<Long, Long> e : m.entrySet()) { h = h * 1000003L + e.getKey(); h = h * 1000003L + e.getValue(); }
        return h;
    }
    static void show(String name, HashMap<Long, Long> m) {
        System.out.println("// " + name + " size=" + m.size());
        System.out.println(keys(m));
    }
    static HashMap<Long, Long> putAll(long... ks) {
        HashMap<Long, Long> m = new HashMap<>();
        for (long k : ks) m.put(k, k);
        return m;
    }

    public static void main(String[] a) {
        show("15,16,17", putAll(15, 16, 17));
        show("17,16,15", putAll(17, 16, 15));
        show("0..=20 ascending", putAll(java.util.stream.LongStream.rangeClosed(0, 20).toArray()));
        show("negatives", putAll(-1, -2, -3, -1000, 0, 5, -17, 16, -16, Long.MIN_VALUE, Long.MAX_VALUE));
        long[] big = new long[40];
        for (int i = 0; i < 40; i++) big[i] = 1700000000000L + i * 1000L;
        show("1700000000000 + i*1000, i<40", putAll(big));
        long[] ms = new long[13];
        for (int i = 0; i < 13; i++) ms[i] = i * 1000L;
        show("i*1000, i<13 (resize at 13th)", putAll(ms));

        // re-put keeps position, remove does not shrink, put after remove appends at bin tail
        HashMap<Long, Long> m = putAll(1, 17, 33, 2, 18);
        m.put(17L, 99L);
        m.remove(1L);
        m.put(1L, 1L);
        m.put(49L, 49L);
        show("bin 1 reorder: put 1,17,33,2,18; put 17 again; remove 1; put 1; put 49", m);

        // collisions in one bin: multiples of 64 (< 65536) share bucket 0 up to capacity 64 -> resize twice then treeify
        long[] sixtyfour = new long[60];
        for (int i = 0; i < 60; i++) sixtyfour[i] = (i + 1) * 64L;
        for (int n : new int[]{8, 9, 10, 11, 12, 20, 48, 49, 60}) {
            show("multiples of 64, first " + n, putAll(Arrays.copyOf(sixtyfour, n)));
        }
        // insertion in descending order into a tree bin
        long[] desc = new long[30];
        for (int i = 0; i < 30; i++) desc[i] = (30 - i) * 128L;
        show("multiples of 128 descending, 30", putAll(desc));

        // equal hash codes: k*(2^32+1) all have Long.hashCode 0 -> compareTo ordering inside the tree
        long[] same = new long[20];
        for (int i = 0; i < 20; i++) same[i] = ((i * 7) % 20) * 4294967297L;
        show("equal hashCode 0 keys (k*(2^32+1)) permuted, 20", putAll(same));

        // removals from a tree bin: remove() (movable) and Iterator.remove (not movable)
        HashMap<Long, Long> t = putAll(Arrays.copyOf(sixtyfour, 20));
        for (long k : new long[]{64 * 5, 64 * 11, 64 * 1, 64 * 12}) t.remove(k);
        show("tree bin after remove() of 5th,11th,1st,12th", t);
        for (int i = 0; i < 8; i++) t.remove(sixtyfour[i + 12]);
        show("tree bin after 8 more remove()", t);
        HashMap<Long, Long> t2 = putAll(Arrays.copyOf(sixtyfour, 20));
        for (Iterator<Long> it = t2.keySet().iterator(); it.hasNext(); ) { long k = it.next(); if ((k / 64) % 3 != 0) it.remove(); }
        show("tree bin after Iterator.remove of k/64 % 3 != 0", t2);
        t2.put(64 * 100L, 0L); t2.put(64 * 2L, 0L); t2.put(64 * 101L, 0L);
        show("... then put 6400, 128, 6464", t2);
        for (long k = 1; k <= 40; k++) t2.put(k * 1000003L, k);
        show("... then put 40 more keys (forces resize/split)", t2);
        t2.clear();
        t2.put(5L, 5L); t2.put(16L, 1L); t2.put(1000L, 2L); t2.put(21L, 3L);
        show("after clear() (keeps capacity), put 5, 16, 1000, 21", t2);
        show("fresh map, put 5, 16, 1000, 21", putAll(5, 16, 1000, 21));

        // randomized sequences
        System.out.println("// randomized: (seed, ops, [checksum every 250 ops], final size, final checksum, first 40 keys)");
        for (long seed : new long[]{1, 2, 3, 42, 12345}) {
            state = seed;
            HashMap<Long, Long> r = new HashMap<>();
            StringBuilder cs = new StringBuilder();
            int ops = 3000;
            for (int op = 1; op <= ops; op++) {
                long key;
                int family = (int) (next() % 4);
                if (family == 0) key = (long) (next() % 100);
                else if (family == 1) key = (long) (next() % 300) * 64L;
                else if (family == 2) key = (long) (next() % 40) * 4294967297L;
                else key = (next() << 31) ^ next() ^ (next() << 62);
                long kind = next() % 100;
                if (kind < 60) r.put(key, (long) op);
                else if (kind < 90) r.remove(key);
                else if (kind < 97) {
                    long mod = next() % 3;
                    r.entrySet().removeIf(e -> Math.floorMod(e.getKey(), 3L) == mod);
                } else {
                    long mod = next() % 5;
                    for (Iterator<Map.Entry<Long, Long>> it = r.entrySet().iterator(); it.hasNext(); ) {
                        if (Math.floorMod(it.next().getKey(), 5L) == mod) it.remove();
                    }
                }
                if (op % 250 == 0) cs.append(cs.length() > 0 ? ", " : "").append(checksum(r));
            }
            StringBuilder first = new StringBuilder("[");
            int c = 0;
            for (Long k : r.keySet()) { if (c++ >= 40) break; first.append(c > 1 ? ", " : "").append(k); }
            first.append("]");
            System.out.println("(" + seed + ", " + ops + ", [" + cs + "], " + r.size() + ", " + checksum(r) + ", &" + first + "),");
        }
        // randomized, collision heavy, few bulk removals: tree bins survive and get split
        System.out.println("// randomized collision-heavy: (seed, ops, [checksum every 500 ops], final size, final checksum, capacity)");
        for (long seed : new long[]{5, 6, 7, 8, 99}) {
            state = seed;
            HashMap<Long, Long> r = new HashMap<>();
            StringBuilder cs = new StringBuilder();
            int ops = 6000;
            for (int op = 1; op <= ops; op++) {
                long key;
                long family = next() % 10;
                if (family < 5) key = (long) (next() % 400) * 64L;
                else if (family < 8) key = (long) (next() % 60) * 4294967297L;
                else key = (long) (next() % 100000) - 50000;
                long kind = next() % 100;
                if (kind < 70) r.put(key, (long) op);
                else if (kind < 95) r.remove(key);
                else {
                    long mod = next() % 7;
                    for (Iterator<Long> it = r.keySet().iterator(); it.hasNext(); ) {
                        if (Math.floorMod(it.next(), 7L) == mod) it.remove();
                    }
                }
                if (op % 500 == 0) cs.append(cs.length() > 0 ? ", " : "").append(checksum(r));
            }
            int cap = 0;
            try { java.lang.reflect.Field f = HashMap.class.getDeclaredField("table"); f.setAccessible(true); cap = ((Object[]) f.get(r)).length; } catch (Exception e) { cap = -1; }
            System.out.println("(" + seed + ", " + ops + ", [" + cs + "], " + r.size() + ", " + checksum(r) + ", " + cap + "),");
        }
        // 1000 LCG longs, no removes
        state = 7;
        HashMap<Long, Long> big1000 = new HashMap<>();
        for (int i = 0; i < 1000; i++) { long k = (long) (next() - (1L << 30)) * 977L; big1000.put(k, (long) i); }
        System.out.println("// 1000 LCG longs: size, checksum, first 30 keys");
        StringBuilder f = new StringBuilder("[");
        int c = 0;
        for (Long k : big1000.keySet()) { if (c++ >= 30) break; f.append(c > 1 ? ", " : "").append(k); }
        System.out.println(big1000.size() + ", " + checksum(big1000) + ", " + f + "]");
    }
}
