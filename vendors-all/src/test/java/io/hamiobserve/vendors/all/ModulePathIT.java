package io.hamiobserve.vendors.all;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The vendor modules on the real module path (the built jars in {@code target/modules}, this
 * module's runtime dependencies: the distribution's view), not the class path. A module that
 * only {@code requires io.hamiobserve.ports} and {@code uses} the service, as the Kubernetes
 * adapter does, is resolved as the root: the module system's service binding alone brings in
 * every provider of {@code DeviceProvider} on the path, so a new vendor is found by its
 * {@code provides} line and nothing else. Each vendor module's descriptor is held to the shape
 * that makes that true.
 */
class ModulePathIT {
    private static final String SPI = "io.hamiobserve.ports.spi.DeviceProvider";
    /** How a vendor's own usage exporter maps onto the console's figures: provided by the vendors that have one. */
    private static final String USAGE_SPI = "io.hamiobserve.ports.spi.UsageExporterMapping";
    private static final String PROTOCOL = "io.hamiobserve.vendors.protocol";
    private static final Path MODULES = Path.of("target", "modules");

    /** The stand-in for the Kubernetes adapter: a module that uses the service and names no provider. */
    private static final String CONSUMER = "io.hamiobserve.vendorsconsumer";

    private static ModuleLayer layer;
    private static Class<?> spi;

    @BeforeAll
    static void layer() throws ClassNotFoundException {
        assertTrue(Files.isDirectory(MODULES), "built by the package phase: " + MODULES.toAbsolutePath());
        ModuleFinder path = ModuleFinder.compose(consumer(), ModuleFinder.of(MODULES));
        Configuration configuration = ModuleLayer.boot().configuration().resolveAndBind(path, ModuleFinder.of(),
                Set.of(CONSUMER));
        layer = ModuleLayer.boot().defineModulesWithManyLoaders(configuration, ClassLoader.getPlatformClassLoader());
        spi = layer.findLoader("io.hamiobserve.ports").loadClass(SPI);
    }

