package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An independent check of the layout: the structs declared as HAMi-Core declares them, compiled by
 * gcc, decide the offsets; the Java layout must agree, and files the C program writes must read back
 * exactly. Skipped (not failed) where there is no gcc.
 */
class CLayoutTest {
    private static final Path SOURCE = Path.of("src/test/c/cachefile_layout.c");
    private static final Path BINARY = Path.of("target/c/cachefile_layout");
    private static Map<String, Integer> offsets;

    @TempDir
    Path directory;

    @BeforeAll
    static void compile() throws Exception {
        Path gcc = Path.of("/usr/bin/gcc");
        assumeTrue(Files.isExecutable(gcc) || onPath("gcc"), "gcc is not installed");
        Files.createDirectories(BINARY.getParent());
        run(gcc.toFile().exists() ? gcc.toString() : "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1",
                "-o", BINARY.toString(), SOURCE.toString());
        offsets = new HashMap<>();
        for (String line : run(BINARY.toString(), "offsets").split("\n")) {
            String[] kv = line.split("=");
            offsets.put(kv[0], Integer.parseInt(kv[1]));
        }
    }

    @Test
    void theCompilerAgreesWithTheV1Layout() {
        CacheLayout l = CacheLayout.V1;
        assertEquals(2_008_952, offsets.get("v1.sizeof"));
        assertEquals(offsets.get("v1.sizeof"), l.structSize);
        assertEquals(offsets.get("v1.major_version"), l.majorVersion);
        assertEquals(offsets.get("v1.minor_version"), l.minorVersion);
        assertEquals(offsets.get("v1.sm_init_flag"), l.smInitFlag);
        assertEquals(offsets.get("v1.owner_pid"), l.ownerPid);
        assertEquals(offsets.get("v1.sem"), l.sem);
        assertEquals(offsets.get("v1.device_num"), l.deviceNum);
        assertEquals(offsets.get("v1.uuids"), l.uuids);
        assertEquals(offsets.get("v1.limit"), l.limit);
        assertEquals(offsets.get("v1.sm_limit"), l.smLimit);
        assertEquals(offsets.get("v1.procs"), l.procs);
        assertEquals(offsets.get("v1.proc_num"), l.procNum);
        assertEquals(offsets.get("v1.utilization_switch"), l.utilizationSwitch);
        assertEquals(offsets.get("v1.recent_kernel"), l.recentKernel);
        assertEquals(offsets.get("v1.priority"), l.priority);
        assertEquals(offsets.get("v1.last_kernel_time"), l.lastKernelTime);
        assertEquals(offsets.get("v1.sem_postinit"), l.semPostinit);
        assertEquals(offsets.get("v1.slot.sizeof"), l.slotSize);
        assertEquals(offsets.get("v1.slot.hostpid"), l.slotHostPid);
        assertEquals(offsets.get("v1.slot.used"), l.slotUsed);
        assertEquals(offsets.get("v1.used.sizeof"), l.usedStride);
        assertEquals(offsets.get("v1.used.total"), CacheLayout.USED_TOTAL);
        assertEquals(offsets.get("v1.slot.monitorused"), l.slotMonitorUsed);
        assertEquals(offsets.get("v1.slot.device_util"), l.slotUtil);
        assertEquals(offsets.get("v1.util.sizeof"), l.utilStride);
        assertEquals(offsets.get("v1.util.sm_util"), CacheLayout.UTIL_SM);
        assertEquals(offsets.get("v1.slot.status"), l.slotStatus);
        assertEquals(offsets.get("v1.slot.seqlock"), l.slotSeqlock);
        assertEquals(offsets.get("v1.slot.unused"), l.slotReserved);
    }

