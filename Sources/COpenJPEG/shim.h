#ifndef GBGBRIDGE_COPENJPEG_SHIM_H
#define GBGBRIDGE_COPENJPEG_SHIM_H

#include <openjpeg.h>

#endif
