package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.ports.ProcessOwnerResolver;
import io.hamiobserve.ports.SourceUnavailableException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who owns a host process, from {@code <procRoot>/<pid>/cgroup}: the pod UID (with dashes) and the
 * runtime's container ID (64 hex for containerd, CRI-O and Docker, without any scheme).
 *
 * <p>Needs the host's process table: the exporter's pod runs with {@code hostPID: true} and can
 * read {@code /proc}. When {@code procRoot} itself cannot be read, {@link #owners} throws
 * {@link SourceUnavailableException} with that reason. A pid that has exited, is not visible
 * (another PID namespace) or belongs to no pod is simply absent from the answer. Stateless and
 * thread-safe.
 */
public final class ProcCgroupOwners implements ProcessOwnerResolver {
    /** A cgroup file is a few hundred bytes; more than this is not a real one. */
    private static final int MAX_CGROUP_FILE = 64 * 1024;

    private final Path procRoot;

    private ProcCgroupOwners(Path procRoot) {
        this.procRoot = procRoot;
    }

    /** A resolver over the given proc file system, normally {@code /proc}. */
    public static ProcCgroupOwners of(Path procRoot) {
        return new ProcCgroupOwners(Objects.requireNonNull(procRoot, "procRoot"));
    }

    @Override
    public Map<Long, ProcessOwner> owners(Collection<Long> hostPids) throws SourceUnavailableException {
        if (!Files.isDirectory(procRoot) || !Files.isReadable(procRoot)) {
            throw new SourceUnavailableException("cannot read " + procRoot + " to attribute GPU processes to pods;"
                    + " the exporter needs the host's /proc (hostPID: true and read access)");
        }
        Map<Long, ProcessOwner> owners = new HashMap<>();
        for (Long pid : hostPids) {
            if (pid == null || pid <= 0) {
                continue;
            }
            ownerOf(pid).ifPresent(owner -> owners.put(pid, owner));
        }
        return owners;
    }

    private Optional<ProcessOwner> ownerOf(long pid) {
        Path file = procRoot.resolve(Long.toString(pid)).resolve("cgroup");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_CGROUP_FILE);
            return CgroupOwner.parse(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException gone) {
            // Exited between the driver's listing and now, or not visible to us: no owner.
            return Optional.empty();
        }
    }
}
