package io.hamiobserve.role.console;

import picocli.CommandLine.Option;

import java.net.URI;
import java.util.Optional;

/** Where the console listens and how it is reached: the console's and the demo's flags. */
public final class ConsoleFlags {
    @Option(names = "--console-bind-address", paramLabel = "ADDR", defaultValue = ConsoleRole.DEFAULT_BIND,
            description = "where the console listens (default: ${DEFAULT-VALUE})")
    private String bind;

    @Option(names = "--console.route-prefix", paramLabel = "PATH", defaultValue = "", converter = RoutePrefix.class,
            description = "serve the console under PATH, e.g. /gpu behind an Ingress")
    private String routePrefix;

    @Option(names = "--prometheus-external-url", paramLabel = "URL", converter = PrometheusFlags.HttpUrl.class,
            description = "Prometheus as a browser reaches it, for \"open in Prometheus\" links")
    private URI prometheusExternal;

    public String bind() {
        return bind;
    }

    public String routePrefix() {
        return routePrefix;
    }

    public Optional<URI> prometheusExternal() {
        return Optional.ofNullable(prometheusExternal);
    }

    /** A path a browser reaches as it is: refused with one line otherwise (no "..", "//", spaces). */
    public static final class RoutePrefix implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            try {
                return io.hamiobserve.console.ConsoleSettings.routePrefix(text);
            } catch (IllegalArgumentException refused) {
                throw new picocli.CommandLine.TypeConversionException(refused.getMessage());
            }
        }
    }
}
