package io.hamiobserve.vendors.all;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.alwaysTrue;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The vendor modules' boundaries, in sentences: each knows HAMi's annotation formats and nothing
 * of Kubernetes, the adapters, the app or the console; no vendor knows another. (That each is
 * reached only through the service it provides, exporting nothing, is {@code ModulePathIT}'s check
 * of the module descriptors.)
 */
class VendorBoundariesTest {
    private static final JavaClasses VENDORS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.hamiobserve.vendors");

    @Test
    void vendorModulesUseOnlyThePortsTheDomainTheSharedProtocolJacksonAndTheJavaLibrary() {
        classes().should().onlyDependOnClassesThat().resideInAnyPackage("io.hamiobserve.vendors..",
                        "io.hamiobserve.ports..", "io.hamiobserve.domain..", "tools.jackson..", "java..")
                .because("a vendor module decodes annotation text; reading Kubernetes is the adapter's job")
                .check(VENDORS);
    }

    @Test
    void noVendorKnowsAnotherOnlyTheSharedProtocol() {
        slices().matching("io.hamiobserve.vendors.(*)..").should().notDependOnEachOther()
                .ignoreDependency(alwaysTrue(), resideInAPackage("io.hamiobserve.vendors.protocol.."))
                .check(VENDORS);
    }
}
