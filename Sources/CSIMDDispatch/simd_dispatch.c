// CSIMDDispatch is header only (include/simd_dispatch.h, all static inline); SwiftPM wants a source file
// in every C target.
#include "simd_dispatch.h"
