package io.hamiobserve.app;

import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.edge.startup.StartupTimeline;
import io.hamiobserve.edge.Servers;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/** How the commands serve their roles, or print one exposition and stop. */
public final class Serving {
    private Serving() {
    }

    /**
     * Starts each role behind its own server and keeps running; {@code binds} pairs with
     * {@code roles}. The roles' sources start once the servers listen: a start is CPU-bound, and a
     * source reading its input (a snapshot's YAML, an informer's first list) beside the servers'
     * build delayed the first answer (docs/deploy.md, start-up). Until a source has read its
     * input, a scrape answers what is known, with the ledger or the pod directory reported not
     * synced, and {@code /readyz} answers 503; for a role that stamps its state, also until its
     * first exposition is rendered and kept.
     *
     * @return {@link Subcommand#KEEP_RUNNING}, or 2 when a role has given up for good at its start
     *         (an unreadable snapshot): that line is printed to {@code err}
     */
    public static int serve(List<String> binds, List<? extends Role> roles, EdgeConfig edge, PrintStream out,
                            PrintStream err) {
        StartupTimeline.mark("command parsed, role built");
        EdgeStartup.Checked checked = EdgeStartup.check(edge, binds);
        StartupTimeline.mark("edge checked (web config)");
        List<RenderedAhead> renderedAhead = roles.stream().map(RenderedAhead::new).toList();
        List<Servers.Served> servers = Servers.serveAll(checked, renderedAhead);
        for (int i = 0; i < roles.size(); i++) {
            out.printf("hami-observe: %s view on :%d/metrics%n", roles.get(i).view(), servers.get(i).port());
        }
        out.flush();
        StartupTimeline.mark("port printed");
        CompletableFuture<Void> started = new CompletableFuture<>();
        Thread.ofPlatform().name("hami-observe-start").start(() -> {
            try {
                for (Role role : roles) {
                    role.start();
                    StartupTimeline.mark("sources started");
                    role.givenUp().ifPresent(why -> {
                        throw new IllegalStateException(why);
                    });
                }
                StartupTimeline.allSourcesStarted();
                started.complete(null);
            } catch (RuntimeException failed) {
                started.completeExceptionally(failed);
            }
        });
        Runnable stop = stopOnShutdown(servers, new ArrayList<>(roles), edge.shutdownDrain());
        for (int i = 0; i < roles.size(); i++) {
            renderedAhead.get(i).renderOnceReady(servers.get(i));
        }
        try {
            started.join();
        } catch (CompletionException failed) {
            // Stopped here, not by the exit's hook: the reason is the last line the process writes.
            stop.run();
            err.println("hami-observe: " + failed.getCause().getMessage());
            return 2;
        }
        return Subcommand.KEEP_RUNNING;
    }

    /** Writes {@code source}'s series once, as Prometheus text. */
    public static void print(MetricsSource source, PrintStream out) {
        try {
            source.collect().write(out, ExpositionFormat.PROMETHEUS_TEXT);
            out.flush();
        } catch (IOException failed) {
            throw new UncheckedIOException(failed);
        }
    }

    /**
     * On SIGTERM or Ctrl-C: readiness turns 503, in-flight scrapes get up to {@code drain} to
     * finish, the servers stop, then {@code closeables} release what they hold (the roles'
     * sources: NVML, files, informers), in order.
     *
     * @return the same stop, to run before the exit instead (it runs once, whichever comes first)
     */
    public static Runnable stopOnShutdown(List<Servers.Served> servers, List<? extends AutoCloseable> closeables,
                                          Duration drain) {
        List<AutoCloseable> inOrder = List.copyOf(closeables);
        AtomicBoolean stopped = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopped.compareAndSet(false, true)) {
                Servers.shutdown(servers, inOrder, drain);
            }
        };
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("hami-observe-shutdown").unstarted(stop));
        return stop;
    }
}
