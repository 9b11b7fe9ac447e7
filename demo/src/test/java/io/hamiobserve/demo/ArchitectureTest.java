package io.hamiobserve.demo;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hexagon's dependency rule and the roles' separation, stated once more in words a newcomer can
 * read (module-info and the poms state them to the compiler). Each rule is checked against the
 * production classes of every module; the demo's tests see them all.
 */
class ArchitectureTest {
    private static final String DOMAIN = "io.hamiobserve.domain..";
    private static final String PORTS = "io.hamiobserve.ports..";
    private static final String ADAPTERS = "io.hamiobserve.adapters..";
    private static final String APP = "io.hamiobserve.app..";
    private static final String EDGE = "io.hamiobserve.edge..";
    private static final String EXPOSITION = "io.hamiobserve.exposition..";
    private static final String ROLES = "io.hamiobserve.role..";
    private static final String SCHEDULER_ROLE = "io.hamiobserve.role.scheduler..";
    private static final String NODE_ROLE = "io.hamiobserve.role.node..";
    private static final String CONSOLE_ROLE = "io.hamiobserve.role.console..";
    private static final String DEMO = "io.hamiobserve.demo..";
    private static final String TESTKIT = "io.hamiobserve.testkit..";
    private static final String CONSOLE = "io.hamiobserve.console..";
    private static final String[] TECHNOLOGY = {"io.helidon..", "io.fabric8..", "com.sun.jna..", "io.prometheus..",
            "tools.jackson..", "com.fasterxml.jackson..", "org.slf4j..", "gg.jte..", "org.apache.commons.csv.."};

    private static JavaClasses production;

