#ifndef GBGBRIDGE_CV4L2_SHIM_H
#define GBGBRIDGE_CV4L2_SHIM_H
#include <libv4l2.h>
#include <linux/videodev2.h>
#endif
