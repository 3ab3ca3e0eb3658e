import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.util.MathUtils;
import java.util.*;

/** Prints test vectors for joinlab partition.rs using real Flink 2.3.0 classes. */
public class PartitionCheck {
    static String lit(Object k) {
        if (k instanceof String) {
            StringBuilder sb = new StringBuilder("\"");
            for (char c : ((String) k).toCharArray()) {
                if (c < 128) sb.append(c); else sb.append(String.format("\\u{%x}", (int) c));
            }
            return sb.append("\"").toString();
        }
        return k.toString();
    }
    public static void main(String[] a) {
        List<Object> keys = new ArrayList<>();
        for (String s : new String[]{"Alice","Bob","Cary","Mary","flink","", "\u00e9", "\u65e5\u672c", "user-42", "order_1000"}) keys.add(s);
        for (char c = 'a'; c <= 'z'; c++) keys.add(String.valueOf(c));
        for (int i = 0; i <= 20; i++) keys.add(i);
        keys.add(-1); keys.add(Integer.MIN_VALUE); keys.add(Integer.MAX_VALUE); keys.add(1000); keys.add(-123456);
        for (long l : new long[]{0L, 1L, -1L, 42L, 1000L, 1700000000000L, Long.MIN_VALUE, Long.MAX_VALUE, 4294967296L, -4294967296L}) keys.add(l);
        // murmur hash vectors
        System.out.println("// MathUtils.murmurHash(code)");
        int[] codes = {0, 1, -1, 2, 42, 1000, Integer.MIN_VALUE, Integer.MAX_VALUE, 123456789, -987654321, 63353862, 66965};
        for (int c : codes) System.out.println("(" + c + ", " + MathUtils.murmurHash(c) + "),");
        System.out.println("// (hashCode, assignToKeyGroup(k,128), [assignKeyToParallelOperator(k,128,p) for p=1..8], assignToKeyGroup(k,256), [assignKeyToParallelOperator(k,256,p) for p=3,7,100])  key");
        for (Object k : keys) {
            StringBuilder sb = new StringBuilder("(" + k.hashCode() + ", " + KeyGroupRangeAssignment.assignToKeyGroup(k, 128) + ", [");
            for (int p = 1; p <= 8; p++) sb.append(KeyGroupRangeAssignment.assignKeyToParallelOperator(k, 128, p)).append(p < 8 ? ", " : "], ");
            sb.append(KeyGroupRangeAssignment.assignToKeyGroup(k, 256)).append(", [");
            int[] ps = {3, 7, 100};
            for (int i = 0; i < 3; i++) sb.append(KeyGroupRangeAssignment.assignKeyToParallelOperator(k, 256, ps[i])).append(i < 2 ? ", " : "]), // ");
            sb.append(k.getClass().getSimpleName()).append(" ").append(lit(k));
            System.out.println(sb);
        }
        System.out.println("// key group ranges (maxP, p, idx, start, end)");
        int[][] cfg = {{128,1},{128,2},{128,3},{128,4},{128,5},{128,6},{128,7},{128,8},{256,3},{256,7},{10,3},{128,128},{128,100}};
        for (int[] c : cfg) for (int i = 0; i < c[1]; i++) {
            KeyGroupRange r = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(c[0], c[1], i);
            if (c[1] > 8 && i % 17 != 0 && i != c[1]-1) continue;
            System.out.println("(" + c[0] + ", " + c[1] + ", " + i + ", " + r.getStartKeyGroup() + ", " + r.getEndKeyGroup() + "),");
        }
        System.out.println("// computeDefaultMaxParallelism(p)");
        for (int p : new int[]{1,2,8,64,85,86,100,170,171,172,341,342,1000,10000,21845,21846,30000,32768})
            System.out.println("(" + p + ", " + KeyGroupRangeAssignment.computeDefaultMaxParallelism(p) + "),");
    }
}
