/* fairshare.c — being written */
