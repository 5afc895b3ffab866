/* SPDX-License-Identifier: MIT */
/* libprofkit: reading, writing, converting and analysing profiler data files. This header
 * includes every other public header. */
#ifndef PROFKIT_PROFKIT_H
#define PROFKIT_PROFKIT_H

#include "profkit/calltree.h"
#include "profkit/copy.h"
#include "profkit/counters.h"
#include "profkit/capture.h"
#include "profkit/diff.h"
#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/label_select.h"
#include "profkit/merge.h"
#include "profkit/output.h"
#include "profkit/profile.h"
#include "profkit/report.h"
#include "profkit/source_names.h"
#include "profkit/summary.h"
#include "profkit/symbolize.h"
#include "profkit/thread_names.h"
#include "profkit/timeline.h"
#include "profkit/version.h"

#endif
