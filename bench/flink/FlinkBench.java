import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the reference workloads W1–W4 of BENCH-WORKLOADS.md on Apache Flink 2.3.0, in a local
 * MiniCluster in this JVM, and times them.
 *
 * <p>Events: the document's splitmix64 formulas (S = 42, 1000 keys, jitter 1000 ms), one
 * {@link DataGeneratorSource} per stream (L: s = 0, R: s = 1), bounded out-of-orderness 1 s
 * watermarks ({@code WatermarkStrategy.forBoundedOutOfOrderness}, emitted every
 * auto-watermark interval). Jobs:
 *
 * <ul>
 *   <li>W1: {@code L.keyBy(key).intervalJoin(R.keyBy(key)).between(-5 s, +5 s)} (both ends
 *       inclusive), emitting (l.id, r.id);
 *   <li>W2: {@code L.join(R).where(key).equalTo(key).window(TumblingEventTimeWindows.of(10 s))},
 *       emitting (l.id, r.id);
 *   <li>W3: Flink SQL {@code SELECT L.id, R.id FROM L LEFT JOIN R ON L.key = R.key AND L.rt
 *       BETWEEN R.rt - INTERVAL '5' SECOND AND R.rt + INTERVAL '5' SECOND}, the tables made with
 *       {@code fromDataStream}, {@code rt} the record timestamp as a TIMESTAMP_LTZ(3) rowtime
 *       attribute and {@code SOURCE_WATERMARK()} (the DataStream's watermarks), the result
 *       taken with {@code toDataStream};
 *   <li>W4: {@code L.keyBy(key).window(TumblingEventTimeWindows.of(10 s)).aggregate(count,
 *       window function adding the key and window start)}.
 * </ul>
 *
 * <p>Every job ends in a counting sink (a Sink V2 writer) that counts its inputs and sums the
 * document's order-independent checksum; each writer adds its totals to per-JVM sums when it
 * finishes, so the check holds at any parallelism. A run whose count or checksum differs from
 * the document's table (N = 10k, 100k, 1M, 5M) fails the program.
 *
 * <p>Flink defaults: hashmap state backend, auto-watermark interval 200 ms, buffer timeout
 * 100 ms (printed from the environment at start). One MiniCluster (1 TaskManager, p slots) is
 * started once; each job is built into a JobGraph, submitted and awaited. Time = the job's net
 * runtime as Flink reports it (JobResult.getNetRuntime: from job submission to its end, the
 * cluster start not included); the wall time from submission to the result and the process CPU
 * time are printed beside it.
 *
 * <p>Usage: {@code FlinkBench [--workloads W1,W2,W3,W4] [--n 1000000[,5000000]] [--p 1]
 * [--reps 3] [--warmup 1] [--idle-wait SECONDS [--idle-cores 0.3]]}: {@code --idle-wait} waits
 * before each timed run (at most that long) until the other processes of the machine use less
 * than {@code --idle-cores} cores; each run prints the cores the others used while it ran.
 */
public class FlinkBench {

    static final long SEED = 42;
    static final long KEYS = 1000;
    static final long JITTER = 1000;

    /** One event of the document (its stream is the source it comes from); ts in ms. */
    public static class Ev {
        public int key;
        public long id;
        public long ts;

        public Ev() {}

        public Ev(int key, long id, long ts) {
            this.key = key;
            this.id = id;
            this.ts = ts;
        }
    }

    static long splitmix64(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static Ev event(long i, long s) {
        long h = splitmix64((SEED << 32) + 2 * i + s);
        int key = (int) Long.remainderUnsigned(h >>> 32, KEYS);
        long ts = i + Long.remainderUnsigned(h & 0xFFFFFFFFL, JITTER);
        return new Ev(key, i, ts);
    }

    /** Event i of stream s, for DataGeneratorSource. */
    static final class Gen implements GeneratorFunction<Long, Ev> {
        final long s;

        Gen(long s) {
            this.s = s;
        }

        @Override
        public Ev map(Long i) {
            return event(i, s);
        }
    }

    static final class KeyOf implements KeySelector<Ev, Integer> {
        @Override
        public Integer getKey(Ev e) {
            return e.key;
        }
    }

    // ---- the counting sink ----

    static final AtomicLong COUNT = new AtomicLong();
    static final AtomicLong SUM = new AtomicLong();

    /** An output's term of the document's checksum. */
    interface Term<T> extends Serializable {
        long of(T t);
    }

    static final class CountingSink<T> implements Sink<T> {
        final Term<T> term;

        CountingSink(Term<T> term) {
            this.term = term;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<T>() {
                long count;
                long sum;
                boolean added;

                @Override
                public void write(T t, Context c) {
                    count++;
                    sum += term.of(t);
                }

                @Override
                public void flush(boolean endOfInput) {
                    if (endOfInput) {
                        add();
                    }
                }

                @Override
                public void close() {
                    add();
                }

                void add() {
                    if (!added) {
                        added = true;
                        COUNT.addAndGet(count);
                        SUM.addAndGet(sum);
                    }
                }
            };
        }
    }

    static final class PairTerm implements Term<Tuple2<Long, Long>> {
        @Override
        public long of(Tuple2<Long, Long> t) {
            return (t.f0 << 32) + t.f1;
        }
    }

    /** W3: (l.id, r.id), r.id null for a padded row. */
    static final class RowTerm implements Term<Row> {
        @Override
        public long of(Row r) {
            long l = (Long) r.getField(0);
            Object rid = r.getField(1);
            return (l << 32) + (rid == null ? 0xFFFFFFFFL : (Long) rid);
        }
    }

    /** W4: (key, window start, count). */
    static final class WindowTerm implements Term<Tuple3<Integer, Long, Long>> {
        @Override
        public long of(Tuple3<Integer, Long, Long> t) {
            return ((long) t.f0 << 48) + ((t.f1 / 10000) << 24) + t.f2;
        }
    }

    // ---- the jobs ----

    static final class IntervalPair extends ProcessJoinFunction<Ev, Ev, Tuple2<Long, Long>> {
        @Override
        public void processElement(Ev l, Ev r, Context ctx, Collector<Tuple2<Long, Long>> out) {
            out.collect(Tuple2.of(l.id, r.id));
        }
    }

    static final class WindowPair implements JoinFunction<Ev, Ev, Tuple2<Long, Long>> {
        @Override
        public Tuple2<Long, Long> join(Ev l, Ev r) {
            return Tuple2.of(l.id, r.id);
        }
    }

    static final class Count implements AggregateFunction<Ev, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Ev e, Long acc) {
            return acc + 1;
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    static final class WithWindow extends ProcessWindowFunction<Long, Tuple3<Integer, Long, Long>, Integer, TimeWindow> {
        @Override
        public void process(Integer key, Context ctx, Iterable<Long> counts, Collector<Tuple3<Integer, Long, Long>> out) {
            for (Long c : counts) {
                out.collect(Tuple3.of(key, ctx.window().getStart(), c));
            }
        }
    }

    static DataStream<Ev> source(StreamExecutionEnvironment env, long n, long s) {
        WatermarkStrategy<Ev> wm = WatermarkStrategy.<Ev>forBoundedOutOfOrderness(Duration.ofSeconds(1))
                .withTimestampAssigner((e, t) -> e.ts);
        return env.fromSource(new DataGeneratorSource<>(new Gen(s), n, TypeInformation.of(Ev.class)), wm, s == 0 ? "L" : "R");
    }

    static Configuration config() {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "hashmap"); // Flink's default, stated
        return conf;
    }

    /** Builds workload w's job for N events per stream at parallelism p. */
    static StreamExecutionEnvironment job(String w, long n, int p) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config());
        env.setParallelism(p);
        DataStream<Ev> l = source(env, n, 0);
        switch (w) {
            case "W1": {
                DataStream<Ev> r = source(env, n, 1);
                l.keyBy(new KeyOf())
                        .intervalJoin(r.keyBy(new KeyOf()))
                        .between(Duration.ofMillis(-5000), Duration.ofMillis(5000))
                        .process(new IntervalPair())
                        .sinkTo(new CountingSink<>(new PairTerm()))
                        .name("counting sink");
                break;
            }
            case "W2": {
                DataStream<Ev> r = source(env, n, 1);
                l.join(r)
                        .where(new KeyOf())
                        .equalTo(new KeyOf())
                        .window(TumblingEventTimeWindows.of(Duration.ofSeconds(10)))
                        .apply(new WindowPair())
                        .sinkTo(new CountingSink<>(new PairTerm()))
                        .name("counting sink");
                break;
            }
            case "W3": {
                DataStream<Ev> r = source(env, n, 1);
                StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
                for (Object[] t : new Object[][] {{"L", l}, {"R", r}}) {
                    @SuppressWarnings("unchecked")
                    DataStream<Ev> ds = (DataStream<Ev>) t[1];
                    tEnv.createTemporaryView((String) t[0], tEnv.fromDataStream(ds, Schema.newBuilder()
                            .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                            .watermark("rt", "SOURCE_WATERMARK()")
                            .build()));
                }
                Table result = tEnv.sqlQuery(
                        "SELECT L.id AS lid, R.id AS rid FROM L LEFT JOIN R ON L.`key` = R.`key` "
                                + "AND L.rt BETWEEN R.rt - INTERVAL '5' SECOND AND R.rt + INTERVAL '5' SECOND");
                tEnv.toDataStream(result).sinkTo(new CountingSink<>(new RowTerm())).name("counting sink");
                break;
            }
            case "W4":
                l.keyBy(new KeyOf())
                        .window(TumblingEventTimeWindows.of(Duration.ofSeconds(10)))
                        .aggregate(new Count(), new WithWindow())
                        .sinkTo(new CountingSink<>(new WindowTerm()))
                        .name("counting sink");
                break;
            default:
                throw new IllegalArgumentException("unknown workload " + w + " (W1, W2, W3, W4)");
        }
        return env;
    }

    // ---- the document's table ----

    static final long[] SIZES = {10_000L, 100_000L, 1_000_000L, 5_000_000L};
    /** Per size: W1 count, checksum, W2 …, W3 …, W4 …. */
    static final long[][] EXPECTED = {
        {74_800L, 0x1636b22016318c35L, 90_481L, 0x199e97d019bb95c2L, 74_809L, 0x1637555516318c2cL, 1_381L, 0x90d400017d002710L},
        {975_828L, 0x5ab076995ac3d173L, 989_708L, 0x8266a42982d1650dL, 975_851L, 0x5ac948995ac3d15cL, 10_374L, 0x10ec00be680186a0L},
        {9_975_361L, 0x5325c57c536b01f6L, 9_988_146L, 0xfdce91d60000c2e8L, 9_975_397L, 0x541dcb77536b01d2L, 100_391L, 0x34e34c21630f4240L},
        {49_979_988L, 0x121d65fa1153d3ffL, 49_985_756L, 0xe07b96b2e584ed5cL, 49_980_171L, 0x2d90c5721153d348L, 500_373L, 0xc17a72770e4c4b40L},
    };

    /** {count, checksum} of the document for (w, n), or null when n is not in its table. */
    static long[] expected(String w, long n) {
        int wi = w.charAt(1) - '1';
        for (int i = 0; i < SIZES.length; i++) {
            if (SIZES[i] == n) {
                return new long[] {EXPECTED[i][2 * wi], EXPECTED[i][2 * wi + 1]};
            }
        }
        return null;
    }

    // ---- running ----

    static final class Run {
        long count;
        long sum;
        long netMs;
        double wallS;
        double cpuS;
        /** CPU time of the other processes during the run, in cores (their CPU seconds / wall seconds). */
        double othersCores;
        String loadBefore;
        String loadAfter;
        String tasks;
    }

    static String loadavg() {
        try {
            String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "?";
        }
    }

    /** The machine's busy CPU time so far (all processes), in clock ticks; -1 if unknown. */
    static long machineBusyTicks() {
        try {
            String[] f = Files.readAllLines(Paths.get("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (Exception e) {
            return -1;
        }
    }

    /** Clock ticks per second of /proc/stat (USER_HZ), 100 on Linux unless told otherwise. */
    static final double TICKS = Double.parseDouble(System.getProperty("bench.user.hz", "100"));

    /**
     * Waits (at most maxWaitS seconds) until the other processes use less than maxCores cores
     * over 3 s (this JVM is idle between jobs, so the machine's busy time is theirs); returns
     * the seconds waited.
     */
    static double waitIdle(double maxCores, double maxWaitS) throws InterruptedException {
        long t0 = System.nanoTime();
        while (true) {
            long b0 = machineBusyTicks();
            long c0 = cpuNanos();
            Thread.sleep(3000);
            long b1 = machineBusyTicks();
            long c1 = cpuNanos();
            double others = ((b1 - b0) / TICKS - (c1 - c0) / 1e9) / 3.0;
            double waited = (System.nanoTime() - t0) / 1e9;
            if (b0 < 0 || others < maxCores || waited >= maxWaitS) {
                return waited;
            }
            System.out.printf(Locale.ROOT, "  (others use %.2f cores: waiting, %.0f s so far)%n", others, waited);
            Thread.sleep(7000);
        }
    }

    static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    static Run run(MiniCluster mc, String w, long n, int p) throws Exception {
        StreamGraph graph = job(w, n, p).getStreamGraph();
        graph.setJobName(w + " N=" + n + " p=" + p);
        JobGraph jg = graph.getJobGraph(FlinkBench.class.getClassLoader());
        COUNT.set(0);
        SUM.set(0);
        System.gc();
        Run r = new Run();
        StringBuilder tasks = new StringBuilder();
        for (var v : jg.getVertices()) {
            tasks.append(tasks.length() == 0 ? "" : " | ").append(v.getName()).append(" (p=").append(v.getParallelism()).append(')');
        }
        r.tasks = tasks.toString();
        r.loadBefore = loadavg();
        long b0 = machineBusyTicks();
        long c0 = cpuNanos();
        long t0 = System.nanoTime();
        mc.submitJob(jg).get();
        JobResult res = mc.requestJobResult(jg.getJobID()).get();
        long t1 = System.nanoTime();
        long c1 = cpuNanos();
        long b1 = machineBusyTicks();
        r.loadAfter = loadavg();
        JobExecutionResult jer = res.toJobExecutionResult(FlinkBench.class.getClassLoader()); // throws if the job failed
        r.netMs = jer.getNetRuntime();
        r.wallS = (t1 - t0) / 1e9;
        r.cpuS = (c1 - c0) / 1e9;
        r.othersCores = b0 < 0 || b1 < 0 ? Double.NaN : Math.max(0, (b1 - b0) / TICKS - r.cpuS) / r.wallS;
        r.count = COUNT.get();
        r.sum = SUM.get();
        return r;
    }

    static String rate(double eventsPerS) {
        if (eventsPerS >= 1e6) {
            return String.format(Locale.ROOT, "%.2f M/s", eventsPerS / 1e6);
        }
        return String.format(Locale.ROOT, "%.0f k/s", eventsPerS / 1e3);
    }

    /** Prints the options and exits with status 2. */
    static void usage() {
        System.err.println("usage: FlinkBench [--workloads W1,W2,W3,W4] [--n 1000000[,5000000]] [--p 1] [--reps 3] [--warmup 1] [--idle-wait SECONDS [--idle-cores 0.3]]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        List<String> workloads = List.of("W1", "W2", "W3", "W4");
        List<Long> sizes = List.of(1_000_000L);
        int p = 1;
        int reps = 3;
        int warmup = 1;
        double idleWaitS = 0;
        double idleCores = 0.3;
        // Every option takes a value.
        for (int i = 0; i < args.length; i += 2) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                usage();
            }
            switch (a) {
                case "--workloads":
                    workloads = List.of(v.toUpperCase(Locale.ROOT).split(","));
                    for (String w : workloads) {
                        if (!List.of("W1", "W2", "W3", "W4").contains(w)) {
                            System.err.println("FlinkBench: unknown workload " + w + " (W1, W2, W3, W4)");
                            System.exit(2);
                        }
                    }
                    break;
                case "--n":
                    List<Long> ns = new ArrayList<>();
                    for (String s : v.split(",")) {
                        ns.add(Long.parseLong(s.replace("_", "")));
                    }
                    sizes = ns;
                    break;
                case "--p":
                    p = Integer.parseInt(v);
                    break;
                case "--reps":
                    reps = Integer.parseInt(v);
                    break;
                case "--idle-wait":
                    idleWaitS = Double.parseDouble(v);
                    break;
                case "--idle-cores":
                    idleCores = Double.parseDouble(v);
                    break;
                case "--warmup":
                    warmup = Integer.parseInt(v);
                    break;
                default:
                    usage();
            }
        }

        // The generator against the document's first events.
        long[][] first = {{849, 971}, {507, 953}, {585, 145}, {818, 523}, {672, 404}, {718, 408}, {132, 876}, {838, 882}};
        for (int k = 0; k < first.length; k++) {
            Ev e = event(k % 4, k / 4);
            if (e.key != first[k][0] || e.ts != first[k][1]) {
                throw new IllegalStateException("generator: event " + (k % 4) + " of stream " + (k / 4) + " is key=" + e.key + " ts=" + e.ts);
            }
        }

        StreamExecutionEnvironment probe = StreamExecutionEnvironment.getExecutionEnvironment(config());
        System.out.println("# Apache Flink " + org.apache.flink.runtime.util.EnvironmentInformation.getVersion()
                + ", Java " + System.getProperty("java.version") + ", max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MB, "
                + Runtime.getRuntime().availableProcessors() + " CPUs; auto-watermark interval "
                + probe.getConfig().getAutoWatermarkInterval() + " ms, buffer timeout " + probe.getBufferTimeout()
                + " ms, state backend " + config().getString("state.backend.type", "?")
                + "; sources: DataGeneratorSource");

        long t0 = System.nanoTime();
        Configuration conf = config();
        conf.setString("rest.bind-port", "0"); // any free port: other programs may share the machine
        MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(p)
                .build());
        mc.start();
        System.out.printf(Locale.ROOT, "# MiniCluster started in %.2f s (not timed below)%n", (System.nanoTime() - t0) / 1e9);

        boolean allOk = true;
        List<String> rows = new ArrayList<>();
        for (long n : sizes) {
            for (String w : workloads) {
                long inputs = w.equals("W4") ? n : 2 * n;
                long[] exp = expected(w, n);
                Run best = null;
                StringBuilder all = new StringBuilder();
                boolean ok = true;
                for (int k = 0; k < warmup + reps; k++) {
                    boolean timed = k >= warmup;
                    if (timed && idleWaitS > 0) {
                        waitIdle(idleCores, idleWaitS);
                    }
                    Run r = run(mc, w, n, p);
                    boolean good = exp == null || (r.count == exp[0] && r.sum == exp[1]);
                    System.out.printf(Locale.ROOT, "%s N=%d p=%d %s %d: outputs %d checksum 0x%016x %s; net %.3f s (%s), wall %.3f s, CPU %.2f s, others' CPU %.2f cores; load %s -> %s%n",
                            w, n, p, timed ? "run" : "warm-up", timed ? k - warmup + 1 : k + 1, r.count, r.sum,
                            exp == null ? "(no reference)" : good ? "ok" : String.format(Locale.ROOT, "MISMATCH (expected %d 0x%016x)", exp[0], exp[1]),
                            r.netMs / 1e3, rate(inputs / (r.netMs / 1e3)), r.wallS, r.cpuS, r.othersCores, r.loadBefore, r.loadAfter);
                    ok &= good;
                    if (k == 0) {
                        System.out.println("  tasks: " + r.tasks);
                    }
                    if (timed) {
                        all.append(all.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.2f", r.netMs / 1e3));
                        if (best == null || r.netMs < best.netMs) {
                            best = r;
                        }
                    }
                }
                allOk &= ok;
                if (best != null) {
                    rows.add(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | 0x%016x | %s | %.2f s | %s | %.2f s | %.2f s | %.2f | %s | %s → %s |",
                            w, n, p, inputs, best.count, best.sum, exp == null ? "n/a" : ok ? "yes" : "NO",
                            best.netMs / 1e3, rate(inputs / (best.netMs / 1e3)), best.wallS, best.cpuS, best.othersCores, all, best.loadBefore, best.loadAfter));
                }
            }
        }
        mc.close();

        System.out.println();
        System.out.println("Best of " + reps + " timed run(s) after " + warmup + " warm-up run(s); time = net job runtime (JobResult.getNetRuntime), events/s = input events / that time.");
        System.out.println();
        System.out.println("| workload | N | p | input events | outputs | checksum | ok | job time | input events/s | wall (submit → result) | process CPU | others' CPU (cores) | all runs (s) | load avg (1/5/15 min) before → after |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
        if (!allOk) {
            System.err.println("FlinkBench: a count or checksum differs from BENCH-WORKLOADS.md");
            System.exit(1);
        }
        System.exit(0);
    }
}
