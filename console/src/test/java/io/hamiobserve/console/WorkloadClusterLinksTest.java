package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The right-sizing table per workload, where one engine holds several clusters: a row names its
 * cluster in the Cluster column and its export, and its link opens the workload in that cluster,
 * whichever cluster the page itself shows; a row of series without the label links as before.
 */
class WorkloadClusterLinksTest {
    private static final WorkloadRecommendation EAST = WorkloadPatchTest.recommendation(
            new WorkloadGroup("east", "ml", "Deployment", "serve", "server"), 2560, 30);
    private static final WorkloadRecommendation WEST = WorkloadPatchTest.recommendation(
            new WorkloadGroup("west", "ml", "Deployment", "serve", "server"), 6400, 30);
    private static final WorkloadRecommendation UNLABELLED = WorkloadPatchTest.recommendation(
            new WorkloadGroup("", "ml", "Deployment", "serve", "server"), 2560, 30);

    private static String link(Links links, WorkloadRecommendation row) {
        Table.Column<WorkloadRecommendation> workload = WorkloadColumns.recommendations(links).columns().stream()
                .filter(column -> column.key().equals("owner_name")).findFirst().orElseThrow();
        return workload.href().apply(row);
    }

    @Test
    void aRowLinksToItsOwnCluster() {
        Links all = new Links("/gpu");
        assertEquals("/gpu/workloads?workloads.q=serve&cluster=east", link(all, EAST));
        assertEquals("/gpu/workloads?workloads.q=serve&cluster=west", link(all, WEST));
        // A page of one cluster carries its own, unless the row names another.
        assertEquals("/gpu/workloads?workloads.q=serve&cluster=west", link(all.inCluster("east"), WEST));
        assertEquals("/gpu/workloads?workloads.q=serve", link(all, UNLABELLED));
        assertEquals("/gpu/workloads?workloads.q=serve&cluster=east", link(all.inCluster("east"), UNLABELLED));
    }

    @Test
    void theSameNamedWorkloadOfTwoClustersIsTwoRowsOfTheExport() {
        Table<WorkloadRecommendation> table = WorkloadColumns.recommendations(new Links(""));
        String csv = table.csv(List.of(EAST, WEST), java.util.Map.of(), Table::printable);
        List<String> lines = csv.lines().toList();
        assertEquals(3, lines.size(), csv);
        assertEquals("cluster", lines.get(0).split(",")[1], csv);
        assertEquals("east", lines.get(1).split(",")[1], csv);
        assertEquals("west", lines.get(2).split(",")[1], csv);
    }
}
