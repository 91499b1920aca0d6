/* cycle.c — being written */
