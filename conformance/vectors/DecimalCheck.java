import org.apache.flink.table.data.*;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.*;
import java.math.BigDecimal;

/**
 * Prints test vectors for joinlab's DECIMAL(p,s) (value.rs, javahash.rs) with real Flink 2.3.0
 * classes: DecimalData.toString, and BinaryRowData.hashCode / bytes of key rows holding
 * decimals, written as the planner's generated projection writes them (BinaryRowWriter.reset,
 * writeDecimal per field, or for a NULL: setNullAt when the precision is compact (<= 18) and
 * writeDecimal(i, null, p) otherwise, as CodeGenUtils.binaryWriterWriteNull does; complete).
 * Each key is also written through RowDataSerializer.toBinaryRow(GenericRowData) as a cross-check.
 */
public class DecimalCheck {
    static BinaryRowData viaWriter(Object[] key, int[][] ps) {
        BinaryRowData row = new BinaryRowData(key.length);
        BinaryRowWriter w = new BinaryRowWriter(row);
        w.reset();
        for (int i = 0; i < key.length; i++) {
            int p = ps[i][0], s = ps[i][1];
            Object v = key[i];
            if (p == 0) { // INT field
                if (v == null) w.setNullAt(i); else w.writeInt(i, (Integer) v);
                continue;
            }
            if (v == null) {
                if (DecimalData.isCompact(p)) w.setNullAt(i); else w.writeDecimal(i, null, p);
            } else {
                w.writeDecimal(i, DecimalData.fromBigDecimal(new BigDecimal((String) v), p, s), p);
            }
        }
        w.complete();
        return row.copy();
    }
    static BinaryRowData viaSerializer(Object[] key, int[][] ps) {
        LogicalType[] types = new LogicalType[key.length];
        Object[] vals = new Object[key.length];
        for (int i = 0; i < key.length; i++) {
            int p = ps[i][0], s = ps[i][1];
            types[i] = p == 0 ? new IntType() : new DecimalType(p, s);
            vals[i] = key[i] == null || p == 0 ? key[i] : DecimalData.fromBigDecimal(new BigDecimal((String) key[i]), p, s);
        }
        return new RowDataSerializer(types).toBinaryRow(GenericRowData.of(vals)).copy();
    }
    static String hex(BinaryRowData r) {
        byte[] b = new byte[r.getSizeInBytes()];
        r.getSegments()[0].get(r.getOffset(), b, 0, b.length);
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }
    static void key(Object[] key, int[][] ps) {
        BinaryRowData a = viaWriter(key, ps), b = viaSerializer(key, ps);
        boolean wideNull = false;
        for (int i = 0; i < key.length; i++) wideNull |= key[i] == null && ps[i][0] > 18;
        // RowDataSerializer.toBinaryRow sets only the null bit of a wide NULL decimal; the
        // generated projection (binaryWriterWriteNull) also reserves its 16 bytes: they differ.
        if (a.hashCode() != b.hashCode() && !wideNull) throw new RuntimeException("writer/serializer mismatch");
        StringBuilder sb = new StringBuilder("KEY");
        for (int i = 0; i < key.length; i++) sb.append(" ").append(key[i]).append(":").append(ps[i][0]).append(",").append(ps[i][1]);
        System.out.println(sb + " => " + a.hashCode() + " " + hex(a));
    }
    public static void main(String[] args) {
        String[][] texts = {{"1.5", "10", "2"}, {"0", "5", "3"}, {"-0.5", "4", "3"}, {"1", "38", "18"}, {"0.0000001", "20", "10"},
            {"123456789012345678901234567890.12345678", "38", "8"}, {"-1", "19", "0"}};
        for (String[] t : texts) {
            DecimalData d = DecimalData.fromBigDecimal(new BigDecimal(t[0]), Integer.parseInt(t[1]), Integer.parseInt(t[2]));
            System.out.println("TEXT " + t[0] + " " + t[1] + "," + t[2] + " => " + d);
        }
        String[][] ks = {
            {"1.50", "10", "2"}, {"-1.50", "10", "2"}, {"0.00", "10", "2"}, {"12.34", "4", "2"},
            {"999999999999999999", "18", "0"}, {"-999999999999999999", "18", "0"},
            {"1.50", "19", "2"}, {"-1.50", "19", "2"}, {"0", "19", "0"}, {"127", "20", "0"}, {"128", "20", "0"}, {"-128", "20", "0"}, {"-129", "20", "0"},
            {"9999999999999999999", "19", "0"}, {"-9999999999999999999", "19", "0"},
            {"12345678901234567890123456789012.345678", "38", "6"}, {"-99999999999999999999999999999999999999", "38", "0"},
            {"99999999999999999999999999999999999999", "38", "0"}, {"1.000000000000000000", "38", "18"},
        };
        for (String[] k : ks) key(new Object[]{k[0]}, new int[][]{{Integer.parseInt(k[1]), Integer.parseInt(k[2])}});
        key(new Object[]{null}, new int[][]{{10, 2}});
        key(new Object[]{null}, new int[][]{{19, 2}});
        key(new Object[]{null}, new int[][]{{38, 18}});
        key(new Object[]{"1.50", 7}, new int[][]{{38, 2}, {0, 0}});
        key(new Object[]{null, "2.5", null}, new int[][]{{20, 1}, {32, 1}, {5, 1}});
        key(new Object[]{"3.25", "-7.125", 42}, new int[][]{{10, 2}, {38, 3}, {0, 0}});
    }
}
