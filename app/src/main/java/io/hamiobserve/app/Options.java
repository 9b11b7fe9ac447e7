package io.hamiobserve.app;

import io.hamiobserve.app.http.EdgeConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command line. Flag names follow HAMi's where HAMi has one ({@code --metrics-bind-address},
 * {@code --legacy-metrics}); environment variables as HAMi's node process reads them
 * ({@code NODE_NAME}, {@code HOOK_PATH}).
 *
 * @param command                 demo, scheduler, node, all, inspect-cache, console or rightsize
 *                                (the console's flags: {@link ConsoleOptions})
 * @param allocationBind          where the allocation endpoint listens
 * @param usageBind               where the usage endpoint listens
 * @param secondUsageBind         the demo's second node's usage endpoint
 * @param legacyMetrics           also emit HAMi's pre-2.9 metric names
 * @param snapshot                scheduler: read the ledger from this file instead of a cluster
 * @param once                    print one exposition to stdout and exit
 * @param nodeName                node role: this node's name
 * @param hookPath                node role: HAMi-Core's root; containers live in {@code $HOOK_PATH/containers}
 * @param nvmlLibrary             node role: the NVML library to load; empty for the driver's default
 * @param processAttribution      node role: attribute card processes to containers via /proc
 * @param procRoot                node role: where the host's /proc is visible
 * @param arguments               positional arguments (inspect-cache: the path)
 * @param json                    inspect-cache: print JSON
 * @param edge                    the HTTP edge of every endpoint: limits, TLS and basic auth
 */
public record Options(String command, String allocationBind, String usageBind, String secondUsageBind,
                      boolean legacyMetrics, Optional<Path> snapshot, boolean once, String nodeName, Path hookPath,
                      String nvmlLibrary, boolean processAttribution, Path procRoot, List<String> arguments,
                      boolean json, EdgeConfig edge) {

    public static final String USAGE = """
            usage: hami-observe [COMMAND] [FLAGS]
            
            commands:
              demo            both endpoints on an embedded simulated cluster (default)
              scheduler       the allocation view of a cluster (kubeconfig or in-cluster config)
              node            the usage view of this GPU node
              all             scheduler and node roles in one process
              inspect-cache PATH [--json]
                              what a HAMi-Core cache file or containers directory holds
            
            flags:
              --metrics-bind-address ADDR    the endpoint of a single-role command (scheduler :9395, node :9394)
              --allocation-bind-address ADDR allocation endpoint (default :9395)
              --usage-bind-address ADDR      usage endpoint (default :9394)
              --demo-second-node-bind-address ADDR  demo: usage endpoint of the second node (default :9396)
              --legacy-metrics               also emit HAMi's pre-2.9 metric names
              --snapshot FILE                scheduler: read nodes, pods and quotas from a kubectl -o yaml/json dump
              --once                         print one exposition to stdout and exit
              --node-name NAME               node: this node (default $NODE_NAME)
              --hook-path DIR                node: HAMi-Core root (default $HOOK_PATH, else /usr/local/vgpu)
              --nvml-library NAME|PATH       node: NVML library (default: the driver's libnvidia-ml.so.1)
              --process-attribution          node: attribute GPU processes to containers via /proc (needs hostPID)
              --proc-root DIR                node: the host's /proc (default /proc)
              --json                         inspect-cache: JSON output
            
            HTTP edge of every endpoint (durations: 500ms, 8s, 1m; a bare number is seconds):
              --web.config.file FILE         TLS and basic auth, exporter-toolkit format (default: none)
              --web.max-requests N           concurrent scrapes before a fast 503 (default 16)
              --web.scrape-timeout DURATION  scrape deadline, lowered by X-Prometheus-Scrape-Timeout-Seconds
                                             minus 0.5s (default 8s)
              --web.read-timeout DURATION    one socket read of a request (default 10s)
              --web.idle-timeout DURATION    idle keep-alive connections close (default 60s)
              --web.max-header-bytes N       request header block (default 8192)
              --web.max-headers N            request header fields (default 64)
              --web.max-connections N        open connections per endpoint (default 2048)
              --web.shutdown-timeout DURATION  on SIGTERM, in-flight scrapes may finish (default 5s)
            """;

    /** Parses arguments; throws {@link IllegalArgumentException} with a message for the user. */
    public static Options parse(String[] args, Map<String, String> env) {
        String command = "demo";
        String metricsBind = null;
        String allocationBind = null;
        String usageBind = null;
        String secondUsageBind = ":9396";
        boolean legacy = false;
        Path snapshot = null;
        boolean once = false;
        String nodeName = env.get("NODE_NAME");
        String hookPath = env.getOrDefault("HOOK_PATH", "/usr/local/vgpu");
        String nvml = ""; // empty: the driver's soname, as NVML is installed on every GPU node
        boolean attribution = false;
        String procRoot = "/proc";
        boolean json = false;
        List<String> positional = new ArrayList<>();
        EdgeConfig edge = EdgeConfig.defaults();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                value = arg.substring(equals + 1);
                arg = arg.substring(0, equals);
            }
            switch (arg) {
                case "--metrics-bind-address" -> metricsBind = value != null ? value : next(args, ++i, arg);
                case "--allocation-bind-address" -> allocationBind = value != null ? value : next(args, ++i, arg);
                case "--usage-bind-address" -> usageBind = value != null ? value : next(args, ++i, arg);
                case "--demo-second-node-bind-address" -> secondUsageBind = value != null ? value : next(args, ++i, arg);
                case "--legacy-metrics" -> legacy = value == null || Boolean.parseBoolean(value);
                case "--snapshot" -> snapshot = Path.of(value != null ? value : next(args, ++i, arg));
                case "--once" -> once = true;
                case "--node-name" -> nodeName = value != null ? value : next(args, ++i, arg);
                case "--hook-path" -> hookPath = value != null ? value : next(args, ++i, arg);
                case "--nvml-library" -> nvml = value != null ? value : next(args, ++i, arg);
                case "--process-attribution" -> attribution = value == null || Boolean.parseBoolean(value);
                case "--proc-root" -> procRoot = value != null ? value : next(args, ++i, arg);
                case "--json" -> json = true;
                case "--web.config.file" -> edge = edge.withWebConfigFile(Path.of(value != null ? value : next(args, ++i, arg)));
                case "--web.max-requests" -> edge = edge.withMaxConcurrentScrapes(
                        count(value != null ? value : next(args, ++i, arg), arg));
                case "--web.scrape-timeout" -> edge = edge.withScrapeTimeout(
                        duration(value != null ? value : next(args, ++i, arg), arg));
                case "--web.read-timeout" -> edge = edge.withReadTimeout(
                        duration(value != null ? value : next(args, ++i, arg), arg));
                case "--web.idle-timeout" -> edge = edge.withIdleTimeout(
                        duration(value != null ? value : next(args, ++i, arg), arg));
                case "--web.max-header-bytes" -> edge = edge.withHeaderLimits(
                        count(value != null ? value : next(args, ++i, arg), arg), edge.maxHeaderCount());
                case "--web.max-headers" -> edge = edge.withHeaderLimits(edge.maxHeaderBytes(),
                        count(value != null ? value : next(args, ++i, arg), arg));
                case "--web.max-connections" -> edge = edge.withMaxConnections(
                        count(value != null ? value : next(args, ++i, arg), arg));
                case "--web.shutdown-timeout" -> edge = edge.withShutdownDrain(
                        duration(value != null ? value : next(args, ++i, arg), arg));
                case "-h", "--help" -> command = "help";
                default -> {
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown flag " + arg);
                    }
                    positional.add(arg);
                }
            }
        }
        if (!command.equals("help") && !positional.isEmpty()) {
            command = positional.removeFirst();
        }
        if (!List.of("demo", "scheduler", "node", "all", "inspect-cache", "console", "rightsize", "help")
                .contains(command)) {
            throw new IllegalArgumentException("unknown command " + command);
        }
        if (metricsBind != null) {
            switch (command) {
                case "scheduler" -> allocationBind = allocationBind == null ? metricsBind : allocationBind;
                case "node" -> usageBind = usageBind == null ? metricsBind : usageBind;
                default -> throw new IllegalArgumentException("--metrics-bind-address is for the scheduler or node "
                        + "command; use --allocation-bind-address and --usage-bind-address");
            }
        }
        if ((command.equals("node") || command.equals("all")) && (nodeName == null || nodeName.isBlank())) {
            throw new IllegalArgumentException("the node role needs its node's name: set NODE_NAME or --node-name");
        }
        if (command.equals("inspect-cache") && positional.size() != 1) {
            throw new IllegalArgumentException("inspect-cache takes one PATH");
        }
        if (snapshot != null && !command.equals("scheduler")) {
            throw new IllegalArgumentException("--snapshot is for the scheduler command");
        }
        return new Options(command, allocationBind == null ? ":9395" : allocationBind,
                usageBind == null ? ":9394" : usageBind, secondUsageBind, legacy, Optional.ofNullable(snapshot), once,
                nodeName == null ? "" : nodeName, Path.of(hookPath), nvml, attribution, Path.of(procRoot),
                List.copyOf(positional), json, edge);
    }

    private static int count(String value, String flag) {
        try {
            int count = Integer.parseInt(value.trim());
            if (count <= 0) {
                throw new IllegalArgumentException(flag + " must be positive: " + value);
            }
            return count;
        } catch (NumberFormatException notNumber) {
            throw new IllegalArgumentException(flag + " needs a whole number: " + value);
        }
    }

    /** {@code 500ms}, {@code 8s}, {@code 1m}, or a bare number of seconds; positive. */
    static Duration duration(String value, String flag) {
        String text = value.trim();
        try {
            Duration duration;
            if (text.endsWith("ms")) {
                duration = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            } else if (text.endsWith("s")) {
                duration = Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
            } else if (text.endsWith("m")) {
                duration = Duration.ofSeconds(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 60));
            } else {
                duration = Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000));
            }
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(flag + " must be positive: " + value);
            }
            return duration;
        } catch (NumberFormatException notDuration) {
            throw new IllegalArgumentException(flag + " needs a duration like 500ms, 8s or 1m: " + value);
        }
    }

    private static String next(String[] args, int index, String flag) {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    /** A bind address: {@code :9395}, {@code 0.0.0.0:9395}, {@code 127.0.0.1:0}, {@code [::1]:9394}. */
    public record BindAddress(String host, int port) {
        public static BindAddress parse(String address) {
            int colon = address.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("bind address " + address + " has no :PORT");
            }
            String host = address.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException notNumber) {
                throw new IllegalArgumentException("bind address " + address + " has no numeric port");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("bind address " + address + ": port out of range");
            }
            return new BindAddress(host.isEmpty() ? "0.0.0.0" : host, port);
        }
    }
}
