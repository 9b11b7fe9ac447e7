/**
 * The scheduler role: the allocation view of the cluster's ledger (HAMi scheduler's series, kept per
 * node between scrapes) and the {@code scheduler} command. Its image holds no JNA, NVML or cache-file
 * module: nothing here requires them.
 */
module io.hamiobserve.role.scheduler {
    requires io.hamiobserve.app;
    requires io.hamiobserve.adapters.k8s;
    requires java.logging;

    // The demo and the all command build the role.
    exports io.hamiobserve.role.scheduler;
    opens io.hamiobserve.role.scheduler to info.picocli;

    provides io.hamiobserve.app.cli.Subcommand with io.hamiobserve.role.scheduler.SchedulerCommand;
}
