package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hamiobserve.adapters.k8s.fuzz.FuzzInputs;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.vendors.protocol.testing.ProviderFuzz;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Fuzzes every path of untrusted text through the Kubernetes adapter: NVIDIA's node register
 * annotation (JSON and {@code :}-record forms), its pod allocation annotation and MIG allocations,
 * each on a real node or pod handed to the device providers on the class path, ResourceQuota
 * quantities, unscheduled pods' {@code PodScheduled} messages and creation times (unmet demand), and
 * dumps in YAML and JSON. Inputs come from {@link FuzzInputs}; each goes through
 * the real feed into a real {@link Ledger}. For any input, the only outcomes allowed are a
 * decoded value within the domain's bounds and skips whose reasons are in the adapter's or the
 * providers' stable vocabulary ({@link #REASONS}); an exception, an unknown reason, a skip that
 * says a decoder threw ({@code invalid_object}), or a view with a negative figure is a failure.
 *
 * <p>Targets: {@code register}, {@code allocation}, {@code mig}, {@code quota}, {@code pending}, {@code dump-yaml},
 * {@code dump-json}. Long runs: {@code bin/fuzz TARGET [--count N] [--seed S]}.
 */
public final class DecoderFuzz {
    /**
     * Every reason the adapter's decoders skip with; a reason outside this set fails the run, and so
     * does {@code invalid_object}: it is what an exception escaping a decoder is counted as.
     */
    static final Set<String> REASONS = java.util.stream.Stream.concat(java.util.Arrays.stream(Skips.Reason.values())
            .filter(reason -> reason != Skips.Reason.INVALID_OBJECT)
            .map(Skips.Reason::label), ProviderFuzz.REASONS.stream())
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    /** A card or MIG UUID the providers let through: 1 to 285 characters (synthesised from a node name) of printable ASCII. */
    private static final int MAX_UUID_CHARS = 285;
    static final long DEFAULT_SEED = 20_260_113L;
    static final List<String> TARGETS = List.of("register", "allocation", "mig", "quota", "pending", "dump-yaml",
            "dump-json");
    /** Real PodScheduled messages, the seeds of the {@code pending} target's mutations. */
    private static final List<String> CONDITION_MESSAGES = List.of(
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 3/4 CardInsufficientMemory.",
            "0/2 nodes are available: 1 4/4 CardInsufficientCore, 1 8/8 CardTypeMismatch. preemption: 0/2 nodes are "
                    + "available: 2 Preemption is not helpful for scheduling.",
            "0/5 nodes are available: 5 ResourceQuotaNotFit.");

    private DecoderFuzz() {
    }

    /** How a run ended: outcomes counted by reason (or "ok", "not_a_dump"). */
    record Outcomes(Map<String, Long> counts) {
    }

