package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * For operators: what a cache file, a container's directory or a whole containers directory
 * holds, and why anything is rejected. Reads exactly as the exporter does (same reader, same
 * skips), and never writes.
 *
 * <p>Run standalone: {@code java -cp ... io.hamiobserve.adapters.cachefile.CacheFileInspector PATH [--json]};
 * the app exposes it as {@code hami-observe inspect-cache PATH [--json]}.
 */
public final class CacheFileInspector {
    private CacheFileInspector() {
    }

    /**
     * Describes {@code path}: a {@code *.cache} file; a directory holding cache files (one
     * container); or a directory of container directories ({@code $HOOK_PATH/containers}).
     *
     * @param json JSON when true, indented text otherwise
     * @return the description; never throws for bad input
     */
    public static String describe(Path path, boolean json) {
        Map<String, Object> tree;
        try {
            tree = describe(path);
        } catch (RuntimeException e) {
            tree = new LinkedHashMap<>();
            tree.put("path", path.toString());
            tree.put("error", e.toString());
        }
        return json ? Tree.json(tree) : Tree.text(tree);
    }

    /** Describes decoded content (tests and the fuzzer use it). */
    static String describe(CacheFileContent content, boolean json) {
        Map<String, Object> tree = content(content);
        return json ? Tree.json(tree) : Tree.text(tree);
    }

