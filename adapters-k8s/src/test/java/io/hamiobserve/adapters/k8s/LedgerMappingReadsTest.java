package io.hamiobserve.adapters.k8s;

import com.fasterxml.jackson.annotation.JsonIncludeProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnitAccess;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the adapter's code reads is what {@link LedgerMapping} maps. The equivalence tests in
 * {@code LedgerMappingTest} catch a dropped field only where a fixture holds it; this test reads
 * the adapter's bytecode (ArchUnit) instead: every call of a Kubernetes model getter, or method
 * reference to one, on a class the mapping narrows must name a property the class's mix-in keeps.
 * A getter without a JSON property (such as {@code getAdditionalProperties}) on a narrowed class
 * reads what the mapping never keeps, and fails too.
 */
class LedgerMappingReadsTest {
    private static final String MODEL = "io.fabric8.kubernetes.api.model";

    private static JavaClasses adapter;

    /** One model getter called by the adapter: where, on which declared type, which method. */
    private record Read(String from, Class<?> owner, String getter) {
    }

    @BeforeAll
    static void importTheAdapter() {
        adapter = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.hamiobserve.adapters.k8s");
    }

    /** The model getters the adapter's production classes call or reference, lambdas included. */
    private static List<Read> modelGetterReads() throws ClassNotFoundException {
        List<Read> reads = new ArrayList<>();
        for (JavaClass type : adapter) {
            List<JavaCodeUnitAccess<? extends CodeUnitAccessTarget>> accesses = Stream.concat(
                    type.getMethodCallsFromSelf().stream(), type.getMethodReferencesFromSelf().stream()).toList();
            for (JavaCodeUnitAccess<? extends CodeUnitAccessTarget> access : accesses) {
                CodeUnitAccessTarget target = access.getTarget();
                String name = target.getName();
                boolean getter = (name.startsWith("get") || name.startsWith("is")) && target.getRawParameterTypes().isEmpty();
                if (getter && target.getOwner().getPackageName().equals(MODEL)) {
                    reads.add(new Read(access.getOrigin().getFullName(), Class.forName(target.getOwner().getName()), name));
                }
            }
        }
        return reads;
    }

    /** The JSON property a model getter reads ({@code @JsonProperty} on fabric8's generated getters), or null. */
    private static String property(Class<?> narrowed, String getter) {
        try {
            Method method = narrowed.getMethod(getter);
            JsonProperty property = method.getAnnotation(JsonProperty.class);
            return property == null ? null : property.value();
        } catch (NoSuchMethodException notAGetterOfThisClass) {
            return null;
        }
    }

    /** Where the adapter reads something a narrowed class's mix-in drops: one line per read. */
    private static Set<String> unmappedReads(Map<Class<?>, Class<?>> narrowedClasses) throws ClassNotFoundException {
        Set<String> unmapped = new TreeSet<>();
        for (Read read : modelGetterReads()) {
            // The declared type may be an interface (HasMetadata.getMetadata): every narrowed class
            // behind it must keep the property.
            narrowedClasses.forEach((narrowed, mixIn) -> {
                if (!read.owner().isAssignableFrom(narrowed)) {
                    return;
                }
                Set<String> kept = Set.of(mixIn.getAnnotation(JsonIncludeProperties.class).value());
                String property = property(narrowed, read.getter());
                if (property == null || !kept.contains(property)) {
                    unmapped.add(narrowed.getSimpleName() + "." + read.getter() + "() in " + read.from()
                            + (property == null ? " (no JSON property)" : " (property " + property + " not mapped)"));
                }
            });
        }
        return unmapped;
    }

    @Test
    void everyModelGetterTheAdapterCallsOnANarrowedClassIsMapped() throws Exception {
        assertEquals(Set.of(), unmappedReads(LedgerMapping.NARROWED),
                "model getters the adapter calls whose property LedgerMapping drops: add each to its mix-in");
    }

    /** The check sees the reads it is about: without this, an import that found nothing would pass. */
    @Test
    void theCheckSeesTheAdaptersReadsAndFailsOnADroppedOne() throws Exception {
        List<String> getters = modelGetterReads().stream()
                .map(read -> read.owner().getSimpleName() + "." + read.getter()).distinct().toList();
        // Read by PodMapper, DeviceProviders and LedgerFeed: a pod's phase, containers and their names, a
        // node's capacity, a quota's hard limits.
        // And by Owners: a pod's or owner's controller references.
        for (String expected : List.of("PodStatus.getPhase", "PodSpec.getContainers", "NodeStatus.getCapacity",
                "ResourceQuotaSpec.getHard", "Container.getName", "ObjectMeta.getOwnerReferences",
                "OwnerReference.getController", "OwnerReference.getUid")) {
            assertTrue(getters.contains(expected), () -> expected + " not among the reads found: " + getters);
        }
        // The same check against a mapping whose PodStatus mix-in keeps no phase: the read is reported.
        Map<Class<?>, Class<?>> withoutPhase = new java.util.HashMap<>(LedgerMapping.NARROWED);
        withoutPhase.put(io.fabric8.kubernetes.api.model.PodStatus.class, PodStatusWithoutPhase.class);
        Set<String> unmapped = unmappedReads(withoutPhase);
        assertFalse(unmapped.isEmpty());
        assertTrue(unmapped.stream().allMatch(line -> line.startsWith("PodStatus.getPhase() in ")), unmapped::toString);
    }

    @JsonIncludeProperties({"conditions", "containerStatuses", "initContainerStatuses"})
    private interface PodStatusWithoutPhase {
    }
}
