package io.hamiobserve.role.node;

import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.Twins;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.UsageView;
import io.hamiobserve.domain.UsageView.CardMemoryGap;
import io.hamiobserve.domain.UsageView.ContainerDevice;
import io.hamiobserve.domain.UsageView.ContainerMemoryGap;
import io.hamiobserve.domain.UsageView.ProcessUsage;
import io.hamiobserve.domain.UsageView.UnmanagedMemory;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.exposition.MetricFamily.gauge;
import static io.hamiobserve.exposition.MetricFamily.hamiGauge;

/**
 * The usage endpoint's catalogue (HAMi vGPU monitor, reference §3) and how a {@link UsageView}
 * becomes its series. HAMi's names, HELP texts, labels and units are kept exactly; additions are
 * prefixed {@code hami_observe_}.
 */
public final class UsageMetrics {
    private static final String[] CONTAINER_LABELS = {"namespace", "pod", "container", "vdevice_index", "device_uuid"};
    private static final String[] LEGACY_CONTAINER_LABELS = {"podnamespace", "podname", "ctrname", "vdeviceid",
            "deviceuuid"};
    private static final String[] HOST_LABELS = {"node", "device_index", "device_uuid", "device_type"};

    // HAMi's host series.
    static final MetricFamily HOST_MEMORY_USED = hamiGauge("hami_host_gpu_memory_used_bytes",
            "GPU device memory usage in bytes", HOST_LABELS);
    static final MetricFamily HOST_UTILIZATION = hamiGauge("hami_host_gpu_utilization_ratio",
            "GPU core utilization ratio (0-100)", HOST_LABELS);
    static final MetricFamily HOST_MEMORY_CONTROLLER_UTILIZATION = hamiGauge(
            "hami_host_gpu_memory_controller_utilization_ratio",
            "GPU memory controller utilization ratio (0-100)", "device_index", "device_uuid", "device_type");

    // HAMi's container series.
    static final MetricFamily VGPU_MEMORY_USED = hamiGauge("hami_vgpu_memory_used_bytes",
            "vGPU device memory usage in bytes", CONTAINER_LABELS);
    static final MetricFamily VGPU_MEMORY_LIMIT = hamiGauge("hami_vgpu_memory_limit_bytes",
            "vGPU device memory limit in bytes", CONTAINER_LABELS);
    static final MetricFamily CONTAINER_DEVICE_MEMORY = hamiGauge("hami_container_device_memory_bytes",
            "Container device memory usage in bytes", CONTAINER_LABELS);
    static final MetricFamily CONTAINER_UTILIZATION = hamiGauge("hami_container_device_utilization_ratio",
            "Container device SM utilization ratio", CONTAINER_LABELS);
    static final MetricFamily CONTAINER_LAST_KERNEL = hamiGauge("hami_container_last_kernel_elapsed_seconds",
            "Seconds since last kernel execution in container", CONTAINER_LABELS);
    static final MetricFamily MEMORY_CONTEXT = hamiGauge("hami_vgpu_memory_context_bytes",
            "Container device memory context size in bytes", CONTAINER_LABELS);
    static final MetricFamily MEMORY_MODULE = hamiGauge("hami_vgpu_memory_module_bytes",
            "Container device memory module size in bytes", CONTAINER_LABELS);
    static final MetricFamily MEMORY_BUFFER = hamiGauge("hami_vgpu_memory_buffer_bytes",
            "Container device memory buffer size in bytes", CONTAINER_LABELS);
    static final MetricFamily MIG_DEVICE_INFO = hamiGauge("hami_mig_device_info",
            "MIG runtime identity for a container allocation", "namespace", "pod", "container", "vdevice_index",
            "device_uuid", "mig_uuid", "profile", "gpu_instance_id", "compute_instance_id");

