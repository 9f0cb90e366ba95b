/*
 * xidcat.c - the XID catalogue table. Sources: NVIDIA's XID catalog as
 * cited in myriad-design(7), FACTS: XID catalogue, with operators' practice.
 */
#include "xidcat.h"
#include "model.h"

static const struct xid_info xids[] = {
	{13, "Graphics Engine Exception", "RESTART_APP", "leave node; debug the application (hardware if it repeats on one GPC)", FK_XID, SEV_WARN, 0, 0},
	{31, "GPU memory page fault (MMU)", "RESTART_APP", "leave node; restart the application", FK_XID, SEV_WARN, 0, 0},
	{43, "GPU stopped processing", "IGNORE", "follow the preceding XID", FK_XID, SEV_INFO, 0, 1},
	{45, "Preemptive cleanup after previous errors", "WORKFLOW_XID_45", "follow the primary XID", FK_XID, SEV_INFO, 0, 1},
	{48, "Double-bit ECC error (DBE)", "WORKFLOW_XID_48", "drain, reset GPU, run FieldDiag; RMA if SRAM threshold exceeded", FK_ECC, SEV_CRITICAL, 1, 0},
	{61, "Internal micro-controller breakpoint/warning", "RESET_GPU", "reset GPU if persistent", FK_XID, SEV_WARN, 0, 0},
	{62, "Internal micro-controller halt", "RESET_GPU", "drain, reboot; RMA if it recurs", FK_XID, SEV_ERROR, 1, 0},
	{63, "Row-remap recording event", "IGNORE", "reset GPU at a convenient time to apply the remap", FK_ECC, SEV_INFO, 0, 0},
	{64, "Row-remap failure", "RESET_GPU", "drain; RMA", FK_ECC, SEV_CRITICAL, 1, 0},
	{74, "NVLink error", "WORKFLOW_NVLINK_ERR", "drain, reboot; RMA if the same link repeats", FK_NVLINK, SEV_ERROR, 1, 0},
	{79, "GPU has fallen off the bus", "RESTART_BM", "drain, reboot/power-cycle; reseat or RMA if it repeats", FK_XID, SEV_CRITICAL, 1, 0},
	{92, "High single-bit ECC rate", "IGNORE", "monitor; watch for XID 48/64", FK_ECC, SEV_WARN, 0, 0},
	{94, "Contained uncorrectable memory error", "RESTART_APP", "restart the application; reset GPU when convenient", FK_ECC, SEV_WARN, 0, 0},
	{95, "Uncontained uncorrectable memory error", "RESET_GPU", "drain, reset GPU; RMA if it recurs", FK_ECC, SEV_CRITICAL, 1, 0},
	{109, "Context-switch timeout", "RESET_GPU", "drain, reset/reboot", FK_XID, SEV_ERROR, 1, 0},
	{119, "GSP RPC timeout", "RESET_GPU", "drain, reset GPU; many nodes at once: suspect driver/GSP", FK_XID, SEV_ERROR, 1, 0},
	{120, "GSP error", "RESET_GPU", "drain, reset GPU", FK_XID, SEV_ERROR, 1, 0},
	{136, "NVLink link training failed", "RESET_GPU", "drain; check cables and mechanicals", FK_NVLINK, SEV_ERROR, 1, 0},
	{140, "ECC unrecovered error", "RESET_GPU", "drain, reset GPU; RMA if it recurs", FK_ECC, SEV_ERROR, 1, 0},
	{154, "GPU recovery action changed", "INFO", "act on the recovery action it names", FK_XID, SEV_INFO, 0, 0},
};

static const struct xid_info unknown = {
	0, "XID not in the catalogue", "INVESTIGATE", "look it up in NVIDIA's XID catalog", FK_XID, SEV_WARN, 0, 0,
};

const struct xid_info *xid_lookup(int32_t code)
{
	for (unsigned i = 0; i < sizeof xids / sizeof xids[0]; i++)
		if (xids[i].code == code)
			return &xids[i];
	return &unknown;
}

int xid_count(void) { return (int)(sizeof xids / sizeof xids[0]); }

const struct xid_info *xid_at(int i)
{
	return i >= 0 && i < xid_count() ? &xids[i] : &unknown;
}
