package io.hamiobserve.edge.http;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Fuzzes the web config decoder ({@link WebConfig#parse}): valid configs mutated at the byte, token
 * and line level, YAML built from random pieces (anchors, aliases, tags, flow and block styles,
 * deep nesting, odd scalars), and random bytes. Every input must give a config or an
 * {@link IllegalArgumentException} with a one-line message; anything else escapes and fails.
 *
 * <p>The test suite runs it with a fixed seed ({@code WebConfigFuzzTest}); a long run:
 * {@code bin/bench app io.hamiobserve.edge.http.WebConfigFuzz COUNT SEED} prints the rate.
 */
public final class WebConfigFuzz {
    static final String[] VALID = {
        "",
        "# nothing configured\n",
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n",
        "tls_server_config:\n  cert_file: \"a b.crt\"\n  key_file: 'k.key'\n  client_auth_type: RequireAndVerifyClientCert\n"
                + "  client_ca_file: ca.crt\nbasic_auth_users:\n  prometheus: $2y$10$" + "a".repeat(53) + "\n",
        "basic_auth_users:\n  alice: $2b$12$" + "B".repeat(53) + "\n  bob: $2a$04$" + "./".repeat(26) + "x\n",
        "{tls_server_config: {cert_file: c, key_file: k}, basic_auth_users: {}}\n",
        "---\ntls_server_config: {}\nbasic_auth_users:\n",
    };
    private static final String[] PIECES = {
        "tls_server_config", "basic_auth_users", "cert_file", "key_file", "client_ca_file", "client_auth_type",
        "http_server_config", "min_version", ":", ": ", "\n", "\n  ", "  ", "- ", "-", "{", "}", "[", "]", ",",
        "&a ", "*a", "&b ", "*b", "!!str ", "!!binary ", "!!map ", "!custom ", "? ", "|", ">", "'", "\"", "\\",
        "#", "---", "...", "%YAML 1.2\n", "%TAG ! tag:x:\n", "null", "~", "true", "0x1F", "1e309", ".inf",
        "$2y$10$", "a".repeat(53), "\t", "\r", "\r\n", "\u0000", "\u00e9", "\ud83d\ude00", "\ufeff", "<<: *a",
        "NoClientCert", "RequireAndVerifyClientCert", "../../etc/shadow", "/dev/zero", " ", "", "=", "@", "`",
    };

    private WebConfigFuzz() {
    }

    public static void main(String[] args) {
        // bin/fuzz passes -Dfuzz.count and -Dfuzz.seed; arguments are for a run by hand.
        long count = args.length > 0 ? Long.parseLong(args[0]) : Long.getLong("fuzz.count", 1_000_000L);
        long seed = args.length > 1 ? Long.parseLong(args[1]) : Long.getLong("fuzz.seed", 1L);
        long started = System.nanoTime();
        Map<String, Long> outcomes = run(seed, count);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("web config decoder: %,d inputs in %.1f s (%,.0f inputs/s), seed %d, nothing escaped%n",
                count, seconds, count / seconds, seed);
        System.out.println("outcomes: " + outcomes);
    }

    /** Decodes {@code count} inputs from {@code seed}; returns the outcomes counted; throws on an escape. */
    static Map<String, Long> run(long seed, long count) {
        Random random = new Random(seed);
        Map<String, Long> outcomes = new TreeMap<>();
        Path base = Path.of("/etc/hami-observe");
        for (long i = 0; i < count; i++) {
            byte[] input = input(random);
            String outcome;
            try {
                WebConfig config = WebConfig.parse(input, base, "web.yml");
                outcome = config.tls().isPresent() ? "config with tls" : "config";
            } catch (IllegalArgumentException refused) {
                String message = refused.getMessage();
                if (message == null || message.isBlank() || message.contains("\n") || message.length() > 400) {
                    throw new AssertionError("input " + i + " of seed " + seed + ": not a one-line message: "
                            + message + "\ninput: " + printable(input));
                }
                outcome = refusal(message);
                if (outcome == null) {
                    throw new AssertionError("input " + i + " of seed " + seed + ": a message the decoder does not "
                            + "give: " + message + "\ninput: " + printable(input));
                }
            } catch (Throwable escaped) {
                throw new AssertionError("input " + i + " of seed " + seed + " escaped the decoder: "
                        + printable(input), escaped);
            }
            outcomes.merge(outcome, 1L, Long::sum);
        }
        return outcomes;
    }

    /** The decoder's refusals, by the stable start of their message. */
    static final String[] REFUSALS = {
        "not valid YAML", "the document must be a mapping", "unsupported section", "unsupported tls_server_config key",
        "tls_server_config must be a mapping", "basic_auth_users must be a mapping",
        "tls_server_config needs cert_file and key_file", "unknown client_auth_type", "client_auth_type",
        "the password of user", "the bcrypt cost", "not a file path", "YAML aliases are not supported",
    };

    /** The refusal a message is, or null when it is none of the decoder's. */
    private static String refusal(String message) {
        if (!message.startsWith("web.yml: ")) {
            return null;
        }
        String text = message.substring("web.yml: ".length());
        for (String refusal : REFUSALS) {
            if (text.startsWith(refusal)) {
                return refusal;
            }
        }
        return text.endsWith(" must be a non-empty string") ? "a value that is not a non-empty string" : null;
    }

    private static byte[] input(Random random) {
        return switch (random.nextInt(20)) {
            case 0, 1 -> randomBytes(random);
            case 2, 3, 4, 5 -> pieces(random).getBytes(StandardCharsets.UTF_8);
            case 6 -> nested(random).getBytes(StandardCharsets.UTF_8);
            default -> mutate(VALID[random.nextInt(VALID.length)].getBytes(StandardCharsets.UTF_8), random);
        };
    }

    private static byte[] randomBytes(Random random) {
        byte[] bytes = new byte[random.nextInt(256)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String pieces(Random random) {
        StringBuilder text = new StringBuilder();
        int count = 1 + random.nextInt(40);
        for (int i = 0; i < count; i++) {
            text.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return text.toString();
    }

    /** Deep flow or block nesting, anchors and aliases: what blows up naive YAML readers. */
    private static String nested(Random random) {
        int depth = 1 + random.nextInt(random.nextBoolean() ? 20 : 2000);
        StringBuilder text = new StringBuilder("tls_server_config: ");
        switch (random.nextInt(3)) {
            case 0 -> text.append("[".repeat(depth)).append("]".repeat(random.nextInt(depth + 1)));
            case 1 -> {
                for (int i = 0; i < Math.min(depth, 200); i++) {
                    text.append("\n").append(" ".repeat(i + 1)).append("k").append(i).append(":");
                }
            }
            default -> {
                text.append("&a [x, x]\nbasic_auth_users: ");
                for (int i = 0; i < Math.min(depth, 50); i++) {
                    text.append("&l").append(i).append(" [*").append(i == 0 ? "a" : "l" + (i - 1)).append(", *")
                            .append(i == 0 ? "a" : "l" + (i - 1)).append("] ");
                }
            }
        }
        return text.toString();
    }

    private static byte[] mutate(byte[] valid, Random random) {
        byte[] bytes = valid.clone();
        int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            switch (random.nextInt(5)) {
                case 0 -> {
                    if (bytes.length > 0) {
                        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                    }
                }
                case 1 -> bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                case 2 -> {
                    int at = random.nextInt(bytes.length + 1);
                    byte[] piece = PIECES[random.nextInt(PIECES.length)].getBytes(StandardCharsets.UTF_8);
                    byte[] longer = new byte[bytes.length + piece.length];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    System.arraycopy(piece, 0, longer, at, piece.length);
                    System.arraycopy(bytes, at, longer, at + piece.length, bytes.length - at);
                    bytes = longer;
                }
                case 3 -> {
                    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
                    int a = random.nextInt(lines.length);
                    int b = random.nextInt(lines.length);
                    String swap = lines[a];
                    lines[a] = lines[b];
                    lines[b] = random.nextBoolean() ? swap : lines[a];
                    bytes = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
                }
                default -> {
                    String text = new String(bytes, StandardCharsets.UTF_8);
                    bytes = (text + text.substring(random.nextInt(text.length() + 1))).getBytes(StandardCharsets.UTF_8);
                }
            }
        }
        return bytes;
    }

    private static String printable(byte[] input) {
        StringBuilder text = new StringBuilder();
        for (byte b : input) {
            text.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff));
        }
        return text.toString();
    }
}
