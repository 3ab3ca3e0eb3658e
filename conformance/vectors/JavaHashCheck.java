import org.apache.flink.table.data.*;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.*;
import java.util.*;

/**
 * Prints test vectors for joinlab javahash.rs using real Java 17 and Flink 2.3.0 classes:
 * String/Integer/Long/Double/Boolean.hashCode and BinaryRowData.hashCode of SQL key rows.
 */
public class JavaHashCheck {
    static String rs(String s) {
        StringBuilder sb = new StringBuilder("\"");
        s.codePoints().forEach(c -> {
            if (c >= 32 && c < 127 && c != '"' && c != '\\') sb.append((char) c); else sb.append(String.format("\\u{%x}", c));
        });
        return sb.append("\"").toString();
    }
    static String rv(Object v) {
        if (v == null) return "n()";
        if (v instanceof String) return "s(" + rs((String) v) + ")";
        if (v instanceof Integer) return "i(" + v + ")";
        if (v instanceof Long) return "l(" + v + ")";
        if (v instanceof Boolean) return "b(" + v + ")";
        if (v instanceof Double) {
            double d = (Double) v;
            if (Double.isNaN(d)) return "d(f64::NAN)";
            if (Double.isInfinite(d)) return d > 0 ? "d(f64::INFINITY)" : "d(f64::NEG_INFINITY)";
            return "d(" + d + ")";
        }
        throw new RuntimeException();
    }
    static LogicalType typeOf(Object v, LogicalType ifNull) {
        if (v == null) return ifNull;
        if (v instanceof String) return new VarCharType(VarCharType.MAX_LENGTH);
        if (v instanceof Integer) return new IntType();
        if (v instanceof Long) return new BigIntType();
        if (v instanceof Boolean) return new BooleanType();
        if (v instanceof Double) return new DoubleType();
        throw new RuntimeException();
    }
    static Object internal(Object v) { return v instanceof String ? StringData.fromString((String) v) : v; }

    /** The way the planner's generated projection writes a key: reset(), one write per field, complete(). */
    static BinaryRowData viaWriter(Object[] key, LogicalType[] types) {
        BinaryRowData row = new BinaryRowData(key.length);
        BinaryRowWriter w = new BinaryRowWriter(row);
        w.reset();
        for (int i = 0; i < key.length; i++) {
            Object v = key[i];
            if (v == null) { w.setNullAt(i); continue; }
            if (v instanceof String) w.writeString(i, StringData.fromString((String) v));
            else if (v instanceof Integer) w.writeInt(i, (Integer) v);
            else if (v instanceof Long) w.writeLong(i, (Long) v);
            else if (v instanceof Boolean) w.writeBoolean(i, (Boolean) v);
            else if (v instanceof Double) w.writeDouble(i, (Double) v);
        }
        w.complete();
        return row.copy();
    }