    @BeforeAll
    static void importClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // A module's test jar (the Kubernetes adapter's fuzz inputs) is test code too.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.hamiobserve");
    }

    private static void check(ArchRule rule) {
        rule.check(production);
    }

    @Test
    void everyModuleIsImported() {
        for (String module : new String[] {"io.hamiobserve.domain", "io.hamiobserve.ports",
                "io.hamiobserve.adapters.cachefile", "io.hamiobserve.adapters.cachefile.layout",
                "io.hamiobserve.adapters.nvml", "io.hamiobserve.adapters.k8s", "io.hamiobserve.testkit",
                "io.hamiobserve.adapters.prometheus", "io.hamiobserve.console", "io.hamiobserve.console.templates",
                "io.hamiobserve.app", "io.hamiobserve.edge", "io.hamiobserve.exposition", "io.hamiobserve.configfiles", "io.hamiobserve.role.scheduler",
                "io.hamiobserve.role.node", "io.hamiobserve.role.console", "io.hamiobserve.demo"}) {
            if (!production.containPackage(module)) {
                throw new AssertionError("no classes imported from " + module + ": the rules would check nothing there");
            }
        }
    }

    @Test
    void theDomainDependsOnNothingButTheJavaBaseLibrary() {
        check(classes().that().resideInAPackage(DOMAIN)
                .should().onlyDependOnClassesThat().resideInAnyPackage(DOMAIN, "java.."));
    }

    @Test
    void portsDependOnlyOnTheDomain() {
        check(classes().that().resideInAPackage(PORTS)
                .should().onlyDependOnClassesThat().resideInAnyPackage(PORTS, DOMAIN, "java.."));
    }

    @Test
    void helidonFabric8JnaAndPrometheusTypesNeverReachTheDomainOrThePorts() {
        check(noClasses().that().resideInAnyPackage(DOMAIN, PORTS)
                .should().dependOnClassesThat().resideInAnyPackage(TECHNOLOGY));
    }

    @Test
    void theCacheFileAdapterUsesOnlyPortsDomainTheJavaLibraryAndJacksonForTheInspectorsJson() {
        check(classes().that().resideInAPackage("io.hamiobserve.adapters.cachefile..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.hamiobserve.adapters.cachefile..", PORTS, DOMAIN, "java..", "tools.jackson.."));
        check(noClasses().that().resideInAPackage("io.hamiobserve.adapters.cachefile..")
                .should().dependOnClassesThat().resideInAPackage("io.hamiobserve.testkit.."));
    }

    @Test
    void theCacheFileLayoutIsPlainJava() {
        check(classes().that().resideInAPackage("io.hamiobserve.adapters.cachefile.layout..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.hamiobserve.adapters.cachefile.layout..",
                        "java.."));
    }

    @Test
    void theTestkitWritesWithTheLayoutAndFillsPortsOnly() {
        check(classes().that().resideInAPackage(TESTKIT)
                .should().onlyDependOnClassesThat().resideInAnyPackage(TESTKIT,
                        "io.hamiobserve.adapters.cachefile.layout..", PORTS, DOMAIN, "java.."));
    }

    @Test
    void onlyTheDemoUsesTheTestkit() {
        check(noClasses().that().resideOutsideOfPackages(TESTKIT, DEMO)
                .should().dependOnClassesThat().resideInAPackage(TESTKIT));
    }

    @Test
    void theNvmlAdapterUsesOnlyPortsDomainJnaAndTheJavaLibrary() {
        check(classes().that().resideInAPackage("io.hamiobserve.adapters.nvml..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.hamiobserve.adapters.nvml..", PORTS, DOMAIN, "java..", "com.sun.jna.."));
    }

    @Test
    void theKubernetesAdapterUsesOnlyPortsDomainFabric8AndItsSerialisers() {
        check(classes().that().resideInAPackage("io.hamiobserve.adapters.k8s..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.hamiobserve.adapters.k8s..", PORTS, DOMAIN, "java..", "io.fabric8..",
                        "tools.jackson..", "com.fasterxml.jackson.annotation..", "org.snakeyaml.engine..",
                        "org.slf4j.."));
    }

    /**
     * fabric8's model is read in one place: LedgerMapping narrows what is mapped to what that
     * adapter reads, and LedgerMappingReadsTest checks those reads there. A class elsewhere reading
     * the model would get what the narrowed mapping dropped, unchecked.
     */
    @Test
    void onlyTheKubernetesAdapterKnowsFabric8() {
        check(noClasses().that().resideOutsideOfPackage("io.hamiobserve.adapters.k8s..")
                .should().dependOnClassesThat().resideInAPackage("io.fabric8.."));
    }

    @Test
    void thePrometheusAdapterUsesOnlyPortsDomainJacksonAndTheJavaLibrary() {
        // javax.net.ssl: the query backend's TLS settings (a CA, a client certificate, a server name);
        // configfiles: its http_config file, read as every file an operator writes.
        check(classes().that().resideInAPackage("io.hamiobserve.adapters.prometheus..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.hamiobserve.adapters.prometheus..", PORTS, DOMAIN, "java..", "javax.net.ssl..",
                        "tools.jackson..", "io.hamiobserve.configfiles.."));
    }

    /** SnakeYAML Engine: right-sizing patches and the YAML export. */
    @Test
    void theConsoleIsADrivingAdapterThatReachesTheFleetOnlyThroughThePort() {
        check(classes().that().resideInAPackage(CONSOLE)
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage(CONSOLE, PORTS, DOMAIN, "java..", "io.helidon..", "gg.jte..", "tools.jackson..",
                        "org.apache.commons.csv..", "org.snakeyaml.engine.."));
    }

    @Test
    void theConsolesTemplatesSeeOnlyItsViewModels() {
        check(classes().that().resideInAPackage("io.hamiobserve.console.templates..")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("io.hamiobserve.console.templates..", "io.hamiobserve.console.view..", "java..",
                        "javax.annotation.processing..", "gg.jte.."));
    }

    /**
     * The exposition engine, the HTTP edge and app are three modules with arrows one way only:
     * exposition requires the Prometheus model and the library's text writers, the edge requires
     * exposition and Helidon, app the edge. Each module's descriptor says so (what the compiler and
     * the module path enforce), and no class reaches back.
     */
    @Test
    void theExpositionEngineStandsOnItsOwn() {
        assertEquals(Set.of("java.base", "io.prometheus.metrics.model", "io.prometheus.writer.text"),
                requires(io.hamiobserve.exposition.Exposition.class));
        check(classes().that().resideInAPackage(EXPOSITION)
                .should().onlyDependOnClassesThat().resideInAnyPackage(EXPOSITION, "java..",
                        "io.prometheus.metrics.model..", "io.prometheus.metrics.expositionformats.."));
    }

    @Test
    void theEdgeRequiresTheExpositionEngineAndHelidonAndNothingOfAppOrTheHexagon() {
        Set<String> requires = requires(io.hamiobserve.edge.Servers.class);
        assertTrue(requires.contains("io.hamiobserve.exposition") && requires.contains("io.helidon.webserver"),
                "the edge stands on the engine and Helidon: " + requires);
        for (String module : requires) {
            assertTrue(!module.startsWith("io.hamiobserve.") || module.equals("io.hamiobserve.exposition")
                            || module.equals("io.hamiobserve.configfiles"),
                    "the edge requires " + module + " of this project, only the exposition engine and the "
                            + "config file reader are allowed");
        }
        check(noClasses().that().resideInAPackage(EDGE).should().dependOnClassesThat()
                .resideInAnyPackage(APP, ROLES, DEMO, TESTKIT, CONSOLE, ADAPTERS, PORTS, DOMAIN, "picocli.."));
    }

    /** The reader of operators' files is a leaf: Jackson's YAML and java.base, nothing of the project. */
    @Test
    void theConfigFileReaderStandsOnItsOwn() {
        assertEquals(Set.of("java.base", "tools.jackson.databind", "tools.jackson.core", "tools.jackson.dataformat.yaml",
                "org.snakeyaml.engine"), requires(io.hamiobserve.configfiles.StrictYaml.class));
    }

    @Test
    void appRequiresTheEdgeAndNoArrowGoesBack() {
        assertTrue(requires(io.hamiobserve.app.Main.class).contains("io.hamiobserve.edge"));
        check(noClasses().that().resideInAnyPackage(EXPOSITION, EDGE).should().dependOnClassesThat()
                .resideInAPackage(APP));
        check(noClasses().that().resideInAPackage(EXPOSITION).should().dependOnClassesThat()
                .resideInAnyPackage(EDGE, "io.helidon..", "picocli.."));
    }

    /** The names a module's descriptor requires, read from where its classes were loaded. */
    private static Set<String> requires(Class<?> member) {
        try {
            Path location = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
            ModuleDescriptor descriptor = ModuleFinder.of(location).findAll().iterator().next().descriptor();
            return descriptor.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        } catch (URISyntaxException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    @Test
    void noAdapterAndNoRoleNamesADeviceProvider() {
        // The providers reach the Kubernetes adapter through the service only: a vendor is a new
        // module, never an edit of the adapter or the app.
        check(noClasses().that().resideOutsideOfPackage("io.hamiobserve.vendors..")
                .should().dependOnClassesThat().resideInAPackage("io.hamiobserve.vendors.."));
    }

    @Test
    void theDeviceProvidersAreImportedFromTheAppsRuntime() {
        assertTrue(production.containPackage("io.hamiobserve.vendors.nvidia")
                && production.containPackage("io.hamiobserve.vendors.ascend"),
                "the app's runtime holds the vendor modules, so the rule above checks something");
    }

    @Test
    void noAdapterDependsOnAnotherAdapter() {
        check(slices().matching("io.hamiobserve.adapters.(*)..").should().notDependOnEachOther());
    }

    @Test
    void onlyTheRolesAndTheDemoKnowTheAdapters() {
        check(noClasses().that().resideInAnyPackage(DOMAIN, PORTS, CONSOLE, EXPOSITION, EDGE, APP)
                .should().dependOnClassesThat().resideInAnyPackage(ADAPTERS));
    }

    @Test
    void theSharedCoreKnowsNoRoleAndNoDemo() {
        check(noClasses().that().resideInAnyPackage(EXPOSITION, EDGE, APP)
                .should().dependOnClassesThat().resideInAnyPackage(ROLES, DEMO, TESTKIT));
    }

    @Test
    void nothingButTheRolesAndTheDemoDependsOnTheCore() {
        check(noClasses().that().resideOutsideOfPackages(APP, ROLES, DEMO)
                .should().dependOnClassesThat().resideInAPackage(APP));
    }

    @Test
    void rolesDoNotDependOnEachOtherNorOnTheDemo() {
        check(slices().matching("io.hamiobserve.role.(*)..").should().notDependOnEachOther());
        check(noClasses().that().resideInAPackage(ROLES).should().dependOnClassesThat().resideInAPackage(DEMO));
    }

    @Test
    void theSchedulerRoleHoldsNoNvmlJnaOrCacheFileCode() {
        check(noClasses().that().resideInAnyPackage(SCHEDULER_ROLE, CONSOLE_ROLE)
                .should().dependOnClassesThat().resideInAnyPackage("io.hamiobserve.adapters.nvml..",
                        "io.hamiobserve.adapters.cachefile..", "com.sun.jna.."));
    }

    @Test
    void theNodeRoleHoldsNoAllocationOrConsoleCode() {
        check(noClasses().that().resideInAPackage(NODE_ROLE)
                .should().dependOnClassesThat().resideInAnyPackage(SCHEDULER_ROLE, CONSOLE_ROLE, CONSOLE,
                        "io.hamiobserve.adapters.prometheus.."));
    }

    @Test
    void nothingDependsOnTheDemo() {
        check(noClasses().that().resideOutsideOfPackage(DEMO)
                .should().dependOnClassesThat().resideInAPackage(DEMO));
    }

    @Test
    void packagesHaveNoCycles() {
        check(slices().matching("io.hamiobserve.(**)").should().beFreeOfCycles());
    }
}
