package io.hamiobserve.vendors.protocol.testing;

import java.util.Random;

/**
 * Hostile text for the device providers' decoders: HAMi's own test literals for every vendor
 * (register values, resource quantities, allocation values, MIG allocations) mutated the way an
 * attacker or a broken writer would (numbers at and past every bound, exponents, signs, unicode
 * digits, control characters, lone surrogates, separators inserted and removed, slices repeated
 * thousands of times, truncation). Every seed goes to every key, so a provider meets its own
 * formats and every other vendor's. Deterministic for a seed.
 */
public final class HostileText {
    /** Just past what an API server stores for an object's annotations. */
    private static final int PAST_ANNOTATION_LIMIT = 256 * 1024 + 1;

    private static final String[] TOKENS = {
            ",", ":", ";", "[", "]", "{", "}", "\"", "-", "+", " ", "\t", "\n", "\\", "\\u0000", ".",
            "0", "1", "-1", "16", "100", "1e3", "1E400", "1.5", ".5", "NaN", "-0", "0x10", "1_000",
            "1073741824", "1073741825", "2147483647", "2147483648", "9223372036854775807",
            "9223372036854775808", "99999999999999999999999", "\u0000", "\u007f", "é", "١٢", "１２",
            "\ud800", "\udfff", "😀", "\u202e", "GPU-", "true", "false", "null", "mig", "hami-core",
            "\"id\":", "\"ID\":", "\"devmem\":", "\"Devcore\":", "\"count\":", "\"index\":\"", "\"capacity\":",
            "\"profiles\":", "\"uuid\":", "\"totalVRam\":", "\"gpuUUID\":", "\"placement\":",
            "Ki", "Mi", "Gi", "Ei", "m", "k", "e", "E", "e-", "e+", "g.", "gb",
    };

    /** Node annotation values: HAMi's test literals for each vendor's register annotation. */
    private static final String[] REGISTER_SEEDS = {
            "[{\"id\":\"GPU-0001\",\"index\":0,\"count\":10,\"devmem\":40960,\"devcore\":100,"
                    + "\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\",\"numa\":0,\"mode\":\"hami-core\",\"health\":true},"
                    + "{\"id\":\"GPU-0002\",\"index\":1,\"count\":10,\"devmem\":40960,\"devcore\":100,"
                    + "\"type\":\"NVIDIA-NVIDIA A100-SXM4-40GB\",\"numa\":1,\"mode\":\"mig\",\"health\":false}]",
            "GPU-0003,10,32768,100,NVIDIA-Tesla V100-SXM2-32GB,0,true:GPU-0004,10,32768,100,NVIDIA-Tesla V100,0,"
                    + "false,1,hami-core:",
            "test-0,1,1024,100,DCU,0,true,0,test:",
            "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae,10,8192,100,MR-V100,0,true:",
            "[{\"ID\":\"GPU-0\",\"Count\":4,\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\",\"Numa\":0,"
                    + "\"Health\":true}]",
            "[{\"id\":\"xpu-0\",\"index\":0,\"count\":1,\"devmem\":98304,\"devcore\":100,\"type\":\"XPU\",\"health\":true}]",
            "[{\"id\":\"GPU-0\",\"index\":0,\"count\":1,\"devmem\":8192,\"devcore\":100,\"type\":\"amd\",\"numa\":0,"
                    + "\"health\":true}]",
            "[{\"id\":\"7-0\",\"count\":1,\"devmem\":32768,\"type\":\"Vastai\",\"health\":true,\"devicepairscore\":{}}]",
            "[{\"uuid\": \"GPU-123\", \"model\": \"sgpu\", \"totalDevCount\": 16, \"totalCompute\": 100, "
                    + "\"bdf\": \"0000:44:00.0\", \"totalVRam\" : 32768, \"numa\": 1, \"healthy\": true, "
                    + "\"qosPolicy\": \"fixed-share\"}]",
            "{\"devices\":[{\"index\":\"0\",\"minor\":\"0\",\"capacity\":6}],"
                    + "\"profiles\":{\"1g.6gb\":\"0\",\"3g.20gb\":\"1\",\"6g.40gb\":\"2\"}}",
            "[]", "true", "false",
    };

    /** Node resource quantities, as an API server writes them and as a crafted dump may. */
    private static final String[] QUANTITY_SEEDS = {"1", "2", "8", "16", "100", "1k", "0", "1500m", "64Gi", "1e3", "2E", "1E+2",
            "4", "32", "96"};

