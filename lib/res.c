/* res.c — resource names and the dominant share (res.h). */
#include "fairway/res.h"

const char *fw_res_name(int kind)
{
	static const char *const names[] = {
#define FW__RES_NAME(U, l, unit) #l,
		FW_RES_MAP(FW__RES_NAME)
#undef FW__RES_NAME
	};
	return kind >= 0 && kind < FW_RES_COUNT ? names[kind] : "?";
}

const char *fw_res_unit(int kind)
{
	static const char *const units[] = {
#define FW__RES_UNIT(U, l, unit) unit,
		FW_RES_MAP(FW__RES_UNIT)
#undef FW__RES_UNIT
	};
	return kind >= 0 && kind < FW_RES_COUNT ? units[kind] : "?";
}

double fw_res_dominant_share(struct fw_res x, struct fw_res cap)
{
	double best = 0;

	for (int i = 0; i < FW_RES_COUNT; i++) {
		if (cap.v[i] <= 0)
			continue;
		double s = (double)x.v[i] / (double)cap.v[i];
		if (s > best)
			best = s;
	}
	return best;
}
