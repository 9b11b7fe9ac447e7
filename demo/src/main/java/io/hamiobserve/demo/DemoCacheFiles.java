package io.hamiobserve.demo;

import io.hamiobserve.testkit.CacheFileImage;
import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.ports.ContainerUsageSource;
import io.hamiobserve.ports.SkipReporter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo node's HAMi-Core: writes each managed container's accounting into a real cache file
 * in HAMi-Core's binary layout ({@code <root>/<podUID>_<container>/demo.cache}, format v1.2), the
 * way HAMi-Core updates it in place under the slot seqlock, and reads it back through the real
 * cache-file adapter. The demo therefore exercises the same reading path as a GPU node.
 */
public final class DemoCacheFiles implements ContainerUsageSource {
    private static final String FILE_NAME = "demo.cache";
    private static final int HAMI_CORE_MINOR_VERSION = 2;

    private final DemoWorkload workload;
    private final String node;
    private final Path containersDirectory;
    private final ContainerUsageSource reader;
    private final DemoCacheRoot root;

    /** Files go to {@code containersDirectory}, which plays {@code $HOOK_PATH/containers}. */
    public DemoCacheFiles(DemoWorkload workload, String node, Path containersDirectory) {
        this(workload, node, containersDirectory, null);
    }

    /** Files go to {@code <root>/<node>/containers}, and stop when {@code root} is removed. */
    public DemoCacheFiles(DemoWorkload workload, String node, DemoCacheRoot root) {
        this(workload, node, root.path().resolve(node).resolve("containers"), root);
    }

    private DemoCacheFiles(DemoWorkload workload, String node, Path containersDirectory, DemoCacheRoot root) {
        this.workload = workload;
        this.node = node;
        this.containersDirectory = containersDirectory;
        this.reader = CacheFiles.directory(containersDirectory);
        this.root = root;
    }

    public Path containersDirectory() {
        return containersDirectory;
    }

    @Override
    public List<ContainerUsage> read(SkipReporter skips) {
        try {
            boolean written = root == null ? write() : root.whileOpen(this::write);
            if (!written) {
                throw new UncheckedIOException(new IOException("the demo is stopping: its cache files are removed"));
            }
        } catch (IOException writeFailed) {
            throw new UncheckedIOException("the demo could not write its cache files in " + containersDirectory,
                    writeFailed);
        }
        return reader.read(skips);
    }

    private boolean write() throws IOException {
        writeCurrentAccounting();
        return true;
    }

    /** Brings every container's file up to the workload's current figures, as HAMi-Core would. */
    synchronized void writeCurrentAccounting() throws IOException {
        long now = workload.clock().instant().getEpochSecond();
        for (ContainerUsage usage : workload.containerUsages(node)) {
            Path file = containersDirectory.resolve(usage.podUid() + "_" + usage.containerName()).resolve(FILE_NAME);
            CacheFileImage.Process process = process(usage);
            long lastKernel = usage.devices().stream().mapToLong(DeviceUsage::lastKernelEpochSeconds).max().orElse(0);
            if (Files.isRegularFile(file)) {
                try (CacheFileImage.Updater updater = CacheFileImage.update(file)) {
                    updater.writeProcess(0, process);
                    updater.setLastKernelTime(lastKernel);
                }
            } else {
                Files.createDirectories(file.getParent());
                CacheFileImage.Builder image = CacheFileImage.v1(HAMI_CORE_MINOR_VERSION)
                        .ownerPid(process.hostPid())
                        .lastKernelTime(Math.min(lastKernel, now));
                for (DeviceUsage device : usage.devices()) {
                    image.device(device.uuid(), device.limitBytes(), device.smLimitPercent());
                }
                image.process(process).build().writeTo(file);
            }
        }
    }

    /** The container's one process, using each of its devices as the workload says. */
    private static CacheFileImage.Process process(ContainerUsage usage) {
        List<CacheFileImage.DeviceUse> uses = new ArrayList<>();
        for (DeviceUsage device : usage.devices()) {
            uses.add(new CacheFileImage.DeviceUse(device.contextBytes(), device.moduleBytes(), device.bufferBytes(),
                    device.usedBytes(), device.smUtilPercent()));
        }
        int pid = 1 + Math.abs(usage.podUid().hashCode() % 30_000);
        return new CacheFileImage.Process(pid, 100_000 + pid, CacheFileImage.STATUS_RUNNING, uses);
    }
}