    // Pre-2.9 names, behind --legacy-metrics: twins of the modern families (LEGACY_NAMES).
    static final MetricFamily LEGACY_HOST_MEMORY = hamiGauge("HostGPUMemoryUsage",
            "GPU device memory usage in bytes", "nodeid", "deviceidx", "deviceuuid", "devicetype");
    static final MetricFamily LEGACY_HOST_CORE = hamiGauge("HostCoreUtilization",
            "GPU core utilization ratio (0-100)", "nodeid", "deviceidx", "deviceuuid", "devicetype");
    static final MetricFamily LEGACY_MEMORY_USAGE = hamiGauge("vGPU_device_memory_usage_in_bytes",
            "vGPU device memory usage in bytes", LEGACY_CONTAINER_LABELS);
    static final MetricFamily LEGACY_MEMORY_LIMIT = hamiGauge("vGPU_device_memory_limit_in_bytes",
            "vGPU device memory limit in bytes", LEGACY_CONTAINER_LABELS);
    static final MetricFamily LEGACY_UTILIZATION = hamiGauge("Device_utilization_desc_of_container",
            "Container device SM utilization ratio", LEGACY_CONTAINER_LABELS);
    static final MetricFamily LEGACY_LAST_KERNEL = hamiGauge("Device_last_kernel_of_container",
            "Seconds since last kernel execution in container", LEGACY_CONTAINER_LABELS);
    static final MetricFamily LEGACY_MEMORY_DESC = hamiGauge("Device_memory_desc_of_container",
            "Container device memory description", "podnamespace", "podname", "ctrname", "vdeviceid", "deviceuuid",
            "context", "module", "data", "offset");
    static final MetricFamily LEGACY_MIG_INFO = hamiGauge("MigInfo",
            "MIG runtime identity for a container allocation", "podnamespace", "podname", "ctrname", "vdeviceid",
            "deviceuuid", "migname", "instanceid");

    // Additions of this project: the card beyond HAMi's two host series.
    static final MetricFamily HOST_MEMORY_TOTAL = gauge("hami_observe_host_gpu_memory_total_bytes",
            "GPU device memory in all, from the driver", HOST_LABELS);
    static final MetricFamily HOST_TEMPERATURE = gauge("hami_observe_host_gpu_temperature_celsius",
            "GPU core temperature from the driver", HOST_LABELS);
    static final MetricFamily HOST_POWER = gauge("hami_observe_host_gpu_power_watts",
            "GPU power draw from the driver", HOST_LABELS);
    static final MetricFamily HOST_INFO = gauge("hami_observe_host_gpu_info",
            "Driver identity of a GPU; value 1", "node", "device_index", "device_uuid", "device_type", "pci_bus_id");

    // Additions: container detail HAMi does not export.
    static final MetricFamily CONTAINER_PROCESSES = gauge("hami_observe_container_device_processes",
            "Live processes of the container on the device, from HAMi-Core's process slots", CONTAINER_LABELS);
    static final MetricFamily CONTAINER_USAGE_SOURCE = gauge("hami_observe_container_usage_source",
            "Where the container's usage series on the device come from when not from HAMi-Core; value 1. "
                    + "source=nvml_process: the driver's per-process memory and SM utilisation of its processes "
                    + "(a whole card without HAMi-Core, or CUDA_DISABLE_CONTROL=true)",
            "namespace", "pod", "container", "vdevice_index", "device_uuid", "source");
    static final MetricFamily CONTAINER_SM_LIMIT = gauge("hami_observe_container_device_sm_limit_percent",
            "Compute limit HAMi-Core enforces for the container on the device, percent of a GPU (100 = no limit)",
            CONTAINER_LABELS);