    @Test
    void theCompilerAgreesWithTheV0Layout() {
        CacheLayout l = CacheLayout.V0;
        assertEquals(1_197_896, offsets.get("v0.sizeof"));
        assertEquals(offsets.get("v0.sizeof"), l.structSize);
        assertEquals(offsets.get("v0.sm_init_flag"), l.smInitFlag);
        assertEquals(offsets.get("v0.owner_pid"), l.ownerPid);
        assertEquals(offsets.get("v0.sem"), l.sem);
        assertEquals(offsets.get("v0.num"), l.deviceNum);
        assertEquals(offsets.get("v0.uuids"), l.uuids);
        assertEquals(offsets.get("v0.limit"), l.limit);
        assertEquals(offsets.get("v0.sm_limit"), l.smLimit);
        assertEquals(offsets.get("v0.procs"), l.procs);
        assertEquals(offsets.get("v0.proc_num"), l.procNum);
        assertEquals(offsets.get("v0.utilization_switch"), l.utilizationSwitch);
        assertEquals(offsets.get("v0.recent_kernel"), l.recentKernel);
        assertEquals(offsets.get("v0.priority"), l.priority);
        assertEquals(offsets.get("v0.slot.sizeof"), l.slotSize);
        assertEquals(offsets.get("v0.slot.used"), l.slotUsed);
        assertEquals(offsets.get("v0.used.sizeof"), l.usedStride);
        assertEquals(offsets.get("v0.slot.monitorused"), l.slotMonitorUsed);
        assertEquals(offsets.get("v0.slot.device_util"), l.slotUtil);
        assertEquals(offsets.get("v0.util.sizeof"), l.utilStride);
        assertEquals(offsets.get("v0.slot.status"), l.slotStatus);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void readsBackWhatTheCProgramWroteInV1(int minor) throws Exception {
        Path file = directory.resolve("c.cache");
        run(BINARY.toString(), "write-v1", Integer.toString(minor), file.toString());
        assertEquals(CacheLayout.V1.structSize + 1, Files.size(file));
        ReadResult result = new CacheFileReader().read(file);
        assertTrue(result.ok(), () -> result.reason() + ": " + result.detail());
        assertEquals("v1." + minor, result.content().version());
        KnownValues.assertContent(result.content(), minor);
        assertEquals(KnownValues.usage(true), ContainerAccounting.of(result.content()));
    }

    @Test
    void readsBackWhatTheCProgramWroteInV0() throws Exception {
        Path file = directory.resolve("c.cache");
        run(BINARY.toString(), "write-v0", file.toString());
        ReadResult result = new CacheFileReader().read(file);
        assertTrue(result.ok(), () -> result.reason() + ": " + result.detail());
        KnownValues.assertContent(result.content(), 0);
        assertEquals(KnownValues.usage(false), ContainerAccounting.of(result.content()));
    }

    @Test
    void theJavaWriterProducesTheSameBytesAsTheCProgram() throws Exception {
        Path file = directory.resolve("c.cache");
        run(BINARY.toString(), "write-v1", "2", file.toString());
        CacheFileImage.Builder builder = CacheFileImage.v1(2).ownerPid(777).priority(1).utilizationSwitch(1)
                .recentKernel(2).lastKernelTime(1_700_000_005L);
        for (int d = 0; d < KnownValues.DEVICES; d++) {
            builder.device(KnownValues.uuid(d), KnownValues.limit(d), d * 10L);
        }
        for (int p = 0; p < KnownValues.PROCS; p++) {
            java.util.List<CacheFileImage.DeviceUse> uses = new java.util.ArrayList<>();
            for (int d = 0; d < KnownValues.DEVICES; d++) {
                uses.add(CacheFileImage.DeviceUse.of(KnownValues.context(p, d), KnownValues.module(p, d),
                        KnownValues.data(p, d), KnownValues.sm(p, d)));
            }
            builder.process(new CacheFileImage.Process(1000 + p, 2000 + p, KnownValues.status(p), uses));
        }
        byte[] written = builder.build().toBytes();
        byte[] c = Files.readAllBytes(file);
        // The C program also sets fields the writer has no setter for (dec/enc util, offset,
        // seqlock values); blank those before comparing.
        for (byte[] bytes : new byte[][]{written, c}) {
            var b = Images.le(bytes);
            for (int p = 0; p < KnownValues.PROCS; p++) {
                int slot = CacheLayout.V1.slotOffset(p);
                b.putLong(slot + CacheLayout.V1.slotSeqlock, 0);
                for (int d = 0; d < KnownValues.DEVICES; d++) {
                    b.putLong(slot + CacheLayout.V1.usedOffset(d, CacheLayout.USED_OFFSET), 0);
                    b.putLong(slot + CacheLayout.V1.utilOffset(d, CacheLayout.UTIL_DEC), 0);
                    b.putLong(slot + CacheLayout.V1.utilOffset(d, CacheLayout.UTIL_ENC), 0);
                }
            }
        }
        assertEquals(c.length, written.length);
        int firstDifference = java.util.Arrays.mismatch(c, written);
        assertEquals(-1, firstDifference, "first differing byte");
    }

    private static boolean onPath(String tool) {
        try {
            return new ProcessBuilder("sh", "-c", "command -v " + tool).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "timed out: " + String.join(" ", command));
        assertEquals(0, process.exitValue(), String.join(" ", command) + ":\n" + output);
        return output;
    }
}
