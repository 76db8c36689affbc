/*
 * CMake's copy of Expat takes its integer types from CMake's KWIML (cm3p/kwiml/int.h); for
 * bench/diff.ts's build of it outside CMake, the C99 types stand in.
 */
#include <stdint.h>
#define KWIML_INT_HAVE_UINT64_T 1
#define KWIML_INT_HAVE_UINT32_T 1
#define KWIML_INT_HAVE_UINT8_T 1
