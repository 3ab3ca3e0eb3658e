import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.PriorityComparator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSet;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import java.util.*;

/**
 * Prints test vectors for joinlab timers.rs: poll order of Flink 2.3.0's event-time timer queue
 * for the heap state backend (HeapPriorityQueueSet of TimerHeapInternalTimer, created the way
 * HeapPriorityQueueSetFactory.create does: forPriorityComparableObjects, forKeyedObjects,
 * minimum capacity 128, key groups 0..127 of 128).
 */
public class TimerCheck {
    static <K, N> HeapPriorityQueueSet<TimerHeapInternalTimer<K, N>> queue() {
        return new HeapPriorityQueueSet<>(PriorityComparator.forPriorityComparableObjects(),
            KeyExtractorFunction.forKeyedObjects(), 128, KeyGroupRange.of(0, 127), 128);
    }
    static String show(TimerHeapInternalTimer<?, ?> t) {
        return "(" + t.getTimestamp() + ", \"" + t.getKey() + "\", \"" + t.getNamespace() + "\")";
    }
    static <K, N> String drain(HeapPriorityQueueSet<TimerHeapInternalTimer<K, N>> q) {
        StringBuilder sb = new StringBuilder("[");
        TimerHeapInternalTimer<K, N> t;
        boolean first = true;
        while ((t = q.poll()) != null) { sb.append(first ? "" : ", ").append(show(t)); first = false; }
        return sb.append("]").toString();
    }
    static <K, N> String heapOrder(HeapPriorityQueueSet<TimerHeapInternalTimer<K, N>> q) {
        StringBuilder sb = new StringBuilder("[");
        boolean first = true;
        for (Iterator<TimerHeapInternalTimer<K, N>> it = q.iterator(); it.hasNext(); ) {
            sb.append(first ? "" : ", ").append(show(it.next())); first = false;
        }
        return sb.append("]").toString();
    }
    static long state;
    static long next() { state = state * 6364136223846793005L + 1442695040888963407L; return state >>> 33; }

    public static void main(String[] args) {
        // 1. equal timestamps, keys registered a, b, c
        HeapPriorityQueueSet<TimerHeapInternalTimer<String, String>> q = queue();
        for (String k : new String[]{"a", "b", "c"}) q.add(new TimerHeapInternalTimer<>(9, k, "w"));
        System.out.println("// a,b,c at 9: heap " + heapOrder(q));
        System.out.println(drain(q));
        for (String k : new String[]{"a", "b", "c", "d", "e", "f", "g"}) q.add(new TimerHeapInternalTimer<>(9, k, "w"));
        System.out.println("// a..g at 9: heap " + heapOrder(q));
        System.out.println(drain(q));

        // 2. sliding windows size 10 slide 5: each element registers timers (window end - 1) for
        //    its windows in assigner order (latest start first); duplicates are no-ops.
        String[][] events = {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"a", "6"}, {"c", "7"}, {"b", "8"}, {"b", "11"}, {"a", "12"}, {"c", "14"}};
        q = queue();
        StringBuilder adds = new StringBuilder();
        for (String[] e : events) {
            long ts = Long.parseLong(e[1]);
            long lastStart = ts - ((ts % 5) + 5) % 5;
            for (long start = lastStart; start > ts - 10; start -= 5) {
                boolean changedHead = q.add(new TimerHeapInternalTimer<>(start + 10 - 1, e[0], "[" + start + "," + (start + 10) + ")"));
            }
        }
        System.out.println("// sliding: heap " + heapOrder(q));
        System.out.println(drain(q));

        // 3. removal from the middle, re-add, interleaved polls
        q = queue();
        long[] tss = {5, 3, 8, 3, 1, 9, 3, 5, 2, 7};
        for (int i = 0; i < tss.length; i++) q.add(new TimerHeapInternalTimer<>(tss[i], "k" + i, "n"));
        System.out.println("// ten timers: heap " + heapOrder(q));
        q.remove(new TimerHeapInternalTimer<>(3L, "k3", "n"));
        q.remove(new TimerHeapInternalTimer<>(5L, "k0", "n"));
        q.remove(new TimerHeapInternalTimer<>(99L, "k0", "n")); // absent
        System.out.println("// after remove k3, k0: heap " + heapOrder(q));
        q.add(new TimerHeapInternalTimer<>(3L, "k3", "n"));
        q.add(new TimerHeapInternalTimer<>(3L, "k6", "n")); // duplicate
        System.out.println("// after re-add k3 and duplicate k6: heap " + heapOrder(q));
        StringBuilder polls = new StringBuilder();
        for (int i = 0; i < 3; i++) polls.append(show(q.poll())).append(", ");
        System.out.println("// three polls, then heap");
        System.out.println("[" + polls.substring(0, polls.length() - 2) + "]");
        System.out.println(heapOrder(q));
        System.out.println(drain(q));

        // 4. randomized (Long keys and namespaces)
        System.out.println("// randomized: (seed, ops, polled count, poll checksum, first 30 polled (ts,key,ns), final size, final heap-order checksum)");
        for (long seed : new long[]{1, 2, 3, 11, 2024}) {
            state = seed;
            HeapPriorityQueueSet<TimerHeapInternalTimer<Long, Long>> r = queue();
            long h = 0; int polled = 0;
            StringBuilder first = new StringBuilder("[");
            int ops = 4000;
            for (int op = 0; op < ops; op++) {
                long kind = next() % 100;
                long ts = (long) (next() % 25), key = (long) (next() % 8), ns = (long) (next() % 3);
                if (kind < 55) r.add(new TimerHeapInternalTimer<>(ts, key, ns));
                else if (kind < 75) r.remove(new TimerHeapInternalTimer<>(ts, key, ns));
                else {
                    TimerHeapInternalTimer<Long, Long> t = r.poll();
                    if (t != null) {
                        h = h * 1000003L + t.getTimestamp(); h = h * 1000003L + t.getKey(); h = h * 1000003L + t.getNamespace();
                        if (polled < 30) first.append(polled > 0 ? ", " : "").append("(" + t.getTimestamp() + ", " + t.getKey() + ", " + t.getNamespace() + ")");
                        polled++;
                    }
                }
            }
            long hh = 0;
            for (Iterator<TimerHeapInternalTimer<Long, Long>> it = r.iterator(); it.hasNext(); ) {
                TimerHeapInternalTimer<Long, Long> t = it.next();
                hh = hh * 1000003L + t.getTimestamp(); hh = hh * 1000003L + t.getKey(); hh = hh * 1000003L + t.getNamespace();
            }
            System.out.println("(" + seed + ", " + ops + ", " + polled + ", " + h + ", &" + first + "], " + r.size() + ", " + hh + "),");
        }
    }
}
