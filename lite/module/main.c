// SPDX-License-Identifier: GPL-2.0
/*
 * LITE: Local Indirection TiEr for RDMA, as a loadable module for Linux
 * 6.1 and 6.12.
 * Init and exit: where the layers are put together (docs/architecture.md).
 */
#include <linux/module.h>

#include "lite_priv.h"
#include "lite_ctx.h"

/*
 * The layers meet here (docs/architecture.md). A lower layer reaches a
 * higher one only through what is set up below: the device and QP layer
 * through lite_dev_ops and lite_rx_ops, the control transport through
 * each service's request types, the membership through each service's
 * lite_member_ops.
 * Services hear of membership changes in the order subscribed: RPC first
 * (it stops using a departed peer's rings), then locks and barriers,
 * atomics, and LMRs last, whose memory goes once nothing else uses it.
 */
static void __init lite_layers_connect(void)
{
	lite_dev_ops = (struct lite_dev_ops) {
		.event		= lite_membership_dev_event,
		.removed	= lite_membership_exit,
		.peer_ready	= lite_peer_set_up,
		.peer_recover	= lite_peer_recover_work,
	};
	lite_rx_ops = (struct lite_rx_ops) {
		.msg	= lite_ctrl_recv,
		.imm	= lite_rpc_rx,
	};
	lite_ctrl_register(&lite_lmr_ctrl_service);
	lite_ctrl_register(&lite_handle_ctrl_service);
	lite_ctrl_register(&lite_rpc_ctrl_service);
	lite_ctrl_register(&lite_sync_ctrl_service);
	lite_member_subscribe(&lite_rpc_member_ops);
	lite_member_subscribe(&lite_sync_member_ops);
	lite_member_subscribe(&lite_atomic_member_ops);
	lite_member_subscribe(&lite_lmr_member_ops);
	lite_member_subscribe(&lite_rdma_member_ops);
}

static int __init lite_init(void)
{
	int ret;

	if (!lite_param_qps_per_peer ||
	    lite_param_qps_per_peer > LITE_MAX_QPS_PER_PEER) {
		pr_err("qps_per_peer must be 1..%d\n", LITE_MAX_QPS_PER_PEER);
		return -EINVAL;
	}
	if (!lite_param_qp_timeout || lite_param_qp_timeout > 31 ||
	    lite_param_qp_retry > 7 || lite_param_tclass > 255 ||
	    lite_param_sl > 15) {
		pr_err("qp_timeout must be 1..31, qp_retry 0..7, tclass 0..255, sl 0..15\n");
		return -EINVAL;
	}
	if (lite_param_gid_index < -1 || lite_param_gid_index > U8_MAX) {
		pr_err("gid_index must be -1 (chosen) or a GID table index 0..255\n");
		return -EINVAL;
	}
	ret = lite_parse_fabric_ip(lite_param_fabric_ip);
	if (ret) {
		pr_err("fabric_ip '%s' is not an IPv4 or IPv6 address\n",
		       lite_param_fabric_ip);
		return ret;
	}
	ret = lite_stats_init();
	if (ret)
		return ret;
	lite_rpc_init();
	lite_prio_init();
	lite_layers_connect();
	ret = lite_sync_init();
	if (ret)
		goto err_stats;
	ret = lite_ctrl_init();
	if (ret)
		goto err_sync;
	ret = lite_ctx_init();
	if (ret)
		goto err_ctrl;
	ret = lite_device_init();
	if (ret)
		goto err_api;
	ret = lite_chardev_init();
	if (ret)
		goto err_device;
	lite_debugfs_init();
	pr_info("loaded (qps_per_peer=%u)\n", lite_param_qps_per_peer);
	return 0;

err_device:
	lite_device_exit();
err_api:
	lite_ctx_exit();
err_ctrl:
	lite_ctrl_exit();
err_sync:
	lite_sync_module_exit();
err_stats:
	lite_stats_exit();
	return ret;
}

static void __exit lite_exit(void)
{
	lite_debugfs_exit();
	lite_chardev_exit();
	lite_ctx_exit();	/* frees what kernel users left, cluster-wide */
	lite_prio_exit();
	lite_membership_exit();
	lite_device_exit();
	lite_rpc_exit();
	lite_ctrl_exit();
	lite_sync_module_exit();	/* after the last request served */
	lite_lmr_exit();
	lite_pool_exit();
	lite_user_exit();
	lite_stats_exit();
	pr_info("unloaded\n");
}

module_init(lite_init);
module_exit(lite_exit);
MODULE_DESCRIPTION("LITE: Local Indirection TiEr for RDMA");
MODULE_LICENSE("GPL");