    // Additions: the gap between allocation and use.
    static final MetricFamily CONTAINER_ALLOCATED = gauge("hami_observe_container_memory_allocated_bytes",
            "Memory the scheduler allocated to the container on the device (HAMi-Core's limit when the "
                    + "placement is unknown)", CONTAINER_LABELS);
    static final MetricFamily CONTAINER_IDLE = gauge("hami_observe_container_memory_idle_bytes",
            "Memory allocated to the container on the device and not used: what it could give back",
            CONTAINER_LABELS);
    static final MetricFamily CARD_HAMI_CORE_USED = gauge("hami_observe_gpu_memory_hami_core_used_bytes",
            "Sum of HAMi-Core's accounting over the GPU's known containers", HOST_LABELS);
    static final MetricFamily CARD_ALLOCATED = gauge("hami_observe_gpu_memory_node_allocated_bytes",
            "Sum of the memory allocated on the GPU to pods on this node, from their placements", HOST_LABELS);
    static final MetricFamily CARD_UNACCOUNTED = gauge("hami_observe_gpu_memory_unaccounted_bytes",
            "Memory used on the GPU that no container's HAMi-Core accounting covers "
                    + "(driver overhead, processes outside HAMi-Core)", HOST_LABELS);
    static final MetricFamily CARD_BEYOND_ALLOCATION = gauge("hami_observe_gpu_memory_beyond_allocation_bytes",
            "Memory used on the GPU beyond everything allocated on it: someone is not held to a share",
            HOST_LABELS);
    static final MetricFamily UNMANAGED_MEMORY = gauge("hami_observe_unmanaged_memory_bytes",
            "Memory on the GPU held by processes outside HAMi-Core's control (e.g. CUDA_DISABLE_CONTROL=true), "
                    + "by owning container; empty pod means no known pod", "node", "device_uuid", "namespace", "pod",
            "container");
    static final MetricFamily UNMANAGED_PROCESSES = gauge("hami_observe_unmanaged_processes",
            "Processes on the GPU outside HAMi-Core's control, by owning container", "node", "device_uuid",
            "namespace", "pod", "container");
    static final MetricFamily UNMANAGED_FIRST_SEEN = gauge("hami_observe_unmanaged_first_seen_timestamp_seconds",
            "When this exporter first saw the container's processes on the GPU outside HAMi-Core's control, unix "
                    + "seconds, kept while they stay (a restart of the exporter starts it again); time() minus this is "
                    + "their age", "node", "device_uuid", "namespace", "pod", "container");
    static final MetricFamily UNKNOWN_CONTAINERS = gauge("hami_observe_unknown_container_records",
            "Cache records of pods or containers the node's pod directory does not know: not shown as series");

    /**
     * HAMi's pre-2.9 names ({@code --legacy-metrics}), as one decorator over this catalogue: each
     * legacy family follows a modern one point by point, under its old label names.
     */
    public static final FamilyDecorator LEGACY_NAMES = Twins.builder()
            .renamed(HOST_MEMORY_USED, LEGACY_HOST_MEMORY)
            .renamed(HOST_UTILIZATION, LEGACY_HOST_CORE)
            .renamed(VGPU_MEMORY_USED, LEGACY_MEMORY_USAGE)
            .renamed(VGPU_MEMORY_LIMIT, LEGACY_MEMORY_LIMIT)
            .renamed(CONTAINER_UTILIZATION, LEGACY_UTILIZATION)
            .renamed(CONTAINER_LAST_KERNEL, LEGACY_LAST_KERNEL)
            // HAMi's legacy family carried the memory split as labels, and the allocation offset,
            // which HAMi-Core's usage record does not hold: written as 0. A container whose use comes
            // from the driver's processes has no split (only HAMi-Core knows it): no such point.
            .derived(VGPU_MEMORY_USED, LEGACY_MEMORY_DESC, (labels, families) ->
                    families.valueOf(MEMORY_CONTEXT, labels).isEmpty() ? null : new String[] {labels[0], labels[1],
                            labels[2], labels[3], labels[4], bytes(families, MEMORY_CONTEXT, labels),
                            bytes(families, MEMORY_MODULE, labels), bytes(families, MEMORY_BUFFER, labels), "0"})
            // The container, then the MIG instance named profile-gpuInstance, then its UUID.
            .derived(MIG_DEVICE_INFO, LEGACY_MIG_INFO, (labels, families) -> new String[] {labels[0], labels[1],
                    labels[2], labels[3], labels[4], labels[6] + "-" + labels[7], labels[5]})
            .build();

    /** The {@code source} of usage read from the driver's per-process figures. */
    static final String NVML_PROCESS = "nvml_process";

    private UsageMetrics() {
    }

    /** The bytes {@code family} holds under the same container labels, as a whole number. */
    private static String bytes(Families families, MetricFamily family, String[] containerLabels) {
        return Long.toString((long) families.valueOf(family, containerLabels).orElse(0));
    }