    private static Map<String, Object> describe(Path path) {
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            return file(path, new CacheFileReader());
        }
        if (holdsCacheFiles(path)) {
            return container(path);
        }
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("containers_directory", path.toString());
        Recorder skips = new Recorder();
        List<ContainerUsage> usages = CacheFiles.directory(path).read(skips);
        List<Object> served = new ArrayList<>();
        usages.forEach(usage -> served.add(usage(usage)));
        tree.put("served", served);
        tree.put("skipped", skips.entries);
        List<Object> files = new ArrayList<>();
        CacheFileReader reader = new CacheFileReader();
        for (Path directory : list(path)) {
            if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
                for (Path file : cacheFiles(directory)) {
                    files.add(file(file, reader));
                }
            }
        }
        tree.put("files", files);
        return tree;
    }

    private static Map<String, Object> container(Path directory) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("container_directory", directory.toString());
        Recorder skips = new Recorder();
        CacheFileReader reader = new CacheFileReader();
        ContainerUsage usage = CacheFileSource.readContainer(directory, reader, skips);
        tree.put("served", usage == null ? List.of() : List.of(usage(usage)));
        tree.put("skipped", skips.entries);
        List<Object> files = new ArrayList<>();
        for (Path file : cacheFiles(directory)) {
            files.add(file(file, reader));
        }
        tree.put("files", files);
        return tree;
    }

    private static Map<String, Object> file(Path path, CacheFileReader reader) {
        ReadResult result = reader.read(path);
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("file", path.toString());
        if (!result.ok()) {
            tree.put("status", "rejected");
            tree.put("reason", result.reason().label());
            tree.put("detail", result.detail());
            return tree;
        }
        tree.put("status", "read");
        tree.putAll(content(result.content()));
        return tree;
    }

    private static Map<String, Object> content(CacheFileContent c) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("format", c.layout().name);
        tree.put("version", c.version());
        tree.put("size_bytes", c.fileSize());
        tree.put("owner_pid", c.ownerPid());
        tree.put("device_num", Long.toUnsignedString(c.deviceNumRaw()));
        tree.put("proc_num", c.procNumRaw());
        tree.put("utilization_switch", c.utilizationSwitch());
        tree.put("recent_kernel", c.recentKernel());
        tree.put("priority", c.priority());
        tree.put("last_kernel_time", c.layout().hasLastKernelTime() ? c.lastKernelTime() : "not recorded in v0");
        List<Object> devices = new ArrayList<>();
        for (CacheFileContent.Device d : c.devices()) {
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("index", d.index());
            device.put("uuid", d.usable() ? d.uuid() : "(" + d.uuidProblem().label() + ")");
            device.put("limit_bytes", d.limitBytes());
            device.put("sm_limit_percent", d.smLimitPercent());
            devices.add(device);
        }
        tree.put("devices", devices);
        List<Object> processes = new ArrayList<>();
        int free = 0;
        for (CacheFileContent.Slot s : c.slots()) {
            if (!s.live()) {
                free++;
                continue;
            }
            Map<String, Object> process = new LinkedHashMap<>();
            process.put("slot", s.index());
            process.put("pid", s.pid());
            process.put("host_pid", s.hostPid());
            process.put("status", s.status() == CacheLayout.STATUS_RUNNING ? "running" : "suspended");
            if (c.layout().slotSeqlock != CacheLayout.ABSENT) {
                process.put("seqlock", s.seqlock());
            }
            List<Object> uses = new ArrayList<>();
            for (int d = 0; d < s.totalBytes().length; d++) {
                if (s.uses(d)) {
                    Map<String, Object> use = new LinkedHashMap<>();
                    use.put("device", d);
                    use.put("total_bytes", s.totalBytes()[d]);
                    use.put("context_bytes", s.contextBytes()[d]);
                    use.put("module_bytes", s.moduleBytes()[d]);
                    use.put("data_bytes", s.dataBytes()[d]);
                    use.put("sm_util_percent", s.smUtil()[d]);
                    uses.add(use);
                }
            }
            process.put("devices", uses);
            processes.add(process);
        }
        tree.put("live_processes", processes);
        tree.put("exited_slots", free);
        List<Object> problems = new ArrayList<>();
        for (CacheFileContent.Problem p : c.problems()) {
            problems.add(skip(p.kind().label(), p.reason().label(), p.detail()));
        }
        tree.put("problems", problems);
        List<Object> usage = new ArrayList<>();
        ContainerAccounting.of(c).forEach(d -> usage.add(device(d)));
        tree.put("usage", usage);
        return tree;
    }

    private static Map<String, Object> usage(ContainerUsage usage) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("pod_uid", usage.podUid());
        tree.put("container", usage.containerName());
        List<Object> devices = new ArrayList<>();
        usage.devices().forEach(d -> devices.add(device(d)));
        tree.put("devices", devices);
        return tree;
    }

    private static Map<String, Object> device(DeviceUsage d) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("vdevice_index", d.vdeviceIndex());
        tree.put("uuid", d.uuid());
        tree.put("used_bytes", d.usedBytes());
        tree.put("context_bytes", d.contextBytes());
        tree.put("module_bytes", d.moduleBytes());
        tree.put("buffer_bytes", d.bufferBytes());
        tree.put("limit_bytes", d.limitBytes());
        tree.put("sm_limit_percent", d.smLimitPercent());
        tree.put("sm_util_percent", d.smUtilPercent());
        tree.put("live_processes", d.liveProcesses());
        tree.put("last_kernel_time", d.lastKernelEpochSeconds());
        return tree;
    }

    private static Map<String, Object> skip(String kind, String reason, String item) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("kind", kind);
        tree.put("reason", reason);
        tree.put("item", item);
        return tree;
    }

    private static boolean holdsCacheFiles(Path directory) {
        return !cacheFiles(directory).isEmpty();
    }

    private static List<Path> cacheFiles(Path directory) {
        List<Path> files = new ArrayList<>();
        for (Path entry : list(directory)) {
            if (entry.getFileName().toString().endsWith(CacheFileSource.SUFFIX)) {
                files.add(entry);
            }
            if (files.size() > CacheFileSource.MAX_CACHE_FILES) {
                break;
            }
        }
        return files;
    }

    private static List<Path> list(Path directory) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path entry : stream) {
                entries.add(entry);
                if (entries.size() >= CacheFileSource.MAX_ENTRIES) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            return entries;
        }
        entries.sort(null);
        return entries;
    }

    private static final class Recorder implements SkipReporter {
        final List<Object> entries = new ArrayList<>();

        @Override
        public void skipped(SkipKey key, String item) {
            entries.add(skip(key.kind(), key.reason(), item));
        }
    }

    /** {@code PATH [--json]}: prints the description. Exit status 2 on a usage error. */
    public static void main(String[] args) {
        boolean json = false;
        Path path = null;
        for (String arg : args) {
            if (arg.equals("--json")) {
                json = true;
            } else if (path == null && !arg.startsWith("--")) {
                path = Path.of(arg);
            } else {
                path = null;
                break;
            }
        }
        if (path == null) {
            System.err.println("usage: inspect-cache PATH [--json]   (a *.cache file, a container directory,"
                    + " or $HOOK_PATH/containers)");
            System.exit(2);
        }
        System.out.print(describe(path, json));
    }
}