    static String hex(BinaryRowData r) {
        byte[] b = new byte[r.getSizeInBytes()];
        r.getSegments()[0].get(r.getOffset(), b, 0, b.length);
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    public static void main(String[] args) {
        String[] strs = {"", "a", "A", "Alice", "Bob", "Cary", "Mary", "flink", "abcdefg", "abcdefgh", "abcdefghi",
            "0123456789abcde", "0123456789abcdef", "0123456789abcdefg", "\u00e9", "\u65e5\u672c", "\u65e5\u672c\u8a9e",
            "\uD83D\uDE00", "a\uD83D\uDE00b", "Z\u00fcrich", "user-42", "hello world, this is a longer key of more than thirty-two bytes"};
        System.out.println("// String.hashCode");
        for (String s : strs) System.out.println("(" + rs(s) + ", " + s.hashCode() + "),");
        System.out.println("// Integer.hashCode");
        for (int v : new int[]{0, 1, -1, 42, Integer.MIN_VALUE, Integer.MAX_VALUE}) System.out.println("(" + v + ", " + Integer.hashCode(v) + "),");
        System.out.println("// Long.hashCode");
        for (long v : new long[]{0, 1, -1, 42, 4294967296L, -4294967296L, 1700000000000L, Long.MIN_VALUE, Long.MAX_VALUE, 0x123456789abcdefL})
            System.out.println("(" + v + ", " + Long.hashCode(v) + "),");
        System.out.println("// Double.hashCode");
        for (double v : new double[]{0.0, -0.0, 1.0, -1.0, 1.5, 0.1, 3.141592653589793, 1e300, -2.5e-300, Double.NaN, Double.MAX_VALUE, Double.MIN_VALUE, Double.POSITIVE_INFINITY})
            System.out.println("(" + rv(v).substring(2, rv(v).length() - 1) + ", " + Double.hashCode(v) + "),");
        System.out.println("// Boolean.hashCode");
        System.out.println("(true, " + Boolean.hashCode(true) + "), (false, " + Boolean.hashCode(false) + "),");

        List<Object[]> keys = new ArrayList<>();
        for (String s : strs) keys.add(new Object[]{s});
        for (int v : new int[]{0, 1, -1, 42, 1000, Integer.MIN_VALUE, Integer.MAX_VALUE}) keys.add(new Object[]{v});
        for (long v : new long[]{0, 1, -1, 42, 1700000000000L, Long.MIN_VALUE, Long.MAX_VALUE}) keys.add(new Object[]{v});
        for (double v : new double[]{0.0, -0.0, 1.5, -2.25, 1e300}) keys.add(new Object[]{v});
        keys.add(new Object[]{true}); keys.add(new Object[]{false});
        keys.add(new Object[]{null});
        keys.add(new Object[]{"Alice", 1});
        keys.add(new Object[]{1, "Alice"});
        keys.add(new Object[]{"Alice", "Bob"});
        keys.add(new Object[]{"a longer string #1", "another longer string #2"});
        keys.add(new Object[]{"short", "a longer string value"});
        keys.add(new Object[]{"a longer string value", "short"});
        keys.add(new Object[]{5L, null});
        keys.add(new Object[]{null, 5L});
        keys.add(new Object[]{null, null});
        keys.add(new Object[]{"x", null, 7});
        keys.add(new Object[]{1, 2L, "three", 4.0, true});
        keys.add(new Object[]{-7, -7L, "\u65e5\u672c\u8a9e\u65e5\u672c\u8a9e", false, null});
        Object[] wide = new Object[60];
        for (int i = 0; i < 60; i++) wide[i] = (i % 7 == 3) ? null : (Object) Integer.valueOf(i * 31);
        keys.add(wide);
        Object[] w56 = new Object[56];
        for (int i = 0; i < 56; i++) w56[i] = (i == 55) ? null : (Object) Long.valueOf(i);
        keys.add(w56);
        Object[] w57 = new Object[57];
        for (int i = 0; i < 57; i++) w57[i] = (i == 56) ? null : (Object) Long.valueOf(i);
        keys.add(w57);

        System.out.println("// BinaryRowData.hashCode of the key row (BinaryRowWriter, RowKind INSERT)");
        StringBuilder dbg = new StringBuilder();
        for (Object[] k : keys) {
            LogicalType[] types = new LogicalType[k.length];
            for (int i = 0; i < k.length; i++) types[i] = typeOf(k[i], new IntType());
            BinaryRowData a = viaWriter(k, types);
            Object[] internals = new Object[k.length];
            for (int i = 0; i < k.length; i++) internals[i] = internal(k[i]);
            BinaryRowData b = new RowDataSerializer(types).toBinaryRow(GenericRowData.of(internals)).copy();
            if (a.hashCode() != b.hashCode()) throw new RuntimeException("writer/serializer mismatch for " + Arrays.toString(k));
            // a null field's hash does not depend on its declared type
            for (int i = 0; i < k.length; i++) if (k[i] == null) {
                LogicalType[] t2 = types.clone(); t2[i] = new VarCharType(VarCharType.MAX_LENGTH);
                if (viaWriter(k, t2).hashCode() != a.hashCode()) throw new RuntimeException("null type dependence");
            }
            StringBuilder sb = new StringBuilder("(&[");
            for (int i = 0; i < k.length; i++) sb.append(i > 0 ? ", " : "").append(rv(k[i]));
            sb.append("], ").append(a.hashCode()).append("),");
            System.out.println(sb);
            dbg.append(a.hashCode()).append(' ').append(hex(a)).append('\n');
        }
        try { java.nio.file.Files.writeString(java.nio.file.Path.of("javahash_rows_hex.txt"), dbg.toString()); } catch (Exception e) { throw new RuntimeException(e); }
    }
}
