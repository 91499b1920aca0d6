/* plan.c — being written */
