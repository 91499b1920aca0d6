/* place.c — being written */
