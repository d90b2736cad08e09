#ifndef GBGBRIDGE_CV4L2_SHIM_H
#define GBGBRIDGE_CV4L2_SHIM_H

// libv4l2's entry points are variadic and the VIDIOC_* request codes are
// function-like macros; Swift imports neither. These wrappers and constants
// give Swift a typed, non-variadic view of the same calls.

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <libv4l2.h>
#include <linux/videodev2.h>

static inline int cv4l2_open(const char *path, int flags) {
    return v4l2_open(path, flags);
}

static inline int cv4l2_close(int fd) {
    return v4l2_close(fd);
}

static inline int cv4l2_ioctl(int fd, unsigned long request, void *argument) {
    return v4l2_ioctl(fd, request, argument);
}

static inline void *cv4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    return v4l2_mmap(start, length, prot, flags, fd, offset);
}

static inline int cv4l2_munmap(void *start, size_t length) {
    return v4l2_munmap(start, length);
}

// A non-blocking, close-on-exec eventfd used to wake a thread blocked in poll().
static inline int cv4l2_wake_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

static inline void *cv4l2_map_failed(void) {
    return MAP_FAILED;
}

static const unsigned long CV4L2_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CV4L2_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CV4L2_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long CV4L2_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CV4L2_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CV4L2_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CV4L2_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CV4L2_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CV4L2_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CV4L2_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CV4L2_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CV4L2_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

static const uint32_t CV4L2_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;
static const uint32_t CV4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const uint32_t CV4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;

#endif
