package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.ProcessOwner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CgroupOwnerTest {
    private static final String UID = "9c3a1f2e-4b5d-4e6f-8a7b-0c1d2e3f4a5b";
    private static final String UID_SYSTEMD = UID.replace('-', '_');
    private static final String ID = "7f3e2d1c0b9a8f7e6d5c4b3a29181716f5e4d3c2b1a09f8e7d6c5b4a39281706";
    private static final Optional<ProcessOwner> OWNER = Optional.of(new ProcessOwner(UID, ID));

    @Test
    void cgroupV2WithSystemdAndContainerd() {
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_SYSTEMD + ".slice/cri-containerd-" + ID + ".scope\n"));
    }

    @Test
    void cgroupV2BestEffortAndGuaranteed() {
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                + UID_SYSTEMD + ".slice/cri-containerd-" + ID + ".scope\n"));
        // Guaranteed pods have no QoS level of their own.
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-pod" + UID_SYSTEMD + ".slice/cri-containerd-"
                + ID + ".scope\n"));
    }

    @Test
    void cgroupV2SeenFromAPrivateCgroupNamespace() {
        assertEquals(OWNER, CgroupOwner.parse("0::/../../kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_SYSTEMD
                + ".slice/cri-containerd-" + ID + ".scope"));
    }

    @Test
    void criO() {
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_SYSTEMD + ".slice/crio-" + ID + ".scope\n"));
        // conmon is CRI-O's monitor process, not the container.
        assertEquals(Optional.empty(), CgroupOwner.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_SYSTEMD + ".slice/crio-conmon-" + ID + ".scope\n"));
    }

    @Test
    void dockerWithSystemdDriver() {
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                + UID_SYSTEMD + ".slice/docker-" + ID + ".scope\n"));
    }

    @Test
    void cgroupV1WithCgroupfsDriverAndManyControllers() {
        String file = """
                12:hugetlb:/kubepods/burstable/pod%1$s/%2$s
                11:memory:/kubepods/burstable/pod%1$s/%2$s
                10:devices:/kubepods/burstable/pod%1$s/%2$s
                9:cpu,cpuacct:/kubepods/burstable/pod%1$s/%2$s
                8:pids:/kubepods/burstable/pod%1$s/%2$s
                7:net_cls,net_prio:/kubepods/burstable/pod%1$s/%2$s
                6:freezer:/kubepods/burstable/pod%1$s/%2$s
                5:blkio:/kubepods/burstable/pod%1$s/%2$s
                4:perf_event:/kubepods/burstable/pod%1$s/%2$s
                3:cpuset:/kubepods/burstable/pod%1$s/%2$s
                2:rdma:/
                1:name=systemd:/kubepods/burstable/pod%1$s/%2$s
                0::/
                """.formatted(UID, ID);
        assertEquals(OWNER, CgroupOwner.parse(file));
    }

    @Test
    void cgroupV1GuaranteedAndBestEffortWithCgroupfs() {
        assertEquals(OWNER, CgroupOwner.parse("11:memory:/kubepods/pod" + UID + "/" + ID + "\n"));
        assertEquals(OWNER, CgroupOwner.parse("11:memory:/kubepods/besteffort/pod" + UID + "/" + ID + "\n"));
    }

    @Test
    void cgroupV1WithSystemdDriver() {
        assertEquals(OWNER, CgroupOwner.parse("""
                11:memory:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                1:name=systemd:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%1$s.slice/cri-containerd-%2$s.scope
                """.formatted(UID_SYSTEMD, ID)));
    }

    @Test
    void aHybridHostPrefersTheUnifiedLine() {
        String other = "1111111111111111111111111111111111111111111111111111111111111111";
        assertEquals(OWNER, CgroupOwner.parse("11:memory:/kubepods/burstable/pod" + UID + "/" + other + "\n"
                + "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_SYSTEMD
                + ".slice/cri-containerd-" + ID + ".scope\n"));
    }

    @Test
    void staticPodsHaveAHashForUid() {
        String hash = "6f8c3f0ad7ba5e3cfc01fb3c8a3b4b66";
        assertEquals(Optional.of(new ProcessOwner(hash, ID)), CgroupOwner.parse(
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + hash + ".slice/cri-containerd-"
                        + ID + ".scope\n"));
    }

    @Test
    void nestedCgroupsInsideTheContainerStillBelongToIt() {
        assertEquals(OWNER, CgroupOwner.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_SYSTEMD + ".slice/cri-containerd-" + ID + ".scope/init.scope\n"));
    }

    @Test
    void upperCaseIdsAreNormalised() {
        assertEquals(OWNER, CgroupOwner.parse("11:memory:/kubepods/pod" + UID.toUpperCase() + "/" + ID.toUpperCase() + "\n"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "0::/",
            "0::/init.scope",
            "0::/user.slice/user-1000.slice/session-3.scope",
            "0::/system.slice/containerd.service",
            "0::/system.slice/docker-" + ID + ".scope",
            "12:memory:/user.slice\n1:name=systemd:/user.slice/user-0.slice/session-1.scope\n0::/user.slice",
            "0::/kubepods.slice/kubepods-burstable.slice",
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + "9c3a1f2e_4b5d_4e6f_8a7b_0c1d2e3f4a5b.slice",
            "11:memory:/kubepods/burstable/pod" + UID,
            "11:memory:/kubepods/burstable/podnot-a-uid/" + ID,
            "11:memory:/kubepods/burstable/pod" + UID + "/not-hex-at-all",
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod9c3a1f2e4b5d_4e6f_8a7b_0c1d2e3f4a5b1.slice/cri-containerd-" + ID + ".scope",
            "",
            "garbage without colons",
            "\n\n\n",
            "0:",
    })
    void processesOutsideAnyPodHaveNoOwner(String file) {
        assertEquals(Optional.empty(), CgroupOwner.parse(file));
    }
}
