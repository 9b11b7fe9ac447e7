package io.hamiobserve.role.console;

import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.app.cli.Converters;
import io.hamiobserve.ports.FleetHistory;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Optional;

/** The Prometheus the console and {@code rightsize} read: where it is, and how long one query may take. */
public final class PrometheusFlags {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--prometheus", paramLabel = "URL", converter = HttpUrl.class,
            description = "the Prometheus that scrapes the endpoints (user:password@ in the URL is sent as basic auth; "
                    + "a path is kept, e.g. http://gateway/prometheus, and a ?query sent with every request)")
    private URI prometheus;

    @Option(names = "--prometheus-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.PositiveDuration.class,
            description = "one query's limit (default: ${DEFAULT-VALUE})")
    private Duration timeout;

    /** The Prometheus named, if one was. */
    public Optional<URI> url() {
        return Optional.ofNullable(prometheus);
    }

    public Duration timeout() {
        return timeout;
    }

    /** The fleet's history from the Prometheus named; the command cannot run without one. */
    public FleetHistory required() {
        if (prometheus == null) {
            throw new ParameterException(command.commandLine(), command.name()
                    + " needs --prometheus URL: the Prometheus that scrapes the endpoints");
        }
        return PrometheusFleetHistory.at(prometheus, timeout);
    }

    /** An http:// or https:// URL with a host. */
    public static final class HttpUrl implements ITypeConverter<URI> {
        @Override
        public URI convert(String text) {
            try {
                URI url = new URI(text.trim());
                if (url.getScheme() == null || !(url.getScheme().equals("http") || url.getScheme().equals("https"))
                        || url.getHost() == null) {
                    throw new TypeConversionException("'" + text + "' is not an http:// or https:// URL");
                }
                if (url.getRawFragment() != null) {
                    throw new TypeConversionException("'" + text + "' has a #fragment, which no request carries");
                }
                return url;
            } catch (URISyntaxException bad) {
                throw new TypeConversionException("'" + text + "' is not a URL");
            }
        }
    }
}
