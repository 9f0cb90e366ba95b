/*
 * facility.c - parser for the facility meter's JSON (parse.h):
 *   {"time": "...", "facility_kw": 1234.5, "it_kw": 1100.2, "cooling_kw": 100.1,
 *    "outside_c": 18.5, "cdu": {"supply_c": 25.1, "return_c": 41.3, "flow_lpm": 1400.0}}
 * A missing (or null) number is NAN; a number of the wrong type or out of
 * physical range makes the document unusable.
 */
#include <jansson.h>
#include <math.h>
#include "parse.h"
#include "../util.h"

/* 0: *out set (NAN if absent); -1: wrong type or out of [lo, hi]. */
static int get_real(json_t *o, const char *key, double lo, double hi, double *out)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return *out >= lo && *out <= hi ? 0 : -1;
}

int facility_parse(const char *json, size_t len, struct ev_power *out, char **err)
{
	json_error_t je;
	json_t *root, *cdu;
	int bad;

	*out = (struct ev_power){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
	root = json ? json_loadb(json, len, JSON_REJECT_DUPLICATES, &je) : NULL;
	if (!root) {
		*err = json ? xasprintf("not JSON (line %d, column %d)", je.line, je.column)
			    : xstrdup("no input");
		return -1;
	}
	cdu = json_object_get(root, "cdu");
	if (!json_is_object(root) || (cdu && !json_is_null(cdu) && !json_is_object(cdu))) {
		*err = xstrdup("not a facility meter object");
		json_decref(root);
		return -1;
	}
	if (cdu && json_is_null(cdu))
		cdu = NULL;
	bad = get_real(root, "facility_kw", 0, 1e7, &out->facility_kw) |
	      get_real(root, "it_kw", 0, 1e7, &out->it_kw) |
	      get_real(root, "cooling_kw", 0, 1e7, &out->cooling_kw) |
	      get_real(root, "outside_c", -100, 100, &out->outside_c) |
	      get_real(cdu, "supply_c", -50, 150, &out->supply_c) |
	      get_real(cdu, "return_c", -50, 150, &out->return_c) |
	      get_real(cdu, "flow_lpm", 0, 1e7, &out->flow_lpm);
	json_decref(root);
	if (bad) {
		*err = xstrdup("a facility number has the wrong type or is out of range");
		*out = (struct ev_power){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
		return -1;
	}
	return 0;
}