    /**
     * The usage endpoint's series for one view, modern names only ({@link #LEGACY_NAMES} adds the
     * pre-2.9 ones).
     *
     * @param pods the node's pods, for MIG identities
     */
    public static Families collect(UsageView view, List<NodePod> pods) {
        return collect(view, pods, Map.of());
    }

    /**
     * The same, with when each holder of unmanaged memory was first seen (epoch milliseconds; a
     * holder not in the map has no age series).
     */
    public static Families collect(UsageView view, List<NodePod> pods, Map<UnmanagedMemory.Holder, Long> unmanagedSince) {
        Families families = new Families();
        addHostCards(view, families);
        addContainers(view, families);
        addMigDevices(pods, families);
        addGaps(view, families, unmanagedSince);
        return families;
    }

    private static void addHostCards(UsageView view, Families families) {
        var memoryUsed = families.of(HOST_MEMORY_USED);
        var utilization = families.of(HOST_UTILIZATION);
        var controller = families.of(HOST_MEMORY_CONTROLLER_UTILIZATION);
        var total = families.of(HOST_MEMORY_TOTAL);
        var temperature = families.of(HOST_TEMPERATURE);
        var power = families.of(HOST_POWER);
        var info = families.of(HOST_INFO);
        for (HostCardReading card : view.hostCards()) {
            String[] labels = {view.node(), index(card.index()), card.uuid(), card.deviceType()};
            card.memoryUsedBytes().ifPresent(used -> memoryUsed.add(used, labels));
            card.gpuUtilPercent().ifPresent(util -> utilization.add(util, labels));
            card.memoryControllerUtilPercent().ifPresent(util ->
                    controller.add(util, index(card.index()), card.uuid(), card.deviceType()));
            card.memoryTotalBytes().ifPresent(bytes -> total.add(bytes, labels));
            card.temperatureCelsius().ifPresent(celsius -> temperature.add(celsius, labels));
            card.powerWatts().ifPresent(watts -> power.add(watts, labels));
            info.add(1, view.node(), index(card.index()), card.uuid(), card.deviceType(),
                    card.pciBusId().orElse(""));
        }
    }

    private static void addContainers(UsageView view, Families families) {
        var used = families.of(VGPU_MEMORY_USED);
        var limit = families.of(VGPU_MEMORY_LIMIT);
        var memory = families.of(CONTAINER_DEVICE_MEMORY);
        var utilization = families.of(CONTAINER_UTILIZATION);
        var lastKernel = families.of(CONTAINER_LAST_KERNEL);
        var context = families.of(MEMORY_CONTEXT);
        var module = families.of(MEMORY_MODULE);
        var buffer = families.of(MEMORY_BUFFER);
        var processes = families.of(CONTAINER_PROCESSES);
        var smLimit = families.of(CONTAINER_SM_LIMIT);
        for (ContainerDevice device : view.containers()) {
            DeviceUsage usage = device.usage();
            String[] labels = containerLabels(device.pod(), device.container(), usage.vdeviceIndex(), usage.uuid());
            used.add(usage.usedBytes(), labels);
            limit.add(usage.limitBytes(), labels);
            memory.add(usage.usedBytes(), labels);
            utilization.add(usage.smUtilPercent(), labels);
            context.add(usage.contextBytes(), labels);
            module.add(usage.moduleBytes(), labels);
            buffer.add(usage.bufferBytes(), labels);
            processes.add(usage.liveProcesses(), labels);
            smLimit.add(usage.smLimitPercent(), labels);
            device.lastKernelAgeSeconds().ifPresent(age -> lastKernel.add(age, labels));
        }
        // Containers HAMi-Core does not account for: the same two figures under HAMi's names, from the
        // driver's processes (HAMi-Core sums the same per-process figures: memory and SM utilisation),
        // labelled by their source. What only HAMi-Core knows (limit, context/module/buffer split,
        // last kernel, process slots) stays absent rather than made up.
        var source = families.of(CONTAINER_USAGE_SOURCE);
        for (ProcessUsage usage : view.processUsage()) {
            String[] labels = containerLabels(usage.pod(), usage.container(), usage.vdeviceIndex(), usage.uuid());
            usage.usedBytes().ifPresent(bytes -> {
                used.add(bytes, labels);
                memory.add(bytes, labels);
            });
            usage.smUtilPercent().ifPresent(percent -> utilization.add(percent, labels));
            source.add(1, labels[0], labels[1], labels[2], labels[3], labels[4], NVML_PROCESS);
        }
        families.of(UNKNOWN_CONTAINERS).add(view.unknownContainers().size());
    }

