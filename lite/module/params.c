// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters that choose the device, the address and the QPs'
 * transport settings. They sit below every layer (docs/architecture.md):
 * the device and QP code reads them, main.c checks them at load. A
 * parameter only one file reads (a timeout, a limit) is kept there.
 */
#include <linux/module.h>

#include "lite_priv.h"

char *lite_param_device = "";
module_param_named(device, lite_param_device, charp, 0444);
MODULE_PARM_DESC(device, "RDMA device to use (default: the first with an ACTIVE port)");

unsigned int lite_param_port = 1;
module_param_named(port, lite_param_port, uint, 0444);
MODULE_PARM_DESC(port, "port of the RDMA device (default: 1)");

int lite_param_gid_index = -1;
module_param_named(gid_index, lite_param_gid_index, int, 0444);
MODULE_PARM_DESC(gid_index, "GID table index of the port (default: -1, chosen: on RoCE the RoCE v2 GID of fabric_ip, else the first RoCE v2 IPv4 one)");

char *lite_param_fabric_ip = "";
module_param_named(fabric_ip, lite_param_fabric_ip, charp, 0444);
MODULE_PARM_DESC(fabric_ip, "this node's IPv4 or IPv6 address on the RDMA fabric: picks the RoCE v2 GID when gid_index is -1 (default: none)");

unsigned int lite_param_qps_per_peer = 4;
module_param_named(qps_per_peer, lite_param_qps_per_peer, uint, 0444);
MODULE_PARM_DESC(qps_per_peer, "RC QPs per node pair, shared by all applications (default: 4)");

bool lite_param_unsafe_global_rkey;
module_param_named(unsafe_global_rkey, lite_param_unsafe_global_rkey, bool, 0444);
MODULE_PARM_DESC(unsafe_global_rkey, "reach LMRs through the PD's global rkey, which exposes all DMA-able memory of the node to every peer; only for devices without fast registration (default: N)");

/*
 * Transport settings of every QP LITE connects from now on (lite/qps shows
 * them per QP). The defaults suit hardware, as perftest's: the local
 * virtual cluster's inventory asks for more patience (lite_params).
 */
unsigned int lite_param_qp_timeout = 14;
module_param_named(qp_timeout, lite_param_qp_timeout, uint, 0444);
MODULE_PARM_DESC(qp_timeout, "local ACK timeout of LITE's RC QPs, 4.096 us * 2^N, 1..31 (default: 14, 67 ms)");

unsigned int lite_param_qp_retry = 7;
module_param_named(qp_retry, lite_param_qp_retry, uint, 0444);
MODULE_PARM_DESC(qp_retry, "transport retries of LITE's RC QPs before an error, 0..7 (default: 7)");

unsigned int lite_param_tclass;
module_param_named(tclass, lite_param_tclass, uint, 0444);
MODULE_PARM_DESC(tclass, "RoCE traffic class (DSCP << 2 | ECN) of LITE's QPs, e.g. a lossless class's (default: 0)");

unsigned int lite_param_sl;
module_param_named(sl, lite_param_sl, uint, 0444);
MODULE_PARM_DESC(sl, "InfiniBand service level of LITE's QPs, 0..15 (default: 0)");

/*
 * When our port comes back, how long the manager has to answer an ECHO
 * before its connection counts as stalled and this node rejoins at once
 * (membership.c); a fabric whose IP path takes longer to come back after
 * the port (IPoIB's multicast joins) wants more. 0: no ECHO, TCP's own
 * timeouts (~25 s) end a stalled connection.
 */
unsigned int lite_param_echo_ms = 3000;
module_param_named(echo_ms, lite_param_echo_ms, uint, 0644);
MODULE_PARM_DESC(echo_ms, "after the port comes back, ms the manager has to answer before its connection counts as stalled and the node rejoins, up to 25000; 0: off (default: 3000)");
