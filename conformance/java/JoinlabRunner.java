import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;

/**
 * Runs many exported Joinlab jobs in one JVM on one shared MiniCluster, so that JVM start and
 * cluster start (several seconds) are paid once.
 *
 * <p>Usage: {@code java ... JoinlabRunner OUT_DIR JOB...} where a JOB is {@code CLASS} or
 * {@code NAME=CLASS} or {@code NAME=CLASS:DATAFILE} (the job replays the data file's rows and
 * events, see {@code joinlab export --data}): runs each job's {@code main} in turn with
 * {@code System.out} sent to {@code OUT_DIR/NAME.out}, and prints one line per job
 * ({@code NAME ok|error|timeout MILLIS}). An exported job notices the shared cluster (system
 * property object {@code joinlab.minicluster}), submits its JobGraph there, and registers its
 * own metric reporter as {@code joinlab.reporter}, to which the cluster's reporter (below)
 * forwards every metric — so each job's pacer sees its own operator's metrics.
 */
public class JoinlabRunner {

    /** The shared cluster's metric reporter: forwards to the current job's reporter. */
    public static final class Forward implements MetricReporter, MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties p) {
            return new Forward();
        }

        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
            Object target = System.getProperties().get("joinlab.reporter");
            if (target instanceof MetricReporter) {
                ((MetricReporter) target).notifyOfAddedMetric(metric, name, group);
            }
        }

        @Override
        public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
    }

    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args[0]);
        Files.createDirectories(out);
        long timeoutMs = Long.getLong("joinlab.job.timeout.ms", 120_000L);
        long t0 = System.nanoTime();

        Path dir = Files.createTempDirectory("joinlab-runner");
        Path svc = dir.resolve("META-INF/services/" + MetricReporterFactory.class.getName());
        Files.createDirectories(svc.getParent());
        Files.writeString(svc, Forward.class.getName() + "\n");
        Thread.currentThread().setContextClassLoader(new URLClassLoader(new URL[] {dir.toUri().toURL()}, JoinlabRunner.class.getClassLoader()));

        Configuration conf = new Configuration();
        conf.setString("metrics.reporter.joinlab.factory.class", Forward.class.getName());
        conf.setString("state.backend.type", "hashmap");
        // Any free port for the REST endpoint: several runners may share the machine.
        conf.setString("rest.bind-port", System.getProperty("joinlab.rest.port", "0"));
        MiniClusterConfiguration mcc = new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(Integer.getInteger("joinlab.slots", 8))
                .build();
        MiniCluster mc = new MiniCluster(mcc);
        mc.start();
        System.getProperties().put("joinlab.minicluster", mc);
        PrintStream console = System.out;
        console.println("JL|CLUSTER|started|" + (System.nanoTime() - t0) / 1_000_000);

        for (int i = 1; i < args.length; i++) {
            String spec = args[i];
            String name = spec.contains("=") ? spec.substring(0, spec.indexOf('=')) : spec;
            String rest = spec.contains("=") ? spec.substring(spec.indexOf('=') + 1) : spec;
            String cls = rest.contains(":") ? rest.substring(0, rest.indexOf(':')) : rest;
            String[] jobArgs = rest.contains(":") ? new String[] {"--data", rest.substring(rest.indexOf(':') + 1)} : new String[0];
            long s = System.nanoTime();
            String status = "ok";
            try (PrintStream ps = new PrintStream(new FileOutputStream(out.resolve(name + ".out").toFile()), true, "UTF-8")) {
                System.setOut(ps);
                Throwable[] failure = new Throwable[1];
                Thread t = new Thread(() -> {
                    try {
                        Class.forName(cls).getMethod("main", String[].class).invoke(null, (Object) jobArgs);
                    } catch (Throwable e) {
                        failure[0] = e;
                    }
                }, "job " + name);
                t.setContextClassLoader(Thread.currentThread().getContextClassLoader());
                t.start();
                t.join(timeoutMs);
                if (t.isAlive()) {
                    status = "timeout";
                    for (var j : mc.listJobs().get()) {
                        if (!j.getJobState().isGloballyTerminalState()) {
                            mc.cancelJob(j.getJobId()).get();
                        }
                    }
                    t.join(10_000);
                    ps.println("JL|END|timeout");
                } else if (failure[0] != null) {
                    status = "error";
                    Throwable e = failure[0];
                    while (e.getCause() != null && e.getCause() != e) {
                        e = e.getCause();
                    }
                    failure[0].printStackTrace(ps);
                    ps.println("JL|END|error|" + String.valueOf(e).replace('\n', ' '));
                } else {
                    ps.println("JL|END|ok");
                }
            } finally {
                System.setOut(console);
                System.getProperties().remove("joinlab.reporter");
            }
            console.println(name + " " + status + " " + (System.nanoTime() - s) / 1_000_000);
        }
        mc.close();
        console.println("JL|CLUSTER|total|" + (System.nanoTime() - t0) / 1_000_000);
        System.exit(0);
    }
}