    private static void addMigDevices(List<NodePod> pods, Families families) {
        var info = families.of(MIG_DEVICE_INFO);
        for (NodePod pod : pods) {
            for (MigInstance instance : pod.placement().map(PodPlacement::migInstances).orElse(List.of())) {
                if (!instance.ready() || instance.containerIndex() >= pod.containerNames().size()) {
                    continue;
                }
                String[] labels = containerLabels(pod.pod(), pod.containerNames().get(instance.containerIndex()),
                        instance.deviceIndex(), instance.gpuUuid());
                info.add(1, labels[0], labels[1], labels[2], labels[3], labels[4], instance.migUuid(),
                        instance.profile(), Integer.toString(instance.gpuInstanceId()),
                        Integer.toString(instance.computeInstanceId()));
            }
        }
    }

    private static void addGaps(UsageView view, Families families, Map<UnmanagedMemory.Holder, Long> unmanagedSince) {
        var allocated = families.of(CONTAINER_ALLOCATED);
        var idle = families.of(CONTAINER_IDLE);
        for (ContainerMemoryGap gap : view.containerGaps()) {
            String[] labels = containerLabels(gap.pod(), gap.container(), gap.vdeviceIndex(), gap.uuid());
            allocated.add(gap.allocatedBytes(), labels);
            idle.add(gap.idleBytes(), labels);
        }
        var hamiCoreUsed = families.of(CARD_HAMI_CORE_USED);
        var nodeAllocated = families.of(CARD_ALLOCATED);
        var unaccounted = families.of(CARD_UNACCOUNTED);
        var beyond = families.of(CARD_BEYOND_ALLOCATION);
        for (CardMemoryGap gap : view.cardGaps()) {
            HostCardReading card = gap.card();
            String[] labels = {view.node(), index(card.index()), card.uuid(), card.deviceType()};
            hamiCoreUsed.add(gap.hamiCoreUsedBytes(), labels);
            nodeAllocated.add(gap.allocatedBytes(), labels);
            unaccounted.add(gap.unaccountedBytes(), labels);
            beyond.add(gap.beyondAllocationBytes(), labels);
        }
        var unmanaged = families.of(UNMANAGED_MEMORY);
        var unmanagedProcesses = families.of(UNMANAGED_PROCESSES);
        var firstSeen = families.of(UNMANAGED_FIRST_SEEN);
        for (UnmanagedMemory memory : view.unmanagedMemory()) {
            String namespace = memory.pod().map(PodRef::namespace).orElse("");
            String pod = memory.pod().map(PodRef::name).orElse("");
            unmanaged.add(memory.usedBytes(), view.node(), memory.uuid(), namespace, pod, memory.container());
            unmanagedProcesses.add(memory.processes(), view.node(), memory.uuid(), namespace, pod, memory.container());
            Long since = unmanagedSince.get(memory.holder());
            if (since != null) {
                firstSeen.add(since / 1000.0, view.node(), memory.uuid(), namespace, pod, memory.container());
            }
        }
    }

    private static String[] containerLabels(PodRef pod, String container, int vdeviceIndex, String uuid) {
        return new String[] {pod.namespace(), pod.name(), container, index(vdeviceIndex), uuid};
    }

    /** Device positions and card indexes as label values, made once: a node writes them at every scrape. */
    private static final String[] INDEXES = java.util.stream.IntStream.range(0, 64).mapToObj(Integer::toString)
            .toArray(String[]::new);

    private static String index(int index) {
        return index >= 0 && index < INDEXES.length ? INDEXES[index] : Integer.toString(index);
    }
}
