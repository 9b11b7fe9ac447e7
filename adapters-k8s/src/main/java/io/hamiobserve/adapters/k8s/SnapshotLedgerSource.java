package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The ledger from a dump file of Kubernetes objects ({@link SnapshotReader} says which files are
 * dumps). Nodes, Pods, ResourceQuotas, ReplicaSets and Jobs (the pods' intermediate owners,
 * metadata only) are applied as the file is read; other kinds are ignored. An object that does not map is reported and skipped.
 *
 * <p>A file that is not a dump leaves the ledger unsynced and the source failed for good
 * ({@link #failure()}): the endpoint is not ready and says why, and {@code --once} exits with the
 * message, rather than serving an empty ledger as if the cluster had no GPUs.
 */
final class SnapshotLedgerSource implements SchedulerLedgerSource {
    private static final Logger LOG = Logger.getLogger(SnapshotLedgerSource.class.getName());
    private final Path file;
    private final DeviceProviders providers;
    private final Clock clock;
    private volatile Failure failure;

    SnapshotLedgerSource(Path file, DeviceProviders providers, Clock clock) {
        this.file = file;
        this.providers = providers;
        this.clock = clock;
    }

    @Override
    public void start(Ledger ledger, SkipReporter reporter) {
        Skips skips = new Skips(reporter);
        LedgerFeed feed = new LedgerFeed(ledger, providers, skips);
        SnapshotReader.Summary summary;
        try {
            summary = SnapshotReader.read(file, object -> apply(object, feed, LedgerMapping.serialization(), skips), skips);
        } catch (SnapshotReader.NotADumpException notADump) {
            String message = "snapshot " + SkipReporter.loggable(file.toString()) + ": " + notADump.getMessage();
            failure = new Failure(message, false);
            LOG.severe(message);
            return;
        }
        LOG.info(() -> "snapshot " + SkipReporter.loggable(file.toString()) + " applied to the ledger: "
                + summary.objects() + " objects, " + summary.bytes() + " bytes of " + summary.format());
        ledger.markSynced(clock.millis());
    }

    /** Applies one object of a dump: Nodes, Pods, ResourceQuotas, ReplicaSets and Jobs; an object that does not map is skipped. */
    static void apply(JsonNode object, LedgerFeed feed, KubernetesSerialization serialization, Skips skips) {
        String kind = object.path("kind").asString("");
        try {
            switch (kind) {
                case "Node" -> feed.putNode(serialization.convertValue(object, Node.class));
                case "Pod" -> feed.putPod(serialization.convertValue(object, Pod.class));
                case "ResourceQuota" -> feed.putQuota(serialization.convertValue(object, ResourceQuota.class));
                case InformerLedgerSource.REPLICA_SET -> feed.putOwner(serialization.convertValue(object,
                        ReplicaSet.class), InformerLedgerSource.REPLICA_SET);
                case InformerLedgerSource.JOB -> feed.putOwner(serialization.convertValue(object, Job.class),
                        InformerLedgerSource.JOB);
                default -> {
                    // Other kinds (kubectl get all) are not part of the ledger.
                }
            }
        } catch (RuntimeException bad) {
            String item = kind + " " + object.path("metadata").path("namespace").asString("") + "/"
                    + object.path("metadata").path("name").asString("");
            skips.skip(Kind.SNAPSHOT, item, Reason.BAD_OBJECT, String.valueOf(bad.getMessage()));
        }
    }

    @Override
    public Optional<Failure> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public void close() {
        // Nothing held: the file was read once in start.
    }
}
