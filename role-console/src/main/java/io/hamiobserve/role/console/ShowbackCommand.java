package io.hamiobserve.role.console;

import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.console.RightsizeReport;
import io.hamiobserve.console.ShowbackReport;
import io.hamiobserve.domain.fleet.Prices;
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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    private RightsizeReport.Format format;

    @Option(names = "--prices", paramLabel = "FILE", converter = PriceFile.class,
            description = "prices per card-hour, a line MODEL=PRICE each (A100-SXM4-80GB=2.10; # comments); "
                    + "the model as the ledger's device_type names it (docs/console.md, \"Showback\")")
    private Prices priceFile;

    @Option(names = "--price", paramLabel = "MODEL=PRICE", converter = Price.class,
            description = "a price per card-hour for a card model, over the file's (repeatable)")
    private List<Map.Entry<String, Double>> price = new ArrayList<>();

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
        Prices prices = priceFile == null ? Prices.NONE : priceFile;
        Map<String, Double> flags = new java.util.LinkedHashMap<>();
        price.forEach(entry -> flags.put(entry.getKey(), entry.getValue()));
        prices = prices.with(new Prices(flags));
        try {
            ShowbackReport.write(prometheus.required(), start, end, by, prices, format, launch.out());
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

    /** One {@code MODEL=PRICE}. */
    public static final class Price implements ITypeConverter<Map.Entry<String, Double>> {
        @Override
        public Map.Entry<String, Double> convert(String text) {
            try {
                return Prices.entry(text, "");
            } catch (IllegalArgumentException refused) {
                throw new TypeConversionException(refused.getMessage());
            }
        }
    }

    /** A prices file: read whole (at most {@value #MOST_BYTES} bytes of UTF-8), every line checked. */
    public static final class PriceFile implements ITypeConverter<Prices> {
        static final int MOST_BYTES = 1 << 20;

        @Override
        public Prices convert(String text) {
            Path file = Path.of(text);
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MOST_BYTES + 1);
            } catch (IOException unreadable) {
                throw new TypeConversionException(printable(text) + ": cannot be read (" + unreadable.getClass().getSimpleName() + ")");
            }
            if (bytes.length > MOST_BYTES) {
                throw new TypeConversionException(printable(text) + ": larger than " + MOST_BYTES + " bytes: not a prices file");
            }
            String content;
            try {
                content = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException notText) {
                throw new TypeConversionException(printable(text) + ": not UTF-8 text");
            }
            try {
                return Prices.parse(content.lines().toList(), printable(text));
            } catch (IllegalArgumentException refused) {
                throw new TypeConversionException(refused.getMessage());
            }
        }
    }

    private static String printable(String text) {
        return text.replaceAll("\\p{Cc}", "?");
    }
}
