package io.hamiobserve.vendors.protocol.testing;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceKeys;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;
import io.hamiobserve.vendors.protocol.InputLimits;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Fuzzes one {@link DeviceProvider}: hostile nodes (each declared annotation and resource present
 * or not, with {@link HostileText}) and hostile pods (each declared annotation likewise), through
 * the real decoders. For any input the only outcomes allowed are decoded parts within the
 * domain's and {@link InputLimits}' bounds and problems whose reasons are in the stable
 * vocabulary ({@link #REASONS}) and whose keys the provider declares; an exception, an unknown
 * reason, a card without registration, duplicate UUIDs, or a result that changes when undeclared
 * keys are added to the input (the provider read something it does not declare) or when the same
 * input is decoded again, is a failure.
 *
 * <p>Long runs: {@code bin/fuzz vendor-NAME [--count N] [--seed S]}, which runs {@link #main}
 * with the provider's name on its module's test class path.
 */
public final class ProviderFuzz {
    /** Every reason a provider skips with; a reason outside this set fails the run. */
    public static final Set<String> REASONS = Set.of("not_a_number", "negative_number", "number_overflow",
            "too_long", "bad_uuid", "missing_uuid", "wrong_field_count", "bad_json", "bad_boolean", "unknown_mode",
            "duplicate_uuid", "empty_value", "too_many_cards", "too_many_containers", "too_many_devices",
            "too_many_entries", "bad_mig_allocation", "missing_identity", "no_capacity", "no_profiles",
            "zero_capacity");

    public static final long DEFAULT_SEED = 20_260_821L;

    private ProviderFuzz() {
    }

    /** One input's result: whether anything decoded (cards, allocations), and the problems. */
    private record Decoded(boolean something, List<Problem> problems) {
    }

    /**
     * How a run ended: outcomes counted by reason, "ok" for inputs that decoded into cards or
     * allocations without a problem, "nothing_present" for those that held nothing of the vendor.
     */
    public record Outcomes(Map<String, Long> counts) {
    }

    /** {@code count} inputs from {@code seed}, nodes and pods alternating. */
    public static Outcomes run(DeviceProvider provider, long seed, long count) {
        Random random = new Random(seed);
        DeviceKeys keys = provider.keys();
        Set<String> declared = new HashSet<>(keys.nodeAnnotations());
        declared.addAll(keys.nodeResources());
        declared.addAll(keys.nodeLabels());
        declared.addAll(keys.podAnnotations());
        Map<String, Long> counts = new TreeMap<>();
        for (long i = 0; i < count; i++) {
            boolean node = i % 2 == 0;
            Object input = node ? node(random, keys) : pod(random, keys);
            try {
                Decoded decoded = node ? checkNode(provider, (NodeView) input, i % 8 == 0)
                        : checkPod(provider, castMap(input), i % 8 == 1);
                List<Problem> problems = decoded.problems();
                for (Problem problem : problems) {
                    if (!REASONS.contains(problem.reason())) {
                        throw new AssertionError("unknown reason " + problem);
                    }
                    if (!declared.contains(problem.key())) {
                        throw new AssertionError("problem under an undeclared key " + problem.key());
                    }
                    counts.merge(problem.reason(), 1L, Long::sum);
                }
                if (problems.isEmpty()) {
                    counts.merge(decoded.something() ? "ok" : "nothing_present", 1L, Long::sum);
                }
            } catch (Throwable escaped) {
                throw new AssertionError(provider.name() + " input " + i + " of seed " + seed + " escaped: "
                        + shortly(input), escaped);
            }
        }
        return new Outcomes(counts);
    }

    private static NodeView node(Random random, DeviceKeys keys) {
        Map<String, String> annotations = present(random, keys.nodeAnnotations(), () -> HostileText.registerValue(random));
        Map<String, String> capacity = present(random, keys.nodeResources(), () -> HostileText.quantity(random));
        Map<String, String> labels = present(random, keys.nodeLabels(), () -> HostileText.registerValue(random));
        return new NodeView(HostileText.nodeName(random), annotations, labels, capacity, capacity);
    }

    private static Map<String, String> pod(Random random, DeviceKeys keys) {
        return present(random, keys.podAnnotations(), () -> HostileText.podValue(random));
    }

    /**
     * Some of {@code keys} with values: mostly about one of them (so that a provider with many
     * backends still meets inputs it decodes whole), now and then about half.
     */
    private static Map<String, String> present(Random random, Set<String> keys, Supplier<String> values) {
        Map<String, String> present = new HashMap<>();
        double chance = random.nextInt(4) == 0 ? 0.5 : 1.0 / Math.max(1, keys.size());
        for (String key : keys.stream().sorted().toList()) {
            if (random.nextDouble() < chance) {
                present.put(key, values.get());
            }
        }
        return present;
    }

    private static Decoded checkNode(DeviceProvider provider, NodeView node, boolean again) {
        NodeDevices devices = provider.decodeNode(node);
        if (!devices.present() && !devices.cards().isEmpty()) {
            throw new AssertionError("cards of a node that does not register the vendor");
        }
        Set<String> uuids = new HashSet<>();
        for (VendorCard card : devices.cards()) {
            checkId(card.card().uuid());
            if (!uuids.add(card.card().uuid())) {
                throw new AssertionError("UUID twice: " + card.card().uuid());
            }
            if (card.card().type().length() > InputLimits.MAX_TEXT_CHARS) {
                throw new AssertionError("type of " + card.card().type().length() + " characters");
            }
        }
        // Each backend reads at most its bound; a provider has a few backends.
        if (devices.cards().size() > 8L * InputLimits.MAX_CARDS_PER_NODE) {
            throw new AssertionError(devices.cards().size() + " cards");
        }
        if (again) {
            NodeView withNoise = new NodeView(node.name(), noisy(node.annotations()), noisy(node.labels()),
                    noisy(node.capacity()), noisy(node.allocatable()));
            if (!provider.decodeNode(withNoise).equals(devices)) {
                throw new AssertionError("undeclared keys changed the result, or decoding is not repeatable");
            }
        }
        return new Decoded(devices.present(), devices.problems());
    }

    private static Decoded checkPod(DeviceProvider provider, Map<String, String> annotations, boolean again) {
        PodDevices devices = provider.decodePod(annotations);
        for (PodAllocation allocation : devices.allocations()) {
            if (!provider.keys().podAnnotations().contains(allocation.key())) {
                throw new AssertionError("allocation under an undeclared key " + allocation.key());
            }
            if (allocation.containers().size() > InputLimits.MAX_CONTAINERS) {
                throw new AssertionError(allocation.containers().size() + " containers");
            }
            for (List<DeviceShare> shares : allocation.containers()) {
                if (shares.size() > InputLimits.MAX_DEVICES_PER_CONTAINER) {
                    throw new AssertionError(shares.size() + " devices");
                }
                shares.forEach(share -> checkId(share.uuid()));
            }
        }
        devices.migInstances().forEach(instance -> checkId(instance.gpuUuid()));
        if (again && !provider.decodePod(noisy(annotations)).equals(devices)) {
            throw new AssertionError("undeclared keys changed the result, or decoding is not repeatable");
        }
        return new Decoded(!devices.allocations().isEmpty() || !devices.migInstances().isEmpty(), devices.problems());
    }

    // Keys no provider declares, with values that would decode if anything read them.
    private static Map<String, String> noisy(Map<String, String> values) {
        Map<String, String> noisy = new HashMap<>(values);
        noisy.put("hami.io/undeclared-register", "GPU-x,1,1,1,T,0,true:");
        noisy.put("example.com/undeclared", "GPU-x,T,1,1:;");
        return noisy;
    }

    private static void checkId(String id) {
        if (id.isEmpty() || id.length() > InputLimits.MAX_SYNTHESISED_ID_CHARS
                || id.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
            throw new AssertionError("identity not printable ASCII of 1 to "
                    + InputLimits.MAX_SYNTHESISED_ID_CHARS + " characters: " + shortly(id));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> castMap(Object input) {
        return (Map<String, String>) input;
    }

    private static String shortly(Object input) {
        String text = String.valueOf(input);
        return text.length() > 2_000 ? text.substring(0, 2_000) + "... (" + text.length() + " characters)" : text;
    }

    /**
     * {@code PROVIDER...}: long runs of the providers so named on the class path,
     * {@code -Dfuzz.count} inputs each (default 10^6) from {@code -Dfuzz.seed}; prints the rate and
     * the outcomes.
     */
    public static void main(String[] args) {
        long count = Long.getLong("fuzz.count", 1_000_000L);
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        Map<String, DeviceProvider> providers = new TreeMap<>();
        ServiceLoader.load(DeviceProvider.class).forEach(provider -> providers.put(provider.name(), provider));
        for (String name : args.length == 0 ? List.copyOf(providers.keySet()) : List.of(args)) {
            DeviceProvider provider = providers.get(name);
            if (provider == null) {
                throw new IllegalArgumentException("no provider " + name + " on the class path; found "
                        + providers.keySet());
            }
            long start = System.nanoTime();
            Outcomes outcomes = run(provider, seed, count);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("vendor-%s: %,d inputs, seed %d, %.1f s (%,.0f/s), nothing escaped%n", name, count, seed,
                    seconds, count / seconds);
            outcomes.counts().forEach((outcome, n) -> System.out.printf("  %-22s %,d%n", outcome, n));
        }
    }
}
