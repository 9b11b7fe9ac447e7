package io.hamiobserve.adapters.nvml;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The scripted stand-in for {@code libnvidia-ml.so.1} (src/test/c/fake_nvml.c), compiled with gcc
 * into target/ on first use and loaded by path through JNA, as the adapter loads the real one. Each instance names one compiled variant and one script file; the
 * script is re-read by the fake at every init and device count, so rewriting it changes the
 * behaviour of the next read.
 */
final class FakeNvml {
    /** The current driver: exports nvmlDeviceGetComputeRunningProcesses_v3. */
    static final String CURRENT = "fake-nvml";
    /** An older driver that only has _v2 of the process listing. */
    static final String WITHOUT_V3 = "fake-nvml-no-v3";

    private final Path library;
    private final Path script;

    private FakeNvml(Path library, Path script) {
        this.library = library;
        this.script = script;
    }

    /** Compiles the variant if needed and points it at a fresh script file in {@code dir}. */
    static FakeNvml create(String variant, Path dir) {
        Path library = compiled(variant);
        Path script = dir.resolve(variant + ".script");
        FakeNvml fake = new FakeNvml(library, script);
        fake.script("");
        fake.call("fakeNvmlSetScript", script.toString());
        return fake;
    }

    static Path moduleDir() {
        Path cwd = Paths.get("").toAbsolutePath();
        for (Path candidate : List.of(cwd, cwd.resolve("adapters-nvml"))) {
            if (Files.isRegularFile(candidate.resolve("src/test/c/fake_nvml.c"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find adapters-nvml/src/test/c/fake_nvml.c from " + cwd);
    }

    static synchronized Path compiled(String variant) {
        Path module = moduleDir();
        Path source = module.resolve("src/test/c/fake_nvml.c");
        // Not named libnvidia-ml.so.1: JNA aliases a loaded library by its file name, and the
        // default-library test must not find the fake under the driver's soname.
        Path library = module.resolve("target").resolve(variant).resolve("libfake-nvidia-ml.so.1");
        try {
            if (Files.isRegularFile(library)
                    && Files.getLastModifiedTime(library).compareTo(Files.getLastModifiedTime(source)) >= 0) {
                return library;
            }
            Files.createDirectories(library.getParent());
            Path partial = library.resolveSibling(library.getFileName() + ".partial");
            List<String> command = new java.util.ArrayList<>(List.of("gcc", "-O2", "-Wall", "-shared", "-fPIC",
                    "-o", partial.toString(), source.toString(), "-lpthread"));
            if (variant.equals(WITHOUT_V3)) {
                command.add(1, "-DFAKE_NVML_NO_V3");
            }
            Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(gcc.getInputStream().readAllBytes());
            if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new IllegalStateException("gcc failed: " + command + "\n" + output);
            }
            Files.move(partial, library, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return library;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String libraryPath() {
        return library.toString();
    }

    /** Replaces the script; takes effect at the fake's next init or device count. */
    void script(String text) {
        try {
            Path partial = script.resolveSibling(script.getFileName() + ".partial");
            Files.writeString(partial, text);
            Files.move(partial, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int initCalls() {
        return call("fakeNvmlInitCalls");
    }

    int shutdownCalls() {
        return call("fakeNvmlShutdownCalls");
    }

    int refcount() {
        return call("fakeNvmlRefcount");
    }

    /** Calls of nvmlDeviceGetProcessUtilization so far, sizing calls included. */
    int utilizationCalls() {
        return call("fakeNvmlUtilizationCalls");
    }

    /** The lastSeenTimeStamp the adapter passed in its latest utilisation call for {@code card}. */
    long lastSeen(int card) {
        return NativeLibrary.getInstance(library.toString()).getFunction("fakeNvmlLastSeen").invokeLong(new Object[] {card});
    }

    private int call(String name, Object... args) {
        Function function = NativeLibrary.getInstance(library.toString()).getFunction(name);
        return function.invokeInt(args);
    }

    /** A card line of the script. */
    static String card(String uuid, String name, long totalBytes, long usedBytes, int util, int memUtil, int temp,
                       int milliwatts, String pci) {
        return "card uuid=" + uuid + " name=" + name.replace(' ', '_') + " total=" + totalBytes + " used=" + usedBytes
                + " util=" + util + " memutil=" + memUtil + " temp=" + temp + " power=" + milliwatts + " pci=" + pci + "\n";
    }
}
