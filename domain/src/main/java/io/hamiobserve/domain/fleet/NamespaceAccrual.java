package io.hamiobserve.domain.fleet;

/**
 * What one namespace held and used over a window, integrated over time: byte-seconds of GPU
 * memory and percent-seconds of compute (100 percent-seconds = one card's compute for a second).
 */
public record NamespaceAccrual(String namespace, Figure memoryAllocatedByteSeconds, Figure memoryUsedByteSeconds,
                               Figure coresAllocatedPercentSeconds, Figure coresUsedPercentSeconds) {
}
