/*
 * registry.c — the one list of policies.  Add a policy by defining its
 * const ops table in policies/<name>.c and listing it here.
 */
#include <string.h>

#include "fairway/policy.h"

extern const struct fw_policy_ops fw__policy_fairway;
extern const struct fw_policy_ops fw__policy_fifo;
extern const struct fw_policy_ops fw__policy_slurm;
extern const struct fw_policy_ops fw__policy_kai;

static const struct fw_policy_ops *const registry[] = {
	&fw__policy_fairway,
	&fw__policy_fifo,
	&fw__policy_slurm,
	&fw__policy_kai,
	NULL,
};

const struct fw_policy_ops *const *fw_policy_list(void)
{
	return registry;
}

static const char *const names[] = { "fairway", "fifo", "slurm", "kai", NULL };

const char *const *fw_policy_names(void)
{
	return names;
}

const struct fw_policy_ops *fw_policy_default(void)
{
	return &fw__policy_fairway;
}

const struct fw_policy_ops *fw_policy_find(const char *name)
{
	for (int i = 0; registry[i]; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}
