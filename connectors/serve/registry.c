/*
 * registry.c — the backends compiled into this `fairway`.
 *
 * Compiled by tools/meson.build (not by connectors/serve), because it is
 * the one place that knows which optional backends exist: with
 * connectors/slurm present, meson passes -DFW_HAVE_SLURM and links
 * fwslurm_dep.  See backend.h.
 */
#include <string.h>

#include "backend.h"

#ifdef FW_HAVE_SLURM
extern const struct fw_backend_ops fw_backend_slurm;
#endif

static const struct fw_backend_ops *const backends[] = {
	&fw_backend_local,
#ifdef FW_HAVE_SLURM
	&fw_backend_slurm,
#endif
	NULL,
};

const struct fw_backend_ops *const *fw_backend_list(void)
{
	return backends;
}

const struct fw_backend_ops *fw_backend_find(const char *name)
{
	for (int i = 0; name && backends[i]; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
