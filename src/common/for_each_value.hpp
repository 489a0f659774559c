// The value types every method is compiled for, as one list for explicit instantiations:
//   #define MY_INSTANTIATE(Value) template void f<Value>(...);
//   TCSPARSE_FOR_EACH_VALUE(MY_INSTANTIATE)
#pragma once

#include "tcsparse/types.hpp"

/// X(Value) for double, float, half and bfloat16.
#define TCSPARSE_FOR_EACH_VALUE(X) X(double) X(float) X(half) X(bfloat16)
