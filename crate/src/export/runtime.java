    // =========================================================================================
    // Joinlab runtime: the pacer, the watermark generators and the output format.
    // The same text in every exported job; the job-specific part is above.
    // =========================================================================================

    /**
     * Deterministic replay of the scenario on a real, multi-threaded Flink.
     *
     * <p>One parallelism-1 source (the pacer, {@code fromSequence} + a blocking map) emits the
     * scenario's events in arrival order. Each stream takes its own events from it (a filter),
     * and {@code partitionCustom} sends each to the assigner subtask the scenario names. So
     * every assigner subtask is its own network channel into the operator, as in the scenario.
     * After each event the pacer blocks until the job has taken it in completely:
     * <ol>
     *   <li>the assigner subtask has run the watermark generator on it (a counter bumped at the
     *       end of {@code onEvent}: by then the record and any watermark it caused have been
     *       written to the network; buffer timeout 0 flushes each at once);</li>
     *   <li>the operator has dequeued the record: the sum of the operator's own
     *       {@code numRecordsIn} metrics (read in this JVM through a metric reporter) equals
     *       the number of rows sent;</li>
     *   <li>the operator has processed the watermark that event caused: a shadow copy of
     *       Flink's {@code StatusWatermarkValve} (and, for two-input operators,
     *       {@code IndexedCombinedWatermarkStatus}) is fed what every assigner subtask sent
     *       downstream (seen by a probe chained after it), and the pacer waits until every
     *       operator subtask's {@code currentOutputWatermark} metric reaches the watermark the
     *       shadow says the operator must now have (minus the SQL interval join's output
     *       delay). That metric is set after the operator fired its timers.</li>
     * </ol>
     * A watermark that does not move the operator's watermark cannot be observed, but it also
     * cannot matter: later elements of the same input gate queue behind it.
     * Periodic watermark emission runs on simulated processing time: the pacer sends a tick to
     * an assigner subtask at each processing time at which the scenario's periodic emit runs,
     * and the generator (Flink's own classes, {@code WatermarksWithIdleness} with a clock that
     * reads the tick's time) runs {@code onPeriodicEmit}. Ticks and {@code WM} rows are dropped
     * by the probe; they never reach the operator. A wait that takes longer than
     * {@code joinlab.wait.ms} (default 5000) prints a {@code JL|WARN} line and goes on.
     */
    public static final class Rt {
        static final int DATA = 0, WM = 1, TICK = 2;
        static final int ONE = 0, TWO = 1, UNION = 2, CHAINED = 3;

        static int N;
        static int[] EV_KIND, EV_STREAM, EV_ASG, EV_ROW;
        static long[] EV_VALUE;
        /** Simulated processing time of each event (with PACE_WALL_CLOCK: "@time" after it). */
        static long[] EV_AT;
        /** Results the engine has emitted after each event ("=n" after it; -1: unknown). */
        static long[] EV_EXPECT;
        static Row[][] ROWS;

        /**
         * Reads the rows and events: the ones above, or those of a data file
         * ({@code --data FILE}, written by {@code joinlab export --data}: the same texts, each
         * after a line {@code #stream N} or {@code #events}), so that one compiled job can replay
         * variants of its scenario (the conformance suite's shrinking).
         */
        static void init(String[] args) throws Exception {
            String[] rowText = ROW_TEXT.clone();
            String events = EVENTS;
            for (int i = 0; i + 1 < args.length; i++) {
                if (args[i].equals("--data")) {
                    StringBuilder cur = null;
                    StringBuilder[] streams = new StringBuilder[rowText.length];
                    StringBuilder ev = new StringBuilder();
                    for (String line : Files.readAllLines(Path.of(args[i + 1]))) {
                        if (line.startsWith("#stream ")) {
                            cur = streams[Integer.parseInt(line.substring(8).trim())] = new StringBuilder();
                        } else if (line.startsWith("#events")) {
                            cur = ev;
                        } else if (cur != null) {
                            cur.append(line).append('\n');
                        }
                    }
                    for (int s = 0; s < rowText.length; s++) {
                        rowText[s] = streams[s] == null ? "" : streams[s].toString();
                    }
                    events = ev.toString();
                }
            }
            String[] lines = events.strip().isEmpty() ? new String[0] : events.strip().split("\n");
            N = lines.length;
            EV_KIND = new int[N];
            EV_STREAM = new int[N];
            EV_ASG = new int[N];
            EV_ROW = new int[N];
            EV_VALUE = new long[N];
            EV_AT = new long[N];
            EV_EXPECT = new long[N];
            for (int i = 0; i < N; i++) {
                String[] f = lines[i].trim().split("\\s+");
                EV_KIND[i] = f[0].equals("R") ? DATA : f[0].equals("W") ? WM : TICK;
                EV_STREAM[i] = Integer.parseInt(f[1]);
                EV_ASG[i] = Integer.parseInt(f[2]);
                long v = Long.parseLong(f[3]);
                EV_VALUE[i] = v;
                EV_ROW[i] = EV_KIND[i] == DATA ? (int) v : -1;
                EV_AT[i] = 0L;
                EV_EXPECT[i] = -1L;
                for (int j = 4; j < f.length; j++) {
                    if (f[j].startsWith("@")) {
                        EV_AT[i] = Long.parseLong(f[j].substring(1));
                    } else if (f[j].startsWith("=")) {
                        EV_EXPECT[i] = Long.parseLong(f[j].substring(1));
                    }
                }
            }
            ROWS = new Row[STREAM_NAMES.length][];
            for (int s = 0; s < STREAM_NAMES.length; s++) {
                String text = rowText[s].strip();
                String[] rl = text.isEmpty() ? new String[0] : text.split("\n");
                ROWS[s] = new Row[rl.length];
                for (int i = 0; i < rl.length; i++) {
                    ROWS[s][i] = parseRow(rl[i].trim(), COLUMN_TYPES[s]);
                }
            }
            // Fresh shared state (the conformance runner may run this job several times).
            DONE.set(0);
            SENT.clear();
            OP_IN.clear();
            OP_WM.clear();
            LOCAL_IN.clear();
            LOCAL_OUT.clear();
            LOCAL_WM.clear();
            LOCAL_LATE.clear();
            LATE_DROPPED.clear();
            CURRENT = 0;
            OP_LATE.clear();
            FINISHED = false;
            OUT_COUNT.set(0);
            RELEASED = -1;
            paced = null;
        }

        // ---- state shared by the pacer and the job's tasks (all run in this JVM) ----
        static final AtomicLong DONE = new AtomicLong();
        static final ConcurrentLinkedQueue<long[]> SENT = new ConcurrentLinkedQueue<>();
        static final Map<Integer, Counter> OP_IN = new ConcurrentHashMap<>();
        static final Map<Integer, Gauge<?>> OP_WM = new ConcurrentHashMap<>();
        /**
         * The record counters of the operators before the shuffle into the watched one
         * (LOCAL_OPERATOR: a chained local aggregate, or the SESSION window TVF of each input),
         * by "operator name|subtask".
         */
        static final Map<String, Counter> LOCAL_IN = new ConcurrentHashMap<>();
        static final Map<String, Counter> LOCAL_OUT = new ConcurrentHashMap<>();
        /** Their output watermarks and late-record counters, by "operator name|subtask". */
        static final Map<String, Gauge<?>> LOCAL_WM = new ConcurrentHashMap<>();
        static final Map<String, Counter> LOCAL_LATE = new ConcurrentHashMap<>();
        /** The operator's numLateRecordsDropped (SQL window operators), per subtask. */
        static final Map<Integer, Counter> LATE_DROPPED = new ConcurrentHashMap<>();
        /** The pacer event being processed (its index; N after the last one). */
        static volatile int CURRENT;
        static volatile boolean FINISHED;
        /**
         * How many records one data row of a stream becomes before it reaches the operator (a
         * window TVF emits one copy per window); the pacer waits for that many.
         */
        static java.util.function.ToLongBiFunction<Integer, Row> ROW_WEIGHT = (s, r) -> 1;
        /**
         * The index of the event being taken in (N: the end of input). The pacer moves on only
         * once an event has been processed, so a result printed by a function chained to the
         * operator belongs to this event.
         */
        static volatile int CURRENT_EVENT;
        /** The operator's late-record counters ({@code ...NumLateRecordsDropped}), by "subtask|name". */
        static final Map<String, Counter> OP_LATE = new ConcurrentHashMap<>();
        /** Results printed so far, and the index of the event the pacer released last. */
        static final AtomicLong OUT_COUNT = new AtomicLong();
        static volatile int RELEASED = -1;
        static volatile long START_NS;
        static volatile long WALL_BASE_NS;
        static final long WAIT_MS = Long.getLong("joinlab.wait.ms", 5000L);
        /** A stream applied by the pacer instead of being sent (-1: none), and how. */
        static int SIDE_STREAM = -1;
        static java.util.function.IntConsumer SIDE_EVENT;
        /** A stream whose -U rows never reach the operator (the planner's DropUpdateBefore). */
        static int UB_DROPPED_STREAM = -1;

        // ---- environment ----
        static StreamExecutionEnvironment environment(String[] args) throws Exception {
            init(args);
            if (System.getProperties().get("joinlab.minicluster") != null) {
                // Run by conformance/java/JoinlabRunner on its shared MiniCluster: its metric
                // reporter hands this job's metrics to ours.
                System.getProperties().put("joinlab.reporter", new Reporter());
            } else {
                installReporter();
            }
            Configuration conf = new Configuration();
            conf.setString("state.backend.type", "hashmap");
            conf.setString("metrics.reporter.joinlab.factory.class", Reporter.class.getName());
            conf.setString("execution.runtime-mode", "STREAMING");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(PARALLELISM);
            if (MAX_PARALLELISM > 0) {
                env.setMaxParallelism(MAX_PARALLELISM);
            }
            env.setBufferTimeout(0);
            // Periodic emits are driven by the pacer's ticks (simulated processing time).
            env.getConfig().setAutoWatermarkInterval(0);
            return env;
        }

        static void installReporter() throws Exception {
            // Flink finds metric reporters with ServiceLoader on the context class loader.
            Path dir = Files.createTempDirectory("joinlab-reporter");
            Path svc = dir.resolve("META-INF/services/" + MetricReporterFactory.class.getName());
            Files.createDirectories(svc.getParent());
            Files.writeString(svc, Reporter.class.getName() + "\n");
            ClassLoader own = Rt.class.getClassLoader();
            Thread.currentThread().setContextClassLoader(new URLClassLoader(new URL[] {dir.toUri().toURL()}, own));
        }

        static DataStream<Long> paced;

        /** Stream {@code s} as rows with timestamps and watermarks, on its assigner subtasks. */
        static DataStream<Row> source(StreamExecutionEnvironment env, int s) {
            if (paced == null) {
                paced = env.fromSequence(0, N).setParallelism(1).name("pacer source")
                        .map(new Pacer()).setParallelism(1).name("pacer");
            }
            final int stream = s;
            RowTypeInfo data = (RowTypeInfo) rowType(s);
            TypeInformation<?>[] ct = new TypeInformation<?>[data.getArity() + 3];
            String[] cn = new String[ct.length];
            ct[0] = Types.INT;
            ct[1] = Types.INT;
            ct[2] = Types.LONG;
            cn[0] = "jl_kind";
            cn[1] = "jl_subtask";
            cn[2] = "jl_value";
            for (int i = 0; i < data.getArity(); i++) {
                ct[i + 3] = data.getTypeAt(i);
                cn[i + 3] = data.getFieldNames()[i];
            }
            RowTypeInfo control = new RowTypeInfo(ct, cn);
            return paced
                    .filter(i -> i < N && EV_STREAM[(int) (long) i] == stream).setParallelism(1)
                    .name("events of " + STREAM_NAMES[s])
                    .map(i -> controlRow((int) (long) i)).returns(control).setParallelism(1)
                    .name("rows of " + STREAM_NAMES[s])
                    .partitionCustom(new ToSubtask(), r -> (Integer) r.getField(1))
                    .assignTimestampsAndWatermarks(new Strategy(s)).setParallelism(PARALLELISM)
                    .name("assign timestamps: " + STREAM_NAMES[s])
                    .transform("probe: " + STREAM_NAMES[s], data, new Probe(s)).setParallelism(PARALLELISM);
        }

        static Row controlRow(int i) {
            int s = EV_STREAM[i];
            int arity = rowType(s).getArity();
            Row r = new Row(arity + 3);
            r.setField(0, EV_KIND[i]);
            r.setField(1, EV_ASG[i]);
            r.setField(2, EV_VALUE[i]);
            if (EV_KIND[i] == DATA) {
                Row d = ROWS[s][EV_ROW[i]];
                r.setKind(d.getKind());
                for (int c = 0; c < arity; c++) {
                    r.setField(c + 3, d.getField(c));
                }
            }
            return r;
        }

        static TypeInformation<Row> rowType(int s) {
            TypeInformation<?>[] t = new TypeInformation<?>[COLUMN_TYPES[s].length];
            for (int i = 0; i < t.length; i++) {
                switch (COLUMN_TYPES[s][i]) {
                    case "int": t[i] = Types.INT; break;
                    case "long": t[i] = Types.LONG; break;
                    case "double": t[i] = Types.DOUBLE; break;
                    case "boolean": t[i] = Types.BOOLEAN; break;
                    case "string": t[i] = Types.STRING; break;
                    default: t[i] = Types.BIG_DEC; // decimal(p,s); the view casts it to DECIMAL(p, s)
                }
            }
            return new RowTypeInfo(t, COLUMN_NAMES[s]);
        }

        static final class ToSubtask implements Partitioner<Integer> {
            @Override
            public int partition(Integer subtask, int n) {
                return subtask % n;
            }
        }

        /** Set once the job ran through {@code executeSql(query).collect()} (nothing left to run). */
        static volatile boolean COLLECTED;

        static void execute(StreamExecutionEnvironment env, String name) throws Exception {
            if (COLLECTED) {
                return;
            }
            long t0 = System.nanoTime();
            Object shared = System.getProperties().get("joinlab.minicluster");
            if (shared instanceof MiniCluster) {
                MiniCluster mc = (MiniCluster) shared;
                StreamGraph graph = env.getStreamGraph();
                graph.setJobName(name);
                JobGraph jg = graph.getJobGraph(Rt.class.getClassLoader());
                mc.submitJob(jg).get();
                if (!FINAL_WATERMARK) {
                    while (!FINISHED && !mc.getJobStatus(jg.getJobID()).get().isGloballyTerminalState()) {
                        Thread.sleep(2);
                    }
                    Thread.sleep(Long.getLong("joinlab.settle.ms", 300L));
                    mc.cancelJob(jg.getJobID()).get();
                }
                JobResult r = mc.requestJobResult(jg.getJobID()).get();
                if (FINAL_WATERMARK) {
                    r.toJobExecutionResult(Rt.class.getClassLoader());
                }
            } else if (FINAL_WATERMARK) {
                env.execute(name);
            } else {
                // No end of input: without the final Long.MAX_VALUE watermark the job would never
                // finish. Wait until every event has been taken in, then cancel the job.
                JobClient client = env.executeAsync(name);
                while (!FINISHED) {
                    if (client.getJobStatus().get().isGloballyTerminalState()) {
                        break;
                    }
                    Thread.sleep(2);
                }
                Thread.sleep(Long.getLong("joinlab.settle.ms", 300L));
                client.cancel().get();
                while (!client.getJobStatus().get().isGloballyTerminalState()) {
                    Thread.sleep(2);
                }
            }
            for (Map.Entry<Integer, Counter> e : LATE_DROPPED.entrySet()) {
                System.out.println("JL|LATEDROP|" + e.getKey() + "|" + e.getValue().getCount());
            }
            for (Map.Entry<String, Counter> e : new java.util.TreeMap<>(OP_LATE).entrySet()) {
                System.out.println("JL|LATECOUNT|" + e.getKey() + "|" + e.getValue().getCount());
            }
            // The SESSION window TVFs' numLateRecordsDropped, per input and subtask.
            for (Map.Entry<String, Counter> e : new java.util.TreeMap<>(LOCAL_LATE).entrySet()) {
                String[] k = e.getKey().split("\\|");
                String side = localInput(k[0]) == 0 ? "left" : "right";
                System.out.println("JL|LATECOUNT|" + k[1] + "|" + side + "TvfNumLateRecordsDropped|" + e.getValue().getCount());
            }
            System.out.println("JL|TIME|job|" + (System.nanoTime() - t0) / 1_000_000);
        }

        // ---- the pacer ----
        static final class Pacer extends RichMapFunction<Long, Long> {
            private transient Shadow shadow;
            private transient long rowsSent;

            @Override
            public Long map(Long index) throws Exception {
                int i = (int) (long) index;
                if (shadow == null) {
                    shadow = new Shadow();
                }
                if (i > 0) {
                    awaitEvent(i - 1);
                    if (EV_EXPECT[i - 1] >= 0) {
                        final long want = EV_EXPECT[i - 1];
                        waitFor(() -> OUT_COUNT.get() >= want, () -> "printed " + OUT_COUNT.get() + " of the " + want + " results expected after event " + (i - 1));
                    }
                }
                CURRENT_EVENT = i;
                RELEASED = i;
                if (i == 0) {
                    START_NS = System.nanoTime();
                }
                if (PACE_WALL_CLOCK && i == 1) {
                    // The first row is stamped when the operator has processed it, which on a
                    // fresh job can be long after its release: count from there.
                    WALL_BASE_NS = System.nanoTime();
                }
                if (PACE_WALL_CLOCK && i > 0 && i < N) {
                    // State TTL reads the wall clock: release the event at its processing time
                    // (real milliseconds after the first event was processed).
                    long due = WALL_BASE_NS + (EV_AT[i] - EV_AT[0]) * 1_000_000L;
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                    }
                }
                if (i < N && EV_STREAM[i] == SIDE_STREAM) {
                    // A stream the job does not read (a lookup join's dimension table): the
                    // pacer applies its rows itself, at their turn in the arrival order.
                    if (EV_KIND[i] == DATA) {
                        SIDE_EVENT.accept(EV_ROW[i]);
                    }
                    DONE.incrementAndGet();
                }
                CURRENT = i;
                if (i == N) {
                    System.out.println("JL|TIME|pacing|" + (System.nanoTime() - START_NS) / 1_000_000);
                    FINISHED = true;
                    if (!FINAL_WATERMARK) {
                        while (true) {
                            Thread.sleep(1000); // until the job is cancelled
                        }
                    }
                }
                return index;
            }

            private void awaitEvent(int i) throws Exception {
                waitFor(() -> DONE.get() >= i + 1, () -> "assigner " + EV_ASG[i] + " of " + STREAM_NAMES[EV_STREAM[i]] + " did not take event " + i);
                if (EV_STREAM[i] == SIDE_STREAM) {
                    return;
                }
                if (EV_KIND[i] == DATA && !(EV_STREAM[i] == UB_DROPPED_STREAM && ROWS[EV_STREAM[i]][EV_ROW[i]].getKind() == RowKind.UPDATE_BEFORE)) {
                    rowsSent += ROW_WEIGHT.applyAsLong(EV_STREAM[i], ROWS[EV_STREAM[i]][EV_ROW[i]]);
                }
                if (SHAPE == CHAINED) {
                    return; // the operator runs in the assigner's thread
                }
                waitFor(() -> OP_IN.size() >= OPERATOR_PARALLELISM && OP_WM.size() >= OPERATOR_PARALLELISM,
                        () -> "metrics of operator '" + OPERATOR_NAME + "' not found (have " + OP_IN.keySet() + ")");
                final long rows = rowsSent;
                if (LOCAL_OPERATOR.isEmpty()) {
                    waitFor(() -> recordsIn() >= rows, () -> "operator took " + recordsIn() + " of " + rows + " rows after event " + i);
                } else {
                    // The rows go into the local (pre-shuffle) operator; the keyed operator
                    // receives what the local ones send: wait for all of it.
                    waitFor(() -> LOCAL_IN.size() >= LOCAL_SUBTASKS && LOCAL_OUT.size() >= LOCAL_SUBTASKS,
                            () -> "metrics of operator '" + LOCAL_OPERATOR + "' not found (have " + LOCAL_IN.keySet() + ")");
                    waitFor(() -> sum(LOCAL_IN) >= rows, () -> "local operator took " + sum(LOCAL_IN) + " of " + rows + " rows after event " + i);
                    if (LOCAL_WATERMARKS) {
                        // A SESSION window TVF emits the sessions a watermark closes before it
                        // forwards that watermark: wait until each TVF subtask has taken in its
                        // input's watermark (the shadow valve's output for that input), so that
                        // what it emitted is counted below.
                        long[] e0;
                        while ((e0 = SENT.poll()) != null) {
                            shadow.feed(e0);
                        }
                        waitFor(() -> LOCAL_WM.size() >= LOCAL_SUBTASKS, () -> "watermark gauges of '" + LOCAL_OPERATOR + "' not found (have " + LOCAL_WM.keySet() + ")");
                        for (Map.Entry<String, Gauge<?>> g : LOCAL_WM.entrySet()) {
                            final long want = shadow.inputOut[localInput(g.getKey().split("\\|")[0])];
                            final Gauge<?> gauge = g.getValue();
                            if (want > Long.MIN_VALUE) {
                                waitFor(() -> gauge.getValue() instanceof Long && (Long) gauge.getValue() >= want,
                                        () -> "local operator " + g.getKey() + " watermark " + gauge.getValue() + " did not reach " + want + " after event " + i);
                            }
                        }
                    }
                    final long sent = sum(LOCAL_OUT);
                    waitFor(() -> recordsIn() >= sent, () -> "operator took " + recordsIn() + " of " + sent + " records of the local operator after event " + i);
                }
                long[] e;
                while ((e = SENT.poll()) != null) {
                    shadow.feed(e);
                }
                if (PACE_WATERMARKS && shadow.expected > Long.MIN_VALUE) {
                    final long want = shadow.expected == Long.MAX_VALUE ? Long.MAX_VALUE : shadow.expected - OUTPUT_WATERMARK_DELAY;
                    waitFor(() -> minOutputWatermark() >= want, () -> "operator watermark " + minOutputWatermark() + " did not reach " + want + " after event " + i);
                }
            }
        }

        static <K> long sum(Map<K, Counter> m) {
            long n = 0;
            for (Counter c : m.values()) {
                n += c.getCount();
            }
            return n;
        }

        /**
         * Which input a local operator (one per input: the SESSION window TVFs) reads: the
         * planner numbers its nodes in plan order, the left input's first, so the operator with
         * the lower number (`WindowTableFunction[3]` before `WindowTableFunction[9]`) is the
         * left input's.
         */
        static int localInput(String op) {
            java.util.TreeSet<Long> ids = new java.util.TreeSet<>();
            for (String k : LOCAL_IN.keySet()) {
                ids.add(nodeId(k.split("\\|")[0]));
            }
            return ids.isEmpty() || nodeId(op) == ids.first() ? 0 : 1;
        }

        static long nodeId(String op) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[(\\d+)\\]").matcher(op);
            return m.find() ? Long.parseLong(m.group(1)) : op.hashCode();
        }

        static long recordsIn() {
            long n = 0;
            for (Counter c : OP_IN.values()) {
                n += c.getCount();
            }
            return n;
        }

        static long minOutputWatermark() {
            long m = Long.MAX_VALUE;
            for (Gauge<?> g : OP_WM.values()) {
                Object v = g.getValue();
                m = Math.min(m, v instanceof Long ? (Long) v : Long.MIN_VALUE);
            }
            return m;
        }

        interface Cond {
            boolean ok();
        }

        interface Msg {
            String get();
        }

        static void waitFor(Cond c, Msg m) throws InterruptedException {
            if (c.ok()) {
                return;
            }
            long start = System.nanoTime();
            int spins = 0;
            while (!c.ok()) {
                if (++spins < 200) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(20_000);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (System.nanoTime() - start > WAIT_MS * 1_000_000L) {
                    System.out.println("JL|WARN|pacer|" + m.get());
                    return;
                }
            }
        }

        /** What the operator's watermark must be, computed by Flink's own valve classes. */
        static final class Shadow {
            final StatusWatermarkValve[] valves;
            final IndexedCombinedWatermarkStatus combined = IndexedCombinedWatermarkStatus.forInputsCount(2);
            final Map<Long, Boolean> announcedIdle = new HashMap<>();
            long expected = Long.MIN_VALUE;
            /** The last watermark each input's valve emitted. */
            final long[] inputOut = {Long.MIN_VALUE, Long.MIN_VALUE};

            Shadow() {
                int inputs = SHAPE == TWO ? 2 : 1;
                int channels = SHAPE == UNION ? 2 * PARALLELISM : PARALLELISM;
                valves = new StatusWatermarkValve[inputs];
                for (int i = 0; i < inputs; i++) {
                    valves[i] = new StatusWatermarkValve(channels);
                }
            }

            /** e = {stream, assigner subtask, 0 watermark / 1 idle / 2 active, value}. */
            void feed(long[] e) throws Exception {
                int s = (int) e[0];
                int a = (int) e[1];
                long key = s * 1000L + a;
                boolean idle = announcedIdle.getOrDefault(key, false);
                // RecordWriterOutput: watermarks are dropped while the announced status is idle;
                // a status goes out only when it changes.
                if (e[2] == 0 && idle) {
                    return;
                }
                if (e[2] != 0 && (e[2] == 1) == idle) {
                    return;
                }
                if (e[2] != 0) {
                    announcedIdle.put(key, e[2] == 1);
                }
                int input = SHAPE == TWO ? s : 0;
                int channel = SHAPE == UNION ? s * PARALLELISM + a : a;
                DataOutput<Object> out = new DataOutput<Object>() {
                    @Override
                    public void emitRecord(StreamRecord<Object> r) {}

                    @Override
                    public void emitWatermark(Watermark w) {
                        inputOut[input] = w.getTimestamp();
                        if (SHAPE == TWO) {
                            if (combined.updateWatermark(input, w.getTimestamp())) {
                                expected = combined.getCombinedWatermark();
                            }
                        } else {
                            expected = w.getTimestamp();
                        }
                    }

                    @Override
                    public void emitWatermarkStatus(WatermarkStatus st) {
                        if (SHAPE == TWO && combined.updateStatus(input, st.isIdle())) {
                            expected = combined.getCombinedWatermark();
                        }
                    }

                    @Override
                    public void emitLatencyMarker(LatencyMarker m) {}

                    @Override
                    public void emitRecordAttributes(RecordAttributes r) {}

                    @Override
                    public void emitWatermark(WatermarkEvent w) {}
                };
                if (e[2] == 0) {
                    valves[input].inputWatermark(new Watermark(e[3]), channel, out);
                } else {
                    valves[input].inputWatermarkStatus(e[2] == 1 ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE, channel, out);
                }
            }
        }

        /** Finds the operator's metrics (in this JVM) for the pacer. */
        public static final class Reporter implements MetricReporter, MetricReporterFactory {
            @Override
            public MetricReporter createMetricReporter(Properties p) {
                return new Reporter();
            }

            @Override
            public void open(MetricConfig config) {}

            @Override
            public void close() {}

            @Override
            public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
                Map<String, String> v = group.getAllVariables();
                String op = v.get("<operator_name>");
                String sub = v.get("<subtask_index>");
                if (op != null && sub != null && !LOCAL_OPERATOR.isEmpty() && op.startsWith(LOCAL_OPERATOR)) {
                    String k = op + "|" + sub;
                    if (name.equals("numRecordsIn") && metric instanceof Counter) {
                        LOCAL_IN.put(k, (Counter) metric);
                    } else if (name.equals("numRecordsOut") && metric instanceof Counter) {
                        LOCAL_OUT.put(k, (Counter) metric);
                    } else if (name.equals("currentOutputWatermark") && metric instanceof Gauge) {
                        LOCAL_WM.put(k, (Gauge<?>) metric);
                    } else if (name.equals("numLateRecordsDropped") && metric instanceof Counter && LOCAL_WATERMARKS) {
                        LOCAL_LATE.put(k, (Counter) metric);
                    }
                    return;
                }
                if (op == null || sub == null || !op.startsWith(OPERATOR_NAME)) {
                    return;
                }
                if (name.equals("numLateRecordsDropped") && metric instanceof Counter) {
                    LATE_DROPPED.put(Integer.parseInt(sub), (Counter) metric);
                } else if (name.equals("numRecordsIn") && metric instanceof Counter) {
                    OP_IN.put(Integer.parseInt(sub), (Counter) metric);
                } else if (name.endsWith("NumLateRecordsDropped") && metric instanceof Counter) {
                    OP_LATE.put(sub + "|" + name, (Counter) metric);
                } else if (name.equals("currentOutputWatermark") && metric instanceof Gauge) {
                    OP_WM.put(Integer.parseInt(sub), (Gauge<?>) metric);
                }
            }

            @Override
            public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
        }

        // ---- watermark generation ----

        /** The scenario's watermark strategy for stream {@code s}, with Flink's generators. */
        static final class Strategy implements WatermarkStrategy<Row> {
            final int s;

            Strategy(int s) {
                this.s = s;
            }

            @Override
            public TimestampAssigner<Row> createTimestampAssigner(TimestampAssignerSupplier.Context ctx) {
                final int tc = TIME_COLUMN[s];
                return (r, previous) -> {
                    if ((Integer) r.getField(0) != DATA || tc < 0) {
                        return Long.MIN_VALUE;
                    }
                    return (Long) r.getField(tc + 3);
                };
            }

            @Override
            public WatermarkGenerator<Row> createWatermarkGenerator(WatermarkGeneratorSupplier.Context ctx) {
                return new Paced(s);
            }
        }

        /** Receives the pacer's events on one assigner subtask. */
        static final class Paced implements WatermarkGenerator<Row> {
            final int s;
            long now; // simulated processing time (ms) of the last tick
            final WatermarkGenerator<Row> inner;

            Paced(int s) {
                this.s = s;
                String strategy = WM_STRATEGY[s];
                long delay = WM_DELAY[s];
                WatermarkGenerator<Row> base;
                switch (strategy) {
                    case "bounded": base = new BoundedOutOfOrdernessWatermarks<>(Duration.ofMillis(delay)); break;
                    case "monotonous": base = new AscendingTimestampsWatermarks<>(); break;
                    case "legacy": base = new LegacyBounded(delay); break;
                    default: base = null; // punctuated / none: only WM rows
                }
                WatermarkGenerator<Row> g = new Emitting(base, WM_PER_EVENT[s], TIME_COLUMN[s] >= 0);
                if (WM_IDLE_TIMEOUT[s] > 0) {
                    // Flink's own idleness detection, on a clock that reads the simulated
                    // processing time (offset so that it is never 0, like a real clock).
                    RelativeClock clock = new RelativeClock() {
                        @Override
                        public long relativeTimeMillis() {
                            return now + 1_000_000_000_000L;
                        }

                        @Override
                        public long relativeTimeNanos() {
                            return (now + 1_000_000_000_000L) * 1_000_000L;
                        }
                    };
                    g = new WatermarksWithIdleness<>(g, Duration.ofMillis(WM_IDLE_TIMEOUT[s]), clock);
                }
                inner = g;
            }

            @Override
            public void onEvent(Row r, long ts, WatermarkOutput out) {
                int kind = (Integer) r.getField(0);
                if (kind == TICK) {
                    now = (Long) r.getField(2);
                    inner.onPeriodicEmit(out);
                } else {
                    inner.onEvent(r, ts, out);
                }
                DONE.incrementAndGet();
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput out) {
                inner.onPeriodicEmit(out); // only the final call from finish()
            }
        }

        /** A WM row emits its watermark; rows go to the strategy's generator, which emits after
         * every event when the scenario asks for per-event emission. */
        static final class Emitting implements WatermarkGenerator<Row> {
            final WatermarkGenerator<Row> base;
            final boolean perEvent;
            final boolean hasTime;

            Emitting(WatermarkGenerator<Row> base, boolean perEvent, boolean hasTime) {
                this.base = base;
                this.perEvent = perEvent;
                this.hasTime = hasTime;
            }

            @Override
            public void onEvent(Row r, long ts, WatermarkOutput out) {
                if ((Integer) r.getField(0) == WM) {
                    out.emitWatermark(new org.apache.flink.api.common.eventtime.Watermark((Long) r.getField(2)));
                    return;
                }
                if (base != null && hasTime) {
                    base.onEvent(r, ts, out);
                    if (perEvent) {
                        base.onPeriodicEmit(out);
                    }
                }
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput out) {
                if (base != null) {
                    base.onPeriodicEmit(out);
                }
            }
        }

        /** The legacy BoundedOutOfOrdernessTimestampExtractor: watermark = maxTs - delay. */
        static final class LegacyBounded implements WatermarkGenerator<Row> {
            final long delay;
            long maxTs;

            LegacyBounded(long delay) {
                this.delay = delay;
                this.maxTs = Long.MIN_VALUE + delay;
            }

            @Override
            public void onEvent(Row r, long ts, WatermarkOutput out) {
                maxTs = Math.max(maxTs, ts);
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput out) {
                out.emitWatermark(new org.apache.flink.api.common.eventtime.Watermark(maxTs - delay));
            }
        }

        /** Chained after an assigner: drops ticks and WM rows, strips the control fields, and
         * tells the pacer what the assigner subtask sent downstream. */
        static final class Probe extends AbstractStreamOperator<Row> implements OneInputStreamOperator<Row, Row> {
            final int s;

            Probe(int s) {
                this.s = s;
            }

            int subtask() {
                return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            }

            @Override
            public void processElement(StreamRecord<Row> e) {
                Row r = e.getValue();
                if ((Integer) r.getField(0) != DATA) {
                    return;
                }
                Row d = new Row(r.getKind(), r.getArity() - 3);
                for (int i = 0; i < d.getArity(); i++) {
                    d.setField(i, r.getField(i + 3));
                }
                output.collect(e.replace(d));
            }

            @Override
            public void processWatermark(Watermark mark) throws Exception {
                SENT.add(new long[] {s, subtask(), 0, mark.getTimestamp()});
                super.processWatermark(mark);
            }

            @Override
            public void processWatermarkStatus(WatermarkStatus status) throws Exception {
                SENT.add(new long[] {s, subtask(), status.isIdle() ? 1 : 2, 0});
                super.processWatermarkStatus(status);
            }
        }

        // ---- output: one line per result, parsed by conformance/compare.py ----

        static int subtask(RuntimeContext ctx) {
            return ctx.getTaskInfo().getIndexOfThisSubtask();
        }

        static String ts(long t) {
            return t == Long.MIN_VALUE ? "-" : Long.toString(t);
        }

        static String json(Row r) {
            if (r == null) {
                return "null";
            }
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < r.getArity(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                b.append(json(r.getField(i)));
            }
            return b.append(']').toString();
        }

        static String json(Object v) {
            if (v == null) {
                return "null";
            }
            if (v instanceof String) {
                StringBuilder b = new StringBuilder("\"");
                for (char c : ((String) v).toCharArray()) {
                    if (c == '"' || c == '\\') {
                        b.append('\\').append(c);
                    } else if (c < 0x20 || c == '|') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
                return b.append('"').toString();
            }
            if (v instanceof java.math.BigDecimal) {
                return ((java.math.BigDecimal) v).toPlainString(); // DecimalData.toString's form
            }
            return v.toString();
        }

        /** Prints each line on the subtask that produced it (chained to the operator). */
        static final class Print implements Sink<String> {
            @Override
            public SinkWriter<String> createWriter(WriterInitContext context) {
                return new SinkWriter<String>() {
                    @Override
                    public void write(String line, Context c) {
                        System.out.println(line);
                        if (line.startsWith("JL|OUT|")) {
                            OUT_COUNT.incrementAndGet();
                        }
                    }

                    @Override
                    public void flush(boolean endOfInput) {
                        System.out.flush();
                    }

                    @Override
                    public void close() {}
                };
            }
        }

        // ---- reading the rows ----

        static Row parseRow(String line, String[] types) {
            List<Object> vals = new ArrayList<>();
            int[] pos = {0};
            RowKind kind = RowKind.INSERT;
            if (line.startsWith("-U ") || line.startsWith("+U ") || line.startsWith("-D ") || line.startsWith("+I ")) {
                String k = line.substring(0, 2);
                for (RowKind rk : RowKind.values()) {
                    if (rk.shortString().equals(k)) {
                        kind = rk;
                    }
                }
                pos[0] = 3;
            }
            expect(line, pos, '[');
            int c = 0;
            skip(line, pos);
            if (line.charAt(pos[0]) == ']') {
                pos[0]++;
            } else {
                while (true) {
                    vals.add(value(line, pos, types[c++]));
                    skip(line, pos);
                    char ch = line.charAt(pos[0]++);
                    if (ch == ']') {
                        break;
                    }
                    if (ch != ',') {
                        throw new IllegalArgumentException("bad row: " + line);
                    }
                }
            }
            Row r = Row.withPositions(kind, vals.size());
            for (int i = 0; i < vals.size(); i++) {
                r.setField(i, vals.get(i));
            }
            return r;
        }

        static void skip(String s, int[] p) {
            while (p[0] < s.length() && s.charAt(p[0]) == ' ') {
                p[0]++;
            }
        }

        static void expect(String s, int[] p, char c) {
            skip(s, p);
            if (s.charAt(p[0]) != c) {
                throw new IllegalArgumentException("expected " + c + " in " + s);
            }
            p[0]++;
        }

        static Object value(String s, int[] p, String type) {
            skip(s, p);
            if (s.startsWith("null", p[0])) {
                p[0] += 4;
                return null;
            }
            if (s.charAt(p[0]) == '"') {
                StringBuilder b = new StringBuilder();
                p[0]++;
                while (true) {
                    char ch = s.charAt(p[0]++);
                    if (ch == '"') {
                        break;
                    }
                    if (ch == '\\') {
                        char e = s.charAt(p[0]++);
                        switch (e) {
                            case 'n': b.append('\n'); break;
                            case 't': b.append('\t'); break;
                            case 'r': b.append('\r'); break;
                            case 'b': b.append('\b'); break;
                            case 'f': b.append('\f'); break;
                            case 'u': b.append((char) Integer.parseInt(s.substring(p[0], p[0] + 4), 16)); p[0] += 4; break;
                            default: b.append(e);
                        }
                    } else {
                        b.append(ch);
                    }
                }
                return b.toString();
            }
            int start = p[0];
            while (p[0] < s.length() && ",] ".indexOf(s.charAt(p[0])) < 0) {
                p[0]++;
            }
            String t = s.substring(start, p[0]);
            switch (type) {
                case "int": return Integer.valueOf(t);
                case "long": return Long.valueOf(t);
                case "double": return Double.valueOf(t);
                case "boolean": return Boolean.valueOf(t);
                case "string": return t;
                default: return new java.math.BigDecimal(t); // decimal(p,s)
            }
        }
    }
