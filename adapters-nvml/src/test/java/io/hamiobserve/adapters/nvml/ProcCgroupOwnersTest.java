package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcCgroupOwnersTest {
    private static final String UID_A = "11111111-2222-4333-8444-555555555555";
    private static final String UID_B = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    private static final String ID_A = "a".repeat(64);
    private static final String ID_B = "b".repeat(64);

    @TempDir
    Path proc;

    private void process(long pid, String cgroup) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("cgroup"), cgroup);
    }

    @Test
    void attributesPodProcessesAndLeavesOthersOut() throws Exception {
        process(4242, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_A.replace('-', '_') + ".slice/cri-containerd-" + ID_A + ".scope\n");
        process(4343, "12:memory:/kubepods/besteffort/pod" + UID_B + "/" + ID_B + "\n0::/\n");
        process(1, "0::/init.scope\n");
        process(777, "0::/user.slice/user-1000.slice/session-2.scope\n");
        Files.createDirectories(proc.resolve("888"));

        Map<Long, ProcessOwner> owners = ProcCgroupOwners.of(proc).owners(Arrays.asList(4242L, 4343L, 1L, 777L, 888L, 999L, -1L, null));

        assertEquals(Map.of(4242L, new ProcessOwner(UID_A, ID_A), 4343L, new ProcessOwner(UID_B, ID_B)), owners);
    }

    @Test
    void aHugeFileIsReadOnlyUpToItsBound() throws Exception {
        process(5, "0::/kubepods.slice/kubepods-pod" + UID_A.replace('-', '_') + ".slice/cri-containerd-" + ID_A
                + ".scope\n" + "x".repeat(1 << 20));

        assertEquals(Map.of(5L, new ProcessOwner(UID_A, ID_A)), ProcCgroupOwners.of(proc).owners(List.of(5L)));
    }

    @Test
    void anUnreadableProcMakesTheResolverUnavailable() {
        ProcCgroupOwners resolver = ProcCgroupOwners.of(proc.resolve("missing"));

        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> resolver.owners(List.of(1L)));

        assertTrue(failed.getMessage().contains("hostPID: true"), failed.getMessage());
    }

    @Test
    void noPidsNoOwners() throws Exception {
        assertEquals(Map.of(), ProcCgroupOwners.of(proc).owners(List.of()));
    }
}
