/* fuse 3's name for config.h (see there). */
#include "config.h"
