/**
 * Kunlunxin XPUs as HAMi schedules them: whole cards built from the node's {@code kunlunxin.com/xpu}
 * capacity ({@code kunlun}, written only to {@code hami.io/kunlun-allocated}) and vXPUs from
 * {@code hami.io/node-register-xpu} ({@code XPU}).
 */
module io.hamiobserve.vendors.kunlunxin {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.kunlunxin.KunlunxinProvider;
}
