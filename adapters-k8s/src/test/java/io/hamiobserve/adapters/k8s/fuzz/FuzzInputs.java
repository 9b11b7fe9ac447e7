package io.hamiobserve.adapters.k8s.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Hostile text for every decoder of the Kubernetes adapter: valid seeds as HAMi and kubectl write
 * them, mutated the way an attacker or a broken writer would (numbers at and past every bound,
 * exponents, NaN, signs, unicode digits and letters, NUL and control bytes, lone surrogates,
 * separators inserted and removed, slices repeated thousands of times, truncation), and whole
 * dumps built from such objects. Deterministic for a seed. Shared with the app's exposition fuzzer
 * (so in a package of its own: the adapter's package belongs to its module).
 */
public final class FuzzInputs {
    /** Just past what an API server stores for an object's annotations (the adapter's bound). */
    private static final int PAST_ANNOTATION_LIMIT = 256 * 1024 + 1;
    /** Just past the most cards the adapter reads from one node. */
    private static final int PAST_CARD_LIMIT = 1025;

    /** Tokens spliced into text: separators, numbers around every bound, odd characters. */
    private static final String[] TOKENS = {
            ",", ":", ";", "[", "]", "{", "}", "\"", "'", "-", "+", " ", "\t", "\n", "\r\n", "\\", "\\u0000",
            "0", "1", "-1", "100", "1e3", "1E400", "1.5", ".5", "NaN", "Infinity", "-0", "0x10", "1_000",
            "1073741824", "1073741825", "8796093022207", "8796093022208", "9000000000000", "4611686018427387904",
            "9223372036854775807", "9223372036854775808", "99999999999999999999999", "2147483648",
            "\u0000", "\u0007", "\u007f", "é", "١٢", "１２", "\ud800", "\udfff", "😀", "\u202e",
            "GPU-", "MIG-", "GPU-a", "NVIDIA", "true", "false", "null", "hami-core", "mig", "mps",
            "\"id\":", "\"devmem\":", "\"devcore\":", "\"count\":", "\"index\":", "\"numa\":", "\"health\":",
            "\"mode\":", "\"type\":", "\"gpuUUID\":", "\"migUUID\":", "\"placement\":", "\"containerIndex\":",
            "Ki", "Mi", "Gi", "Ei", "m", "k", "e", "E", "e-", "e+",
    };

    private static final String[] REGISTER_SEEDS = {
            "[{\"id\":\"GPU-0001\",\"index\":0,\"count\":10,\"devmem\":40960,\"devcore\":100,"
                    + "\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\",\"numa\":0,\"mode\":\"hami-core\",\"health\":true},"
                    + "{\"id\":\"GPU-0002\",\"index\":1,\"count\":10,\"devmem\":40960,\"devcore\":100,"
                    + "\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\",\"numa\":1,\"mode\":\"mig\",\"health\":false}]",
            "GPU-0003,10,32768,100,NVIDIA-Tesla V100-SXM2-32GB,0,true:GPU-0004,10,32768,100,NVIDIA-Tesla V100,0,"
                    + "false,1,hami-core:",
            "[]",
    };

    private static final String[] ALLOCATION_SEEDS = {
            "GPU-0001,NVIDIA,8000,20:;GPU-0001,NVIDIA,10000,30:GPU-0002,NVIDIA,10000,30:;;",
            "GPU-0003,NVIDIA,16384,50:;",
            ";",
    };

    private static final String[] MIG_SEEDS = {
            "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-0002\",\"profile\":\"1g.10gb\","
                    + "\"placement\":{\"start\":2,\"size\":1},\"migUUID\":\"MIG-7\",\"gpuInstanceID\":3,"
                    + "\"computeInstanceID\":0}]",
            "[{\"containerIndex\":1,\"gpuUUID\":\"GPU-0002\",\"placement\":4}]",
    };

    private static final String[] QUANTITY_SEEDS = {"40960", "40Gi", "0.5", "1e3", "200", "8Ki", "1500m"};

    private FuzzInputs() {
    }

    public static String registerValue(Random random) {
        return registerValue(random, true);
    }

    public static String allocationValue(Random random) {
        return mutate(pick(random, ALLOCATION_SEEDS), random, true);
    }

    public static String migValue(Random random) {
        return mutate(pick(random, MIG_SEEDS), random, true);
    }

    public static String quantity(Random random) {
        return mutate(pick(random, QUANTITY_SEEDS), random, true);
    }

    private static String registerValue(Random random, boolean huge) {
        return random.nextInt(8) == 0 ? generatedRegister(random) : mutate(pick(random, REGISTER_SEEDS), random, huge);
    }

    /** A JSON register annotation built from fields with values anywhere around their bounds. */
    private static String generatedRegister(Random random) {
        StringBuilder json = new StringBuilder("[");
        int cards = random.nextInt(64) == 0 ? PAST_CARD_LIMIT + random.nextInt(100)
                : 1 + random.nextInt(4);
        for (int i = 0; i < cards; i++) {
            json.append(i == 0 ? "" : ",").append("{\"id\":\"GPU-").append(random.nextInt(cards + 3)).append('"');
            for (String field : new String[] {"index", "count", "devmem", "devcore", "numa"}) {
                if (random.nextBoolean()) {
                    json.append(",\"").append(field).append("\":").append(number(random));
                }
            }
            json.append('}');
        }
        return json.append(']').toString();
    }

    private static String number(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> Long.toString(random.nextLong());
            case 1 -> Long.toString(random.nextInt(100_000));
            case 2 -> pick(random, "1073741824", "1073741825", "2147483647", "2147483648", "-1", "0");
            case 3 -> random.nextInt(10) + "e" + random.nextInt(500);
            case 4 -> "9".repeat(1 + random.nextInt(40));
            default -> random.nextInt(1000) + "." + random.nextInt(10);
        };
    }

    /**
     * 1 to 5 mutations of {@code seed}: splices, deletions, repeats, truncation, digit runs; with
     * {@code huge}, now and then text past every size bound.
     */
    public static String mutate(String seed, Random random, boolean huge) {
        StringBuilder text = new StringBuilder(seed);
        int mutations = 1 + random.nextInt(5);
        for (int m = 0; m < mutations; m++) {
            int at = text.isEmpty() ? 0 : random.nextInt(text.length() + 1);
            switch (random.nextInt(9)) {
                case 0, 1 -> text.insert(at, pick(random, TOKENS));
                case 2 -> {
                    if (!text.isEmpty()) {
                        int end = Math.min(text.length(), at + 1 + random.nextInt(8));
                        text.delete(Math.min(at, end), end);
                    }
                }
                case 3 -> {
                    // A slice repeated many times: huge counts of entries, deeply repeated UUIDs.
                    int end = Math.min(text.length(), at + 1 + random.nextInt(40));
                    String slice = text.substring(Math.min(at, end), end);
                    int times = huge && random.nextInt(40) == 0 ? 2_000 + random.nextInt(30_000) : 1 + random.nextInt(50);
                    if (slice.length() * (long) times < 2_000_000) {
                        text.insert(end, slice.repeat(times));
                    }
                }
                case 4 -> text.setLength(at);
                case 5 -> text.insert(at, String.valueOf(random.nextInt(10)).repeat(1 + random.nextInt(30)));
                case 6 -> text.insert(at, (char) random.nextInt(0x10000));
                case 7 -> {
                    // A digit run replaced by a number around a bound.
                    int start = at;
                    while (start < text.length() && !Character.isDigit(text.charAt(start))) {
                        start++;
                    }
                    int end = start;
                    while (end < text.length() && Character.isDigit(text.charAt(end))) {
                        end++;
                    }
                    if (start < text.length()) {
                        text.replace(start, end, number(random));
                    }
                }
                // Past what an API server stores, now and then: the decoders refuse it before reading it.
                default -> text.insert(at, "x".repeat(huge && random.nextInt(40) == 0 ? PAST_ANNOTATION_LIMIT
                        : 1 + random.nextInt(400)));
            }
        }
        return text.toString();
    }

    /**
     * A whole dump, {@code kubectl -o json} or {@code -o yaml} shaped, of a few nodes, pods and
     * quotas carrying hostile annotations, then possibly damaged as text. The first object is
     * always a well-formed node {@code steady-node} with card {@code GPU-STEADY} and the second a
     * pod {@code steady/steady-pod} holding 1000 MiB of it: whatever else the dump holds, they count.
     */
    public static String dump(Random random, boolean json, int objects) {
        // A parser looks one token ahead: the object before damaged text may go with it, so a
        // harmless object of another kind stands between the steady ones and the damage.
        List<String> steady = List.of(
                node(json, "steady-node", "[{\"id\":\"GPU-STEADY\",\"devmem\":40960,\"count\":10}]"),
                pod(json, "steady", "steady-pod", "uid-steady", "steady-node", "GPU-STEADY,NVIDIA,1000,10:;", null),
                json ? "{\"kind\":\"ConfigMap\"}" : "- {\"kind\": \"ConfigMap\"}\n");
        List<String> items = new ArrayList<>();
        for (int i = 0; i < objects; i++) {
            // Sizes past the bounds are the annotation targets' business; here they would only slow the parser.
            String name = random.nextInt(10) == 0 ? mutate("name-" + i, random, false) : "n" + i;
            items.add(switch (random.nextInt(3)) {
                case 0 -> node(json, name, registerValue(random, false));
                case 1 -> pod(json, "ns" + random.nextInt(3), name, "uid-" + i,
                        random.nextBoolean() ? "steady-node" : "n" + random.nextInt(objects + 1),
                        mutate(pick(random, ALLOCATION_SEEDS), random, false),
                        random.nextInt(3) == 0 ? mutate(pick(random, MIG_SEEDS), random, false) : null);
                default -> quota(json, "ns" + random.nextInt(3), name, mutate(pick(random, QUANTITY_SEEDS), random,
                        false), mutate(pick(random, QUANTITY_SEEDS), random, false));
            });
        }
        String separator = json ? ",\n" : "";
        String head = (json ? "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n"
                : "apiVersion: v1\nkind: List\nitems:\n") + String.join(separator, steady);
        String rest = (items.isEmpty() ? "" : separator + String.join(separator, items)) + (json ? "\n]}\n" : "");
        // Damage to the text itself, after the steady objects so that they still count.
        if (random.nextInt(4) == 0) {
            rest = mutate(rest, random, false);
        }
        return head + rest;
    }

    private static String node(boolean json, String name, String register) {
        return json
                ? "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":" + jsonString(name)
                        + ",\"annotations\":{\"hami.io/node-nvidia-register\":" + jsonString(register) + "}}}"
                : "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: " + jsonString(name)
                        + "\n    annotations:\n      hami.io/node-nvidia-register: " + jsonString(register) + "\n";
    }

    private static String pod(boolean json, String namespace, String name, String uid, String node, String allocated,
                              String mig) {
        String annotations = "\"hami.io/vgpu-node\":" + jsonString(node) + ",\"hami.io/vgpu-devices-allocated\":"
                + jsonString(allocated) + (mig == null ? "" : ",\"hami.io/vgpu-mig-allocations\":" + jsonString(mig));
        String metadata = "{\"name\":" + jsonString(name) + ",\"namespace\":" + jsonString(namespace) + ",\"uid\":"
                + jsonString(uid) + ",\"labels\":{\"hami.io/vgpu-node\":" + jsonString(node) + "},\"annotations\":{"
                + annotations + "}}";
        String rest = "\"spec\":{\"containers\":[{\"name\":\"c0\"},{\"name\":\"c1\"}]},\"status\":{\"phase\":\"Running\"}";
        // JSON is YAML: a flow mapping on one line keeps the YAML dump's quoting exactly JSON's.
        return json
                ? "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" + metadata + "," + rest + "}"
                : "- {\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" + metadata + "," + rest + "}\n";
    }

    private static String quota(boolean json, String namespace, String name, String memory, String cores) {
        String object = "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":" + jsonString(name)
                + ",\"namespace\":" + jsonString(namespace) + "},\"spec\":{\"hard\":{\"limits.nvidia.com/gpumem\":"
                + jsonString(memory) + ",\"limits.nvidia.com/gpucores\":" + jsonString(cores) + "}}}";
        return json ? object : "- " + object + "\n";
    }

    /** {@code text} as a JSON (and YAML double-quoted) string: every character escaped that must be. */
    public static String jsonString(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f || Character.isSurrogate(c) || c == '\u2028' || c == '\u2029'
                            || c == '\u0085' || c == '\ufeff' || (c >= 0x80 && c < 0xa0)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static String pick(Random random, String... values) {
        return values[random.nextInt(values.length)];
    }
}