    @Test
    void aModuleThatUsesTheServiceBindsEveryVendorModuleAsAProvider() throws ReflectiveOperationException {
        Map<String, String> providers = new TreeMap<>();
        for (Object provider : ServiceLoader.load(layer, spi)) {
            Module module = provider.getClass().getModule();
            assertTrue(module.isNamed() && module.getLayer() == layer, provider.getClass() + " on the module path");
            providers.put((String) spi.getMethod("name").invoke(provider), module.getName());
        }
        // HAMi's vendors at least; a vendor module added later is bound the same way, with no edit here.
        assertTrue(providers.keySet().containsAll(HamiVendors.NAMES), providers.keySet()::toString);
        // One vendor family per module, named after it.
        providers.forEach((name, module) -> assertEquals("io.hamiobserve.vendors." + name, module));
        Set<String> vendorModules = layer.modules().stream().map(Module::getName)
                .filter(name -> name.startsWith("io.hamiobserve.vendors.") && !name.equals(PROTOCOL))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(providers.values()), vendorModules, "every vendor module provides the service");
    }

    @Test
    void theUsageExporterMappingsAreFoundOnTheModulePathInTheirVendorsModules() throws ReflectiveOperationException {
        Class<?> usage = layer.findLoader("io.hamiobserve.ports").loadClass(USAGE_SPI);
        Map<String, String> mappings = new TreeMap<>();
        for (Object mapping : ServiceLoader.load(layer, usage)) {
            mappings.put((String) usage.getMethod("name").invoke(mapping), mapping.getClass().getModule().getName());
        }
        assertEquals(Map.of("ascend-npu-exporter", "io.hamiobserve.vendors.ascend",
                "cambricon-mlu-exporter", "io.hamiobserve.vendors.cambricon",
                "hygon-dcu-exporter", "io.hamiobserve.vendors.hygon",
                "metax-exporter", "io.hamiobserve.vendors.metax"), mappings);
    }

    @Test
    void everyVendorModuleRequiresTheProtocolOnlyExportsNothingAndProvidesTheService() {
        // Every vendor jar on the path, bound or not: one without its provides line fails here.
        int vendors = 0;
        for (ModuleReference reference : ModuleFinder.of(MODULES).findAll()) {
            ModuleDescriptor descriptor = reference.descriptor();
            String name = descriptor.name();
            if (!name.startsWith("io.hamiobserve.vendors.") || name.equals(PROTOCOL)) {
                continue;
            }
            vendors++;
            assertEquals(Set.of("java.base", PROTOCOL), requires(descriptor), name);
            assertEquals(Set.of(), descriptor.exports(), name + " exports nothing: its provider is reached as a service");
            List<String> services = descriptor.provides().stream().map(ModuleDescriptor.Provides::service).toList();
            assertTrue(services.contains(SPI), name + " provides " + SPI);
            assertTrue(Set.of(SPI, USAGE_SPI).containsAll(services), name + " provides only the vendors' services: "
                    + services);
            assertEquals(Set.of(), descriptor.uses(), name);
        }
        assertTrue(vendors >= HamiVendors.NAMES.size(), vendors + " vendor modules");
    }

    @Test
    void noAdapterAppOrConsoleIsOnTheVendorsModuleGraph() {
        ModuleDescriptor protocol = layer.findModule(PROTOCOL).orElseThrow().getDescriptor();
        assertEquals(Set.of("java.base", "io.hamiobserve.ports", "tools.jackson.databind"), requires(protocol));
        List<String> forbidden = new ArrayList<>();
        for (ResolvedModule resolved : layer.configuration().modules()) {
            String name = resolved.name();
            if (name.startsWith("io.hamiobserve.adapters") || name.equals("io.hamiobserve.app")
                    || name.equals("io.hamiobserve.edge") || name.equals("io.hamiobserve.exposition")
                    || name.equals("io.hamiobserve.console") || name.startsWith("kubernetes.")) {
                forbidden.add(name);
            }
        }
        assertEquals(List.of(), forbidden);
    }

    @Test
    void providersDecodeOnTheModulePathJsonAndResourcesAlike() throws ReflectiveOperationException {
        Class<?> nodeView = layer.findLoader("io.hamiobserve.ports").loadClass("io.hamiobserve.ports.spi.NodeView");
        Method annotated = nodeView.getMethod("annotated", String.class, Map.class);
        Method withCapacity = nodeView.getMethod("withCapacity", String.class, Map.class);
        Map<String, Object> nodes = Map.of(
                "nvidia", annotated.invoke(null, "n", Map.of("hami.io/node-nvidia-register",
                        "[{\"id\":\"GPU-a\",\"devmem\":40960,\"devcore\":100}]")),
                "metax", annotated.invoke(null, "n", Map.of("metax-tech.com/node-gpu-devices",
                        "[{\"uuid\":\"GPU-123\",\"totalVRam\":32768}]")),
                "cambricon", withCapacity.invoke(null, "n", Map.of("cambricon.com/mlu.smlu.vcore", "2k")));
        Map<String, Integer> found = new TreeMap<>();
        for (Object provider : ServiceLoader.load(layer, spi)) {
            String name = (String) spi.getMethod("name").invoke(provider);
            if (nodes.containsKey(name)) {
                Object devices = spi.getMethod("decodeNode", nodeView).invoke(provider, nodes.get(name));
                List<?> problems = (List<?>) devices.getClass().getMethod("problems").invoke(devices);
                assertEquals(List.of(), problems, name);
                found.put(name, ((List<?>) devices.getClass().getMethod("cards").invoke(devices)).size());
            }
        }
        assertEquals(Map.of("cambricon", 20, "metax", 1, "nvidia", 1), found);
    }

    /** A module without classes whose descriptor says only what the adapter's says about vendors. */
    private static ModuleFinder consumer() {
        ModuleDescriptor descriptor = ModuleDescriptor.newModule(CONSUMER).requires("io.hamiobserve.ports")
                .uses(SPI).build();
        ModuleReference reference = new ModuleReference(descriptor, null) {
            @Override
            public ModuleReader open() {
                return new ModuleReader() {
                    @Override
                    public Optional<URI> find(String name) {
                        return Optional.empty();
                    }

                    @Override
                    public Stream<String> list() {
                        return Stream.empty();
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
        return new ModuleFinder() {
            @Override
            public Optional<ModuleReference> find(String name) {
                return name.equals(CONSUMER) ? Optional.of(reference) : Optional.empty();
            }

            @Override
            public Set<ModuleReference> findAll() {
                return Set.of(reference);
            }
        };
    }

    private static Set<String> requires(ModuleDescriptor descriptor) {
        return descriptor.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
    }
}
