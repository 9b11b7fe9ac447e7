/**
 * The pure model of shared GPUs: cards registered by nodes, the shares the scheduler handed to
 * containers, what containers and cards really use, and the two views computed from them.
 *
 * <p>Depends on {@code java.base} only: no Kubernetes, NVML, files, HTTP or Prometheus types.
 */
module io.hamiobserve.domain {
    exports io.hamiobserve.domain;
    exports io.hamiobserve.domain.fleet;
}
