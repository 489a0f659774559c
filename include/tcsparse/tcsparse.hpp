// tcsparse: fast SpMV and SpMM on NVIDIA GPUs. The one header a user includes.
#pragma once

#include "tcsparse/csr.hpp"        // CsrMatrix, CooMatrix, validation, conversion
#include "tcsparse/device.hpp"     // device presence, properties, copy bandwidth
#include "tcsparse/error.hpp"      // the error types
#include "tcsparse/generate.hpp"   // synthetic matrices
#include "tcsparse/io.hpp"         // Matrix Market and .smtx readers and writers
#include "tcsparse/memory.hpp"     // host memory checks (HostMemoryError)
#include "tcsparse/method.hpp"     // Method, methods(), parameter schemas, layout statistics
#include "tcsparse/plan.hpp"       // SpmvPlan, SpmmPlan, PlanStats
#include "tcsparse/reference.hpp"  // CPU reference products
#include "tcsparse/types.hpp"      // half, bfloat16, Precision
#include "tcsparse/version.hpp"    // kVersion (generated)
