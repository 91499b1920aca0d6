/* fairway.h — umbrella header for libfairway (the pure core). */
#ifndef FAIRWAY_H
#define FAIRWAY_H

#include "fairway/arena.h"
#include "fairway/budget.h"
#include "fairway/check.h"
#include "fairway/cycle.h"
#include "fairway/err.h"
#include "fairway/fairshare.h"
#include "fairway/plan.h"
#include "fairway/policy.h"
#include "fairway/res.h"
#include "fairway/snapshot.h"
#include "fairway/span.h"

#endif
