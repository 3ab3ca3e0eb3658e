import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import java.util.*;

/**
 * A real Flink 2.3.0 SQL LEFT JOIN on a DECIMAL key at parallelism 4 (max parallelism 128):
 * prints, per result row, the index of the subtask that produced it (the map is
 * forward-connected to the join), for a compact key type DECIMAL(10, 2) and a wide one
 * DECIMAL(20, 3), each with a NULL key (which a LEFT JOIN still routes and emits, padded).
 * joinlab's javahash.rs must route each key to the same subtask.
 */
public class DecimalJoinRouting {
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(4);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        String[] keys = {"1.50", "2.25", "-3.10", "10.00", "0.01", "123.45", "-0.50", "99999999.99", "7.00", "42.42", "0", "-1", null};
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            String k = keys[i] == null ? "CAST(NULL AS VARCHAR)" : "'" + keys[i] + "'";
            l.append(i > 0 ? ", " : "").append("(").append(k).append(", ").append(i).append(")");
        }
        List<String> out = new ArrayList<>();
        for (String ty : new String[]{"DECIMAL(10, 2)", "DECIMAL(20, 3)"}) {
            String v = "SELECT CAST(k AS " + ty + ") AS k, v FROM (VALUES " + l + ") AS t(k, v)";
            Table join = tEnv.sqlQuery("SELECT a.k, a.v, b.v FROM (" + v + ") a LEFT JOIN (" + v + ") b ON a.k = b.k");
            DataStream<String> s = tEnv.toChangelogStream(join).map(new RichMapFunction<Row, String>() {
                public String map(Row row) {
                    return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + "\t" + row.getField(0) + "\t" + row.getField(1);
                }
            });
            try (var it = s.executeAndCollect()) { it.forEachRemaining(x -> out.add(ty + "\t" + x)); }
        }
        for (String o : out) System.out.println("ROW\t" + o);
    }
}
