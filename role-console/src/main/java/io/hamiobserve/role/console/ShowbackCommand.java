package io.hamiobserve.role.console;

import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.console.ShowbackReport;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.ports.SourceUnavailableException;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** {@code hami-observe showback}: card-hours (and, with prices, cost) per group over a window, from a Prometheus. */
@Command(name = "showback", sortOptions = false,
        description = "Card-hours allocated and used per namespace, workload, node or card model, summing to the "
                + "fleet's card-hours, from a Prometheus; with prices, their cost.")
public final class ShowbackCommand implements Subcommand {
    /** The longest window: a quarter, where a month is the report's usual one. */
    static final Duration LONGEST = Duration.ofDays(93);

    @ParentCommand
    private HamiObserve hamiObserve;

    @Spec
    private CommandSpec spec;

    @Mixin
    private PrometheusFlags prometheus;

    @Option(names = "--from", paramLabel = "TIME", converter = Time.class,
            description = "the window's start: 2026-11-01 (midnight UTC) or 2026-11-01T08:00:00Z (default: 30 days before --to)")
    private Instant from;

    @Option(names = "--to", paramLabel = "TIME", converter = Time.class,
            description = "the window's end, the same forms (default: now)")
    private Instant to;

    @Option(names = "--by", paramLabel = "GROUP", defaultValue = "namespace",
            description = "namespace, workload, pod, container, node, model or cluster (default: ${DEFAULT-VALUE})")
    private Showback.Grouping by;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, json or csv (default: ${DEFAULT-VALUE})")
    private ShowbackReport.Output format;

    @Mixin
    private PriceFlags prices;

    @Override
    public int rank() {
        return 75;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        Instant end = to == null ? Instant.now() : to;
        Instant start = from == null ? end.minus(Duration.ofDays(30)) : from;
        if (!start.isBefore(end)) {
            throw new ParameterException(spec.commandLine(), "--from " + start + " is not before --to " + end);
        }
        if (Duration.between(start, end).compareTo(LONGEST) > 0 || Duration.between(start, end).toMinutes() < 1) {
            throw new ParameterException(spec.commandLine(), "the window from --from to --to must be 1 minute to 93 days");
        }
        try {
            ShowbackReport.write(prometheus.required(), start, end, by, prices.prices(), format, launch.out());
            return 0;
        } catch (SourceUnavailableException unavailable) {
            // One line, whatever the source said: a script reads it, a person sees why.
            launch.err().println("hami-observe: showback: " + String.valueOf(unavailable.getMessage())
                    .replaceAll("\\s*\\R\\s*", " ").replaceAll("\\p{Cc}", "?"));
            return 1;
        }
    }

    /** 2026-11-01 (midnight UTC) or an ISO instant. */
    public static final class Time implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String text) {
            String value = text.strip();
            try {
                return value.contains("T") ? Instant.parse(value) : LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
            } catch (DateTimeParseException notTime) {
                throw new TypeConversionException("'" + printable(text) + "' is not a time like 2026-11-01 or 2026-11-01T08:00:00Z");
            }
        }
    }

    private static String printable(String text) {
        return text.replaceAll("\\p{Cc}", "?");
    }
}
