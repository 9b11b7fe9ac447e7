package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * For operators: what a cache file, a container's directory or a whole containers directory
 * holds, and why anything is rejected. Reads exactly as the exporter does: the same walk of a
 * directory (the same files, in the same order, no more), the same reader, the same skips; never
 * writes. One description is built and printed as indented text or as JSON (written by Jackson,
 * every character beyond ASCII escaped), so both always say the same.
 *
 * <p>The app exposes it as {@code hami-observe inspect-cache PATH [--json]}.
 */
public final class CacheFileInspector {
    private static final ObjectWriter JSON = JsonMapper.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build()
            .writer().with(new DefaultPrettyPrinter().withSeparators(Separators.createDefaultInstance()
                    .withObjectNameValueSpacing(Separators.Spacing.AFTER)));

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
        return json ? JSON.writeValueAsString(tree) + "\n" : TextTree.text(tree);
    }

    private static Map<String, Object> describe(Path path) {
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            return file(path, new CacheFileReader().read(path));
        }
        List<Path> cacheFiles = CacheFileSource.cacheFiles(path, SkipReporter.NONE);
        boolean oneContainer = cacheFiles != null && !cacheFiles.isEmpty();
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put(oneContainer ? "container_directory" : "containers_directory", path.toString());
        Recorder skips = new Recorder();
        List<Object> files = new ArrayList<>();
        CacheFileSource.FileSeen seen = (file, result) -> files.add(file(file, result));
        List<ContainerUsage> usages;
        if (oneContainer) {
            ContainerUsage usage = CacheFileSource.readContainer(path, new CacheFileReader(), skips, seen);
            usages = usage == null ? List.of() : List.of(usage);
        } else {
            usages = new CacheFileSource(path, false).read(skips, seen);
        }
        List<Object> served = new ArrayList<>();
        usages.forEach(usage -> served.add(usage(usage)));
        tree.put("served", served);
        tree.put("skipped", skips.entries);
        tree.put("files", files);
        return tree;
    }

    private static Map<String, Object> file(Path path, ReadResult result) {
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

    /** What one file's content says, field by field. */
    static Map<String, Object> content(CacheFileContent c) {
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
            processes.add(process(c, s));
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

    private static Map<String, Object> process(CacheFileContent c, CacheFileContent.Slot s) {
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
        return process;
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

    private static final class Recorder implements SkipReporter {
        final List<Object> entries = new ArrayList<>();

        @Override
        public void skipped(SkipKey key, String item) {
            entries.add(skip(key.kind(), key.reason(), item));
        }
    }
}