    /** Runs {@code count} inputs of {@code target} from {@code seed}; throws on the first escape. */
    static Outcomes run(String target, long seed, long count) {
        Random random = new Random(seed);
        Map<String, Long> counts = new TreeMap<>();
        long[] skipped = new long[1];
        Ledger ledger = new Ledger();
        SkipReporter reporter = (key, item) -> {
            if (!REASONS.contains(key.reason())) {
                throw new AssertionError("skip with reason '" + key.reason() + "' (" + key.kind() + "): "
                        + SkipReporter.loggable(item));
            }
            skipped[0]++;
            counts.merge(key.reason(), 1L, Long::sum);
        };
        LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(reporter));
        BiConsumer<Long, String> one = switch (target) {
            case "register" -> {
                io.fabric8.kubernetes.api.model.Node node = Fixtures.node("n1", "[]");
                yield (i, value) -> {
                    node.getMetadata().getAnnotations().put(Fixtures.REGISTER, value);
                    feed.putNode(node);
                    for (AllocationView.CardAllocation card : ledger.view().cards()) {
                        checkUuid(card.card().uuid());
                    }
                };
            }
            case "allocation" -> {
                Pod pod = Fixtures.pod("ns", "p", "n1", "", "c0", "c1", "c2", "c3").build();
                yield (i, value) -> {
                    pod.getMetadata().getAnnotations().put(Fixtures.ALLOCATED, value);
                    feed.putPod(pod);
                    for (AllocationView.ContainerAllocation container : ledger.view().containers()) {
                        checkUuid(container.uuid());
                    }
                };
            }
            case "mig" -> {
                Pod pod = Fixtures.pod("ns", "p", "n1", "GPU-0001,NVIDIA,1,1:;", "c").build();
                PodMapper mapper = new PodMapper(DeviceProviders.load());
                Skips skips = new Skips(reporter);
                yield (i, value) -> {
                    pod.getMetadata().getAnnotations().put(Fixtures.MIG, value);
                    PodPlacement placement = mapper.toPlacement(pod, skips).orElseThrow();
                    placement.migInstances().forEach(DecoderFuzz::checkMig);
                    ledger.putPod(placement);
                };
            }
            case "quota" -> {
                ResourceQuota quota = Fixtures.quota("ns", "q", Map.of("limits.nvidia.com/gpumem", "1"));
                yield (i, value) -> {
                    Quantity memory;
                    try {
                        memory = new Quantity(value);
                    } catch (IllegalArgumentException unparsable) {
                        // fabric8 refuses the text before any decoder sees it (a dump skips the object).
                        counts.merge("unparsable_quantity", 1L, Long::sum);
                        return;
                    }
                    quota.getSpec().getHard().put("limits.nvidia.com/gpumem", memory);
                    feed.putQuota(quota);
                };
            }
            case "pending" -> {
                // An unscheduled pod whose condition message (and, every other input, creation time) is hostile.
                Pod pod = PendingInformerTest.unscheduled("waiting", "nvidia.com/gpumem", "");
                yield (i, value) -> {
                    pod.getStatus().getConditions().getFirst().setMessage(value);
                    pod.getMetadata().setCreationTimestamp(i % 2 == 0 ? PendingInformerTest.CREATED : value);
                    feed.putUnscheduled(pod);
                    if (ledger.pendingCount() > 1) {
                        throw new AssertionError(ledger.pendingCount() + " pending pods for one");
                    }
                };
            }
            case "dump-yaml", "dump-json" -> {
                KubernetesSerialization serialization = LedgerMapping.serialization();
                DeviceProviders providers = DeviceProviders.load();
                // Each dump is a snapshot of its own: a fresh ledger, as a restarted exporter would have.
                yield (i, text) -> dump(text, new Ledger(), providers, serialization, reporter, counts);
            }
            default -> throw new IllegalArgumentException("no fuzz target " + target + "; targets: " + TARGETS);
        };
        boolean json = target.equals("dump-json");
        for (long i = 0; i < count; i++) {
            String input = switch (target) {
                case "register" -> FuzzInputs.registerValue(random);
                case "allocation" -> FuzzInputs.allocationValue(random);
                case "mig" -> FuzzInputs.migValue(random);
                case "quota" -> FuzzInputs.quantity(random);
                case "pending" -> FuzzInputs.mutate(CONDITION_MESSAGES.get(random.nextInt(CONDITION_MESSAGES.size())),
                        random, true);
                default -> FuzzInputs.dump(random, json, random.nextInt(6));
            };
            try {
                long before = skipped[0];
                one.accept(i, input);
                if (skipped[0] == before) {
                    counts.merge("ok", 1L, Long::sum);
                }
                if (i % 4096 == 0) {
                    checkView(ledger.view());
                }
            } catch (Throwable escaped) {
                throw new AssertionError(target + " input " + i + " of seed " + seed + " escaped: "
                        + SkipReporter.loggable(input), escaped);
            }
        }
        checkView(ledger.view());
        return new Outcomes(counts);
    }

    private static void dump(String text, Ledger ledger, DeviceProviders providers,
                             KubernetesSerialization serialization, SkipReporter reporter, Map<String, Long> counts) {
        Skips skips = new Skips(reporter);
        LedgerFeed feed = new LedgerFeed(ledger, providers, skips);
        try {
            SnapshotReader.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                    object -> SnapshotLedgerSource.apply(object, feed, serialization, skips), skips);
        } catch (SnapshotReader.NotADumpException notADump) {
            // SnakeYAML refuses a whole stream holding a raw control character in its first buffer.
            String message = notADump.getMessage();
            if (message.isBlank() || message.contains("\n")) {
                throw new AssertionError("not a one-line message: " + message);
            }
            counts.merge("not_a_dump", 1L, Long::sum);
            return;
        } catch (IOException impossible) {
            throw new AssertionError(impossible);
        }
        AllocationView.CardAllocation steady = ledger.view().cards().stream()
                .filter(card -> card.card().uuid().equals("GPU-STEADY")).findFirst()
                .orElseThrow(() -> new AssertionError("the steady node is missing"));
        if (steady.allocatedMemoryMib() != 1000 || !steady.node().equals("steady-node")) {
            throw new AssertionError("the steady pod does not count as it should: " + steady);
        }
    }

    private static void checkMig(MigInstance instance) {
        checkUuid(instance.gpuUuid());
        if (!instance.migUuid().isEmpty()) {
            checkUuid(instance.migUuid());
        }
        if (instance.containerIndex() < 0 || instance.placementStart() < 0 || instance.gpuInstanceId() < 0) {
            throw new AssertionError("negative MIG figure: " + instance);
        }
    }

    private static void checkUuid(String uuid) {
        if (uuid.isEmpty() || uuid.length() > MAX_UUID_CHARS
                || uuid.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
            throw new AssertionError("UUID not printable ASCII of 1 to 285 characters: " + SkipReporter.loggable(uuid));
        }
    }

    /** Every figure of a view is within what the domain promises: never negative, bytes saturated. */
    static void checkView(AllocationView view) {
        for (AllocationView.CardAllocation card : view.cards()) {
            if (card.allocatedMemoryMib() < 0 || card.allocatedCores() < 0 || card.sharedContainers() < 0
                    || card.allocatedMemoryBytes() < 0 || card.card().memoryMib() > Quantities.MAX_MEMORY_MIB) {
                throw new AssertionError("card figures out of range: " + card);
            }
            card.memoryAllocatedFraction().ifPresent(fraction -> {
                if (!(fraction >= 0) || Double.isInfinite(fraction)) {
                    throw new AssertionError("fraction " + fraction);
                }
            });
        }
        for (AllocationView.ContainerAllocation container : view.containers()) {
            if (container.memoryBytes() < 0 || container.cores() < 0) {
                throw new AssertionError("container figures out of range: " + container);
            }
        }
        for (AllocationView.QuotaUsage quota : view.quotas()) {
            if (quota.used() < 0 || quota.limit().orElse(0) < 0) {
                throw new AssertionError("quota figures out of range: " + quota);
            }
        }
    }

    /**
     * {@code TARGET...}: long runs, {@code -Dfuzz.count} inputs each (default 10^6) from
     * {@code -Dfuzz.seed}; prints the rate and the outcomes.
     */
    public static void main(String[] args) {
        long count = Long.getLong("fuzz.count", 1_000_000L);
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        for (String target : args.length == 0 ? TARGETS : List.of(args)) {
            long start = System.nanoTime();
            Outcomes outcomes = run(target, seed, count);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%s: %,d inputs, seed %d, %.1f s (%,.0f/s), nothing escaped%n", target, count, seed,
                    seconds, count / seconds);
            outcomes.counts().forEach((outcome, n) -> System.out.printf("  %-22s %,d%n", outcome, n));
        }
    }
}