    /** Pod allocation values: HAMi's test literals, and MIG allocations. */
    private static final String[] POD_SEEDS = {
            "GPU-0001,NVIDIA,8000,20:;GPU-0001,NVIDIA,10000,30:GPU-0002,NVIDIA,10000,30:;;",
            ";device-0,MLU,256000,1:;", "test1,DCU,2048,1:;", "k8s-gpu-iluvatar-0,MR-V100,0,0:;",
            "test1,Mthreads,1000,1:;", "node1-metax-0,Metax-GPU,65536,100:;", "testnode-GCU-0,GCU,0,0:;",
            "node1-enflame-drs-0,Enflame,20480,50:;", "node1-kunlun-0,kunlun,98304,100:;", "xpu-0,XPU,24576,25:;",
            "test1,AWSNeuron,0,3:;", "GPU-0,amd,4096,76:;", "test1,Vastai,2048,1:;", "test1,Biren,2048,1:;",
            "device-0,Ascend,8738,1:;", ";",
            "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-0002\",\"profile\":\"1g.10gb\","
                    + "\"placement\":{\"start\":2,\"size\":1},\"migUUID\":\"MIG-7\",\"gpuInstanceID\":3,"
                    + "\"computeInstanceID\":0}]",
            "[{\"containerIndex\":1,\"gpuUUID\":\"GPU-0002\",\"placement\":4}]",
    };

    private HostileText() {
    }

    public static String registerValue(Random random) {
        return mutate(pick(random, REGISTER_SEEDS), random);
    }

    public static String quantity(Random random) {
        return random.nextInt(4) == 0 ? pick(random, QUANTITY_SEEDS) : mutate(pick(random, QUANTITY_SEEDS), random);
    }

    public static String podValue(Random random) {
        return mutate(pick(random, POD_SEEDS), random);
    }

    /** A node name: usually a real one, now and then past Kubernetes' bound or with odd characters. */
    public static String nodeName(Random random) {
        return switch (random.nextInt(16)) {
            case 0 -> "n".repeat(250 + random.nextInt(10));
            case 1 -> "node " + random.nextInt(10);
            case 2 -> "";
            case 3 -> "nöde-\u0000";
            default -> "node-" + random.nextInt(100);
        };
    }

    /** 0 to 4 mutations of {@code seed} (none now and then, so whole seeds are decoded too). */
    public static String mutate(String seed, Random random) {
        StringBuilder text = new StringBuilder(seed);
        int mutations = random.nextInt(5);
        for (int m = 0; m < mutations; m++) {
            int at = text.isEmpty() ? 0 : random.nextInt(text.length() + 1);
            switch (random.nextInt(9)) {
                case 0, 1 -> text.insert(at, pick(random, TOKENS));
                case 2 -> text.delete(at, Math.min(text.length(), at + 1 + random.nextInt(8)));
                case 3 -> {
                    // A slice repeated: many entries, deep nesting, long numbers.
                    int end = Math.min(text.length(), at + 1 + random.nextInt(40));
                    String slice = text.substring(Math.min(at, end), end);
                    int times = random.nextInt(60) == 0 ? 2_000 + random.nextInt(20_000) : 1 + random.nextInt(40);
                    if (slice.length() * (long) times < 1_000_000) {
                        text.insert(end, slice.repeat(times));
                    }
                }
                case 4 -> text.setLength(at);
                case 5 -> text.insert(at, String.valueOf(random.nextInt(10)).repeat(1 + random.nextInt(25)));
                case 6 -> text.insert(at, (char) random.nextInt(0x10000));
                case 7 -> replaceNumber(text, at, random);
                default -> {
                    if (random.nextInt(200) == 0) {
                        text.append(" ".repeat(PAST_ANNOTATION_LIMIT));
                    }
                }
            }
        }
        return text.toString();
    }

    // The first digit run from `at` on becomes a number around some bound.
    private static void replaceNumber(StringBuilder text, int at, Random random) {
        int start = at;
        while (start < text.length() && !Character.isDigit(text.charAt(start))) {
            start++;
        }
        int end = start;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        if (start < text.length()) {
            text.replace(start, end, pick(random, "0", "-1", "1073741824", "1073741825", "2147483648",
                    "9223372036854775808", Long.toString(random.nextLong()), "31", "33", "1e9"));
        }
    }

    static String pick(Random random, String... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
