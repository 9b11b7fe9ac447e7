package io.hamiobserve.role.node;

import io.hamiobserve.app.Role;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.app.metrics.SelfMetrics;
import io.hamiobserve.app.metrics.SkipCounter;
import io.hamiobserve.app.metrics.SourceHealth;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.domain.FirstSeen;
import io.hamiobserve.domain.UsageView;
import io.hamiobserve.ports.ContainerUsageSource;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.ProcessOwnerResolver;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The node-side role: at every scrape, reads the driver, HAMi-Core's cache files and the node's
 * pod directory, and serves the usage view with its gap to the allocations. Each source is read
 * in isolation: one that fails is reported in the health series and its series are left out,
 * the others are served.
 */
public final class UsageRole implements Role {
    private static final Logger LOG = Logger.getLogger(UsageRole.class.getName());

    /** Source names in the health and skip series. */
    public static final String HOST_CARDS = "nvml";
    public static final String CONTAINERS = "cachefile";
    public static final String PODS = "pods";
    public static final String PROCESSES = "processes";
    /** Where a node's usage endpoint listens unless told: HAMi's vGPU monitor port. */
    public static final String DEFAULT_BIND = ":9394";

    /** Cache-file records the join to the node's pods leaves out. */
    static final SkipKey UNKNOWN_POD = new SkipKey(CONTAINERS, "container", "unknown_pod");
    static final SkipKey UNKNOWN_DEVICE = new SkipKey(CONTAINERS, "device", "unknown_device");

    /** Driver-listed processes outside HAMi-Core that give no container its use, by reason. */
    static final Map<UsageView.ProcessSkip.Reason, SkipKey> PROCESS_SKIPS = processSkipKeys();

    private static Map<UsageView.ProcessSkip.Reason, SkipKey> processSkipKeys() {
        Map<UsageView.ProcessSkip.Reason, SkipKey> keys = new java.util.EnumMap<>(UsageView.ProcessSkip.Reason.class);
        for (UsageView.ProcessSkip.Reason reason : UsageView.ProcessSkip.Reason.values()) {
            keys.put(reason, new SkipKey(PROCESSES, "process", reason.label()));
        }
        return keys;
    }

    private final String node;
    private final HostCardSource hostCards;
    private final ContainerUsageSource containers;
    private final NodePodDirectory pods;
    private final Optional<ProcessOwnerResolver> processOwners;
    private final FamilyDecorator legacyNames;
    private final BuildInfo build;
    private final Clock clock;
    private final SkipCounter skips = new SkipCounter();
    private final SourceHealth health = new SourceHealth();
    /** When each holder of unmanaged memory (a zombie: use with no share) was first seen. */
    private final FirstSeen<UsageView.UnmanagedMemory.Holder> unmanagedSince = new FirstSeen<>();

    /**
     * @param node          this node's name ({@code NODE_NAME})
     * @param processOwners empty when process attribution is switched off
     */
    public UsageRole(String node, HostCardSource hostCards, ContainerUsageSource containers, NodePodDirectory pods,
                     Optional<ProcessOwnerResolver> processOwners, boolean legacyMetrics, BuildInfo build, Clock clock) {
        this.node = Objects.requireNonNull(node);
        this.hostCards = hostCards;
        this.containers = containers;
        this.pods = pods;
        this.processOwners = processOwners;
        this.legacyNames = legacyMetrics ? UsageMetrics.LEGACY_NAMES : FamilyDecorator.NONE;
        this.build = build;
        this.clock = clock;
    }

    @Override
    public String view() {
        return "usage";
    }

    @Override
    public UsageRole start() {
        pods.start(skips);
        return this;
    }

    @Override
    public Optional<Object> stateStamp() {
        return Optional.empty();
    }

