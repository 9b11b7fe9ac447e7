package io.hamiobserve.domain.fleet;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A price per card-hour for each card model, optional: without prices a report shows hours only.
 *
 * <p>A price's model matches a card whose model (as the ledger's {@code device_type} or DCGM's
 * {@code modelName} names it) equals it ignoring case, or ends with it ignoring case after a
 * separator ({@code A100-SXM4-80GB} matches {@code NVIDIA-NVIDIA A100-SXM4-80GB}, the form HAMi
 * gives with the vendor in front); the longest key that matches wins, so a more specific price
 * overrides a general one.
 */
public record Prices(Map<String, Double> perCardHour) {
    /** The most a card-hour may cost: a typo of some zeros is refused, not billed. */
    public static final double MOST = 1_000_000;

    public static final Prices NONE = new Prices(Map.of());

    public Prices {
        perCardHour = Map.copyOf(perCardHour);
    }

    public boolean isEmpty() {
        return perCardHour.isEmpty();
    }

    /** The price of a card-hour of {@code model}, if one matches. */
    public Optional<Double> of(String model) {
        String card = model.toLowerCase(Locale.ROOT);
        return perCardHour.entrySet().stream()
                .filter(price -> matches(card, price.getKey().toLowerCase(Locale.ROOT)))
                .max(Comparator.comparingInt(price -> price.getKey().length()))
                .map(Map.Entry::getValue);
    }

    private static boolean matches(String card, String key) {
        if (card.equals(key)) {
            return true;
        }
        if (!card.endsWith(key) || card.length() == key.length()) {
            return false;
        }
        char before = card.charAt(card.length() - key.length() - 1);
        return before == ' ' || before == '-' || before == '_' || before == '/';
    }

    /** These prices with {@code more} over them (a flag given after a file). */
    public Prices with(Prices more) {
        Map<String, Double> merged = new LinkedHashMap<>(perCardHour);
        merged.putAll(more.perCardHour);
        return new Prices(merged);
    }

    /**
     * Prices from lines {@code MODEL=PRICE}; blank lines and lines starting with {@code #} are
     * skipped. A line that is not one is refused with its number and why.
     *
     * @param source the file's name, for the message
     * @throws IllegalArgumentException naming the source, the line number and what is wrong
     */
    public static Prices parse(List<String> lines, String source) {
        Map<String, Double> prices = new LinkedHashMap<>();
        for (int index = 0; index < lines.size(); index++) {
            String line = lines.get(index).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (index + 1) + ": ";
            String model = entry(line, where).getKey();
            if (prices.containsKey(model)) {
                throw new IllegalArgumentException(where + "a second price for " + quoted(model));
            }
            prices.put(model, entry(line, where).getValue());
        }
        return new Prices(prices);
    }

    /** One {@code MODEL=PRICE} (a flag's value, or a file's line). */
    public static Map.Entry<String, Double> entry(String text, String where) {
        int equals = text.lastIndexOf('=');
        if (equals < 0) {
            throw new IllegalArgumentException(where + "expected MODEL=PRICE, like A100-80GB=2.10, not " + quoted(text));
        }
        String model = text.substring(0, equals).strip();
        String price = text.substring(equals + 1).strip();
        if (model.isEmpty()) {
            throw new IllegalArgumentException(where + "no card model before '='");
        }
        if (model.chars().anyMatch(Character::isISOControl) || model.length() > 256) {
            throw new IllegalArgumentException(where + "a card model of at most 256 printable characters");
        }
        double value;
        try {
            value = Double.parseDouble(price);
        } catch (NumberFormatException notNumber) {
            throw new IllegalArgumentException(where + "the price of " + quoted(model) + " is not a number: " + quoted(price));
        }
        // parseDouble takes "NaN", "Infinity" and hex forms; a price is a plain decimal.
        if (!price.matches("[0-9]+(\\.[0-9]+)?") || value > MOST) {
            throw new IllegalArgumentException(where + "the price of " + quoted(model)
                    + " must be a decimal from 0 to " + (long) MOST + " per card-hour, not " + quoted(price));
        }
        return Map.entry(model, value);
    }

    private static String quoted(String text) {
        String shown = text.length() > 80 ? text.substring(0, 80) + "…" : text;
        return "'" + shown.replaceAll("\\p{Cc}", "?") + "'";
    }
}
