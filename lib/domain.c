/* domain.c — being written */