    @Override
    public Exposition collect() {
        List<HostCardReading> cards = read(HOST_CARDS, () -> hostCards.read(skips), List.of());
        List<ContainerUsage> usages = read(CONTAINERS, () -> containers.read(skips), List.of());
        List<NodePod> listedPods = read(PODS, () -> {
            if (!pods.isSynced()) {
                throw new SourceUnavailableException("the node's pod directory has not synced yet");
            }
            return pods.pods();
        }, null);
        // Without the pod directory every owned process would look like an unknown pod's: not counted then.
        boolean podsKnown = listedPods != null;
        List<NodePod> nodePods = podsKnown ? listedPods : List.of();
        Optional<Map<Long, ProcessOwner>> owners = processOwners.flatMap(resolver -> {
            List<Long> pids = processIds(cards);
            return Optional.ofNullable(read(PROCESSES, () -> resolver.owners(pids), null));
        });
        UsageView view = UsageView.compute(node, cards, usages, nodePods, owners, clock.instant().getEpochSecond());
        for (ContainerUsage unknown : view.unknownContainers()) {
            skips.skipped(UNKNOWN_POD, unknown.podUid() + "_" + unknown.containerName());
        }
        for (UsageView.ContainerDevice device : view.unmatchedDevices()) {
            skips.skipped(UNKNOWN_DEVICE, device.pod().namespace() + "/" + device.pod().name()
                    + " " + device.container() + " device " + device.usage().vdeviceIndex() + ": "
                    + device.usage().uuid() + " is neither allocated to the pod nor a card of this node");
        }
        for (UsageView.ProcessSkip skip : podsKnown ? view.processSkips() : List.<UsageView.ProcessSkip>of()) {
            // One count per process, one item per card and reason.
            skips.skipped(PROCESS_SKIPS.get(skip.reason()), skip.processes() + " process(es) on " + skip.uuid(),
                    skip.processes());
        }
        // Only a reading that attributed the processes says who holds memory: a failed one keeps the ages.
        Map<UsageView.UnmanagedMemory.Holder, Long> since = owners.isPresent() && podsKnown
                ? unmanagedSince.observe(view.unmanagedMemory().stream().map(UsageView.UnmanagedMemory::holder).toList(),
                        clock.millis())
                : Map.of();
        return Exposition.of(List.of(legacyNames.decorated(UsageMetrics.collect(view, nodePods, since)),
                SelfMetrics.families(build, skips, health)));
    }

    /** The driver's processes' PIDs, each once, ascending. */
    private static List<Long> processIds(List<HostCardReading> cards) {
        int count = 0;
        for (HostCardReading card : cards) {
            count += card.processes().map(List::size).orElse(0);
        }
        // Sorted and made distinct as primitives: a node asks at every scrape, for every process of every card.
        long[] pids = new long[count];
        int at = 0;
        for (HostCardReading card : cards) {
            for (HostCardReading.CardProcess process : card.processes().orElse(List.of())) {
                pids[at++] = process.pid();
            }
        }
        java.util.Arrays.sort(pids);
        Long[] distinct = new Long[count];
        int kept = 0;
        for (int i = 0; i < count; i++) {
            if (i == 0 || pids[i] != pids[i - 1]) {
                distinct[kept++] = pids[i];
            }
        }
        return java.util.Arrays.asList(distinct).subList(0, kept);
    }

    private interface Read<T> {
        T get() throws SourceUnavailableException;
    }

    /** Reads one source, recording its outcome; a failure yields {@code fallback}, never an exception. */
    private <T> T read(String source, Read<T> read, T fallback) {
        long started = System.nanoTime();
        try {
            T value = read.get();
            health.record(source, true, System.nanoTime() - started, null);
            return value;
        } catch (SourceUnavailableException unavailable) {
            health.record(source, false, System.nanoTime() - started, unavailable.getMessage());
            LOG.log(Level.FINE, "source {0} unavailable: {1}", new Object[] {source, unavailable.getMessage()});
            return fallback;
        } catch (RuntimeException bug) {
            // An adapter must not throw for bad data; if one does, its series go and the rest stay.
            health.record(source, false, System.nanoTime() - started, bug.toString());
            LOG.log(Level.WARNING, "source " + source + " failed", bug);
            return fallback;
        }
    }

    @Override
    public boolean ready() {
        return pods.isSynced();
    }

    @Override
    public String notReadyReason() {
        return "the node's pod directory has not synced yet";
    }

    @Override
    public void close() {
        pods.close();
        hostCards.close();
    }

}
