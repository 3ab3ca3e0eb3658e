import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import java.util.*;

/**
 * A real Flink 2.3.0 SQL regular join at parallelism 4: prints, per joined row, the index of the
 * subtask that produced it (the downstream map is forward-connected to the join). The subtask of a
 * join key must equal KeyGroupRangeAssignment of BinaryRowData(key).hashCode() at maxP 128, p 4.
 */
public class SqlJoinRouting {
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(4);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        String[] keys = {"Alice", "Bob", "Cary", "Mary", "flink", "", "a longer string value", "\u65e5\u672c\u8a9e", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"};
        StringBuilder l = new StringBuilder(), r = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            String k = keys[i].replace("'", "''");
            l.append(i > 0 ? ", " : "").append("('").append(k).append("', ").append(i).append(")");
            r.append(i > 0 ? ", " : "").append("('").append(k).append("', ").append(i * 10).append(")");
        }
        tEnv.executeSql("CREATE TEMPORARY VIEW L AS SELECT * FROM (VALUES " + l + ") AS t(k, v)");
        tEnv.executeSql("CREATE TEMPORARY VIEW R AS SELECT * FROM (VALUES " + r + ") AS t(k, w)");
        tEnv.executeSql("CREATE TEMPORARY VIEW LI AS SELECT * FROM (VALUES " + l.toString().replaceAll("'[^']*', (\\d+)", "$1, $1") + ") AS t(k, v)");
        Table strJoin = tEnv.sqlQuery("SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k");
        Table intJoin = tEnv.sqlQuery("SELECT a.k, a.v, b.v FROM LI a JOIN LI b ON a.k = b.k");
        Table twoJoin = tEnv.sqlQuery("SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k AND L.v * 10 = R.w");
        System.out.println(strJoin.explain());
        List<String> out = new ArrayList<>();
        for (Table t : new Table[]{strJoin, intJoin, twoJoin}) {
            DataStream<String> s = tEnv.toChangelogStream(t).map(new RichMapFunction<Row, String>() {
                public String map(Row row) {
                    return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + "\t" + row.getField(0) + "\t" + row.getField(1) + "\t" + getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
                }
            });
            try (var it = s.executeAndCollect()) { it.forEachRemaining(out::add); }
            out.add("----");
        }
        for (String o : out) System.out.println("ROW\t" + o);
    }
}
