package io.hamiobserve.app;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command line of the console and of {@code rightsize}: its flags are taken out of the
 * arguments here, before {@link Options} reads the rest.
 *
 * @param prometheus         the Prometheus to read (the console role and rightsize need one; the
 *                           demo starts its own when none is given and one is installed)
 * @param prometheusExternal Prometheus's address as a browser reaches it, for "open in Prometheus" links
 * @param prometheusTimeout  how long one query may take
 * @param bind               where the console listens
 * @param routePrefix        the path the console lives under behind an Ingress ("" = the root)
 * @param window             rightsize: how far back it looks
 * @param format             rightsize: table, json or csv
 * @param demoPrometheus     demo: start a local Prometheus when one is installed (false: read the
 *                           simulation directly)
 */
public record ConsoleOptions(Optional<URI> prometheus, Optional<URI> prometheusExternal, Duration prometheusTimeout,
                             String bind, String routePrefix, Duration window, String format,
                             boolean demoPrometheus) {

    public static final String USAGE = """
            
            console and right-sizing:
              console --prometheus URL       the web console over a Prometheus that scrapes the endpoints
              rightsize --prometheus URL [--window 14d] [--format table|json|csv]
                                             right-sizing recommendations for nvidia.com/gpumem and gpucores
              --prometheus URL               the Prometheus to read (user:password@ in the URL is sent as basic auth)
              --prometheus-external-url URL  Prometheus as a browser reaches it: "open in Prometheus" links
              --prometheus-timeout DURATION  one query's limit (default 10s)
              --console-bind-address ADDR    the console (default :9397; the demo starts it too)
              --console.route-prefix PATH    serve the console under PATH, e.g. /gpu behind an Ingress
              --window DURATION              rightsize: how far back to look (default 14d; 24h, 7d, ...)
              --format table|json|csv        rightsize: output format (default table)
              --demo.prometheus auto|off     demo: start a local Prometheus with history when one is
                                             installed (auto, the default), or read the simulation directly
            """;

    public static ConsoleOptions defaults() {
        return new ConsoleOptions(Optional.empty(), Optional.empty(), Duration.ofSeconds(10), ":9397", "",
                Duration.ofDays(14), "table", true);
    }

    /** The console's options, and the arguments left for {@link Options}. */
    public record Split(ConsoleOptions options, String[] rest) {
    }

    /** Takes the console's flags out of {@code args}; throws {@link IllegalArgumentException} with a message. */
    public static Split extract(String[] args) {
        ConsoleOptions options = defaults();
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                value = arg.substring(equals + 1);
                arg = arg.substring(0, equals);
            }
            switch (arg) {
                case "--prometheus" -> options = options.with(url(value != null ? value : next(args, ++i, arg), arg),
                        options.prometheusExternal());
                case "--prometheus-external-url" -> options = options.with(options.prometheus(),
                        url(value != null ? value : next(args, ++i, arg), arg));
                case "--prometheus-timeout" -> options = new ConsoleOptions(options.prometheus,
                        options.prometheusExternal, Options.duration(value != null ? value : next(args, ++i, arg), arg),
                        options.bind, options.routePrefix, options.window, options.format, options.demoPrometheus);
                case "--console-bind-address" -> options = new ConsoleOptions(options.prometheus,
                        options.prometheusExternal, options.prometheusTimeout, value != null ? value
                        : next(args, ++i, arg), options.routePrefix, options.window, options.format,
                        options.demoPrometheus);
                case "--console.route-prefix" -> options = new ConsoleOptions(options.prometheus,
                        options.prometheusExternal, options.prometheusTimeout, options.bind,
                        value != null ? value : next(args, ++i, arg), options.window, options.format,
                        options.demoPrometheus);
                case "--window" -> options = new ConsoleOptions(options.prometheus, options.prometheusExternal,
                        options.prometheusTimeout, options.bind, options.routePrefix,
                        window(value != null ? value : next(args, ++i, arg)), options.format, options.demoPrometheus);
                case "--format" -> options = new ConsoleOptions(options.prometheus, options.prometheusExternal,
                        options.prometheusTimeout, options.bind, options.routePrefix, options.window,
                        format(value != null ? value : next(args, ++i, arg)), options.demoPrometheus);
                case "--demo.prometheus" -> options = new ConsoleOptions(options.prometheus,
                        options.prometheusExternal, options.prometheusTimeout, options.bind, options.routePrefix,
                        options.window, options.format, demoPrometheus(value != null ? value : next(args, ++i, arg)));
                default -> rest.add(args[i]);
            }
        }
        Options.BindAddress.parse(options.bind());
        return new Split(options, rest.toArray(String[]::new));
    }

    private ConsoleOptions with(Optional<URI> url, Optional<URI> external) {
        return new ConsoleOptions(url, external, prometheusTimeout, bind, routePrefix, window, format, demoPrometheus);
    }

    private static Optional<URI> url(String text, String flag) {
        try {
            URI url = new URI(text.trim());
            if (url.getScheme() == null || !(url.getScheme().equals("http") || url.getScheme().equals("https"))
                    || url.getHost() == null) {
                throw new IllegalArgumentException(flag + " needs an http:// or https:// URL: " + text);
            }
            return Optional.of(url);
        } catch (java.net.URISyntaxException bad) {
            throw new IllegalArgumentException(flag + " needs a URL: " + text);
        }
    }

    /** 14d, 7d, 24h, 90m: a window of whole minutes, at most 90 days. */
    static Duration window(String text) {
        String value = text.trim();
        try {
            long amount = Long.parseLong(value.substring(0, value.length() - 1));
            Duration window = switch (value.charAt(value.length() - 1)) {
                case 'd' -> Duration.ofDays(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'm' -> Duration.ofMinutes(amount);
                default -> throw new NumberFormatException();
            };
            if (window.toMinutes() < 1 || window.compareTo(Duration.ofDays(90)) > 0) {
                throw new IllegalArgumentException("--window must be between 1m and 90d: " + text);
            }
            return window;
        } catch (NumberFormatException | StringIndexOutOfBoundsException notWindow) {
            throw new IllegalArgumentException("--window needs a duration like 14d, 24h or 90m: " + text);
        }
    }

    private static String format(String text) {
        if (!List.of("table", "json", "csv").contains(text)) {
            throw new IllegalArgumentException("--format is table, json or csv: " + text);
        }
        return text;
    }

    private static boolean demoPrometheus(String text) {
        return switch (text) {
            case "auto", "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--demo.prometheus is auto or off: " + text);
        };
    }

    private static String next(String[] args, int index, String flag) {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }
}
