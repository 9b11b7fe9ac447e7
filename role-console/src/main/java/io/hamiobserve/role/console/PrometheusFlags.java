package io.hamiobserve.role.console;

import io.hamiobserve.adapters.prometheus.BackendConfig;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The query backend the console and {@code rightsize} read (Prometheus or an engine that serves its
 * API): where it is, how to reach it, and how long one query may take.
 */
public final class PrometheusFlags {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--prometheus", paramLabel = "URL", converter = HttpUrl.class,
            description = "the Prometheus that scrapes the endpoints (user:password@ in the URL is sent as basic auth; "
                    + "a path is kept, e.g. http://gateway/prometheus, and a ?query sent with every request)")
    private URI prometheus;

    @Option(names = "--prometheus.config.file", paramLabel = "FILE",
            description = "how to reach it: Prometheus's http_config YAML (basic_auth, authorization, "
                    + "bearer_token_file, tls_config, http_headers) and params: query parameters for every query "
                    + "(docs/console.md, \"Backends and clusters\")")
    private Path configFile;

    @Option(names = "--cluster-label", paramLabel = "NAME", defaultValue = PrometheusFleetHistory.DEFAULT_CLUSTER_LABEL,
            converter = LabelName.class,
            description = "the label that tells clusters apart in one engine (Prometheus's external labels, a "
                    + "relabeling): the clusters found are named on every page (default: ${DEFAULT-VALUE})")
    private String clusterLabel;

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
        BackendConfig backend = backend(prometheus);
        try {
            return PrometheusFleetHistory.at(backend, timeout, clusterLabel);
        } catch (IllegalArgumentException unusable) {
            // The TLS files are read here (a certificate that does not parse, a key of another kind).
            throw new ParameterException(command.commandLine(), "--prometheus.config.file: " + unusable.getMessage());
        }
    }

    /** The backend named, with its settings, if one was (the demo's console reads it when given). */
    public Optional<BackendConfig> backend() {
        return url().map(this::backend);
    }

    /**
     * The backend at {@code url} with the settings of {@code --prometheus.config.file}, if given;
     * a config that cannot be used is a usage error that names the file and the key, not a secret.
     */
    public BackendConfig backend(URI url) {
        try {
            return configFile == null ? BackendConfig.of(url) : BackendConfig.read(url, configFile);
        } catch (IllegalArgumentException unusable) {
            throw new ParameterException(command.commandLine(), "--prometheus.config.file: " + unusable.getMessage());
        }
    }

    /** A Prometheus label name. */
    public static final class LabelName implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (!text.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                throw new TypeConversionException("'" + text + "' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)");
            }
            return text;
        }
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
