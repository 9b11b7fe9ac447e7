package io.hamiobserve.role.console;

import io.hamiobserve.configfiles.OperatorFile;

import io.hamiobserve.domain.fleet.Prices;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prices per card-hour for showback (the {@code showback} command and the console's Showback page):
 * a file of {@code MODEL=PRICE} lines and/or repeated {@code --price MODEL=PRICE} flags, the flags
 * over the file. Without either, reports show hours only.
 */
public final class PriceFlags {
    @Option(names = "--prices", paramLabel = "FILE", converter = PriceFile.class,
            description = "prices per card-hour, a line MODEL=PRICE each (A100-SXM4-80GB=2.10; # comments); "
                    + "the model as the ledger's device_type names it (docs/console.md, \"Showback\")")
    private Prices file;

    @Option(names = "--price", paramLabel = "MODEL=PRICE", converter = Price.class,
            description = "a price per card-hour for a card model, over the file's (repeatable)")
    private List<Map.Entry<String, Double>> price = new ArrayList<>();

    /** The file's prices with the flags' over them. */
    public Prices prices() {
        Map<String, Double> flags = new LinkedHashMap<>();
        price.forEach(entry -> flags.put(entry.getKey(), entry.getValue()));
        return (file == null ? Prices.NONE : file).with(new Prices(flags));
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
            byte[] bytes;
            try {
                // Only a small regular file is opened: a FIFO or a device is refused before it is read.
                bytes = OperatorFile.read(Path.of(text), MOST_BYTES, "prices file");
            } catch (IllegalArgumentException refused) { // an InvalidPathException too
                throw new TypeConversionException(printable(refused.getMessage()));
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
