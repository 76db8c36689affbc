/* CMake's copy of libarchive includes its third-party libraries through cm3p/; here, the system's. */
#include <bzlib.h>
