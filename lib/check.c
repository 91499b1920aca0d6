/* check.c — being written */
