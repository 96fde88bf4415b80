// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel module using LITE's kernel API: on load it allocates an LMR on
 * another node, writes a pattern, reads it back, zeroes a range and checks
 * it, then frees the LMR and logs the outcome. The node must have joined
 * (lite-ae install). Load fails with the error when a step fails.
 *
 *   insmod lite_example.ko node=2 size=65536
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "../../include/lite_kapi.h"

static unsigned int node = 2;
module_param(node, uint, 0444);
MODULE_PARM_DESC(node, "node to allocate on (default: 2)");

static unsigned int size = 65536;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes (default: 65536)");

#define EXAMPLE_PASSWORD	4242

static int lite_example_run(u8 *out, u8 *in)
{
	unsigned int i, half = size / 2;
	int lh, ret;

	for (i = 0; i < size; i++)
		out[i] = (u8)(i * 31 + 7);
	lh = liteapi_alloc_remote_mem(node, size, false, EXAMPLE_PASSWORD);
	if (lh < 0) {
		pr_err("lite_example: alloc of %u bytes on node %u: %d\n", size, node, lh);
		return lh;
	}
	ret = liteapi_rdma_write_offset(lh, out, size, LITE_PRIO_NORMAL, 0,
					EXAMPLE_PASSWORD);
	if (!ret)
		ret = liteapi_rdma_read_offset(lh, in, size, LITE_PRIO_NORMAL, 0,
					       EXAMPLE_PASSWORD);
	if (!ret && memcmp(out, in, size))
		ret = -EILSEQ;
	if (!ret)
		ret = liteapi_remote_memset(lh, half, 0, size - half);
	if (!ret)
		ret = liteapi_rdma_read_offset(lh, in, size, LITE_PRIO_NORMAL, 0,
					       EXAMPLE_PASSWORD);
	if (!ret && (memcmp(out, in, half) || memchr_inv(in + half, 0, size - half)))
		ret = -EILSEQ;
	if (ret)
		pr_err("lite_example: handle %d on node %u: %d\n", lh, node, ret);
	else
		pr_info("lite_example: ok: wrote, read back and zeroed %u bytes on node %u (handle %d)\n",
			size, node, lh);
	i = liteapi_deregister_mr(lh);
	return ret ?: (int)i;
}

static int __init lite_example_init(void)
{
	u8 *out, *in;
	int ret;

	if (!liteapi_get_node_id()) {
		pr_err("lite_example: this node has not joined a LITE cluster\n");
		return -ENOTCONN;
	}
	if (!size || size > (64U << 20))
		return -EINVAL;
	out = kvmalloc(size, GFP_KERNEL);
	in = kvmalloc(size, GFP_KERNEL);
	ret = out && in ? lite_example_run(out, in) : -ENOMEM;
	kvfree(out);
	kvfree(in);
	return ret;
}

static void __exit lite_example_exit(void)
{
}

module_init(lite_example_init);
module_exit(lite_example_exit);
MODULE_DESCRIPTION("LITE kernel API example");
MODULE_LICENSE("GPL");
