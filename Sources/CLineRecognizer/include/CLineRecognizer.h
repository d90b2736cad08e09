// A line recogniser network (ONNX, fully convolutional) run by OpenCV's dnn module (Debian's
// libopencv-dnn). A plain C interface over a C++ file, so Swift needs no C++ interop.
#ifndef GBG_LINE_RECOGNIZER_H
#define GBG_LINE_RECOGNIZER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded network. Not thread-safe: one caller at a time.
typedef struct gbg_line_net gbg_line_net;

/// Loads the ONNX network in the file at `path`. On failure returns NULL and writes why into
/// `error` (at most `error_capacity` bytes). The caller checks the file's size first.
gbg_line_net *gbg_line_net_create(const char *path, char *error, size_t error_capacity);

/// Frees a network (NULL is fine).
void gbg_line_net_destroy(gbg_line_net *net);

/// Runs the network on one line of `height` x `width` floats (row by row) and writes its output,
/// `*classes` rows of `*steps` scores, into `output` (class by class). Returns 0, or -1 when the
/// input is refused (sizes outside 1...64 rows and 8...4096 columns), the output does not fit
/// `capacity` floats or does not have the shape 1 x classes x 1 x steps, or OpenCV fails.
int gbg_line_net_run(
    gbg_line_net *net, const float *input, int height, int width, float *output, size_t capacity, int *classes,
    int *steps);

/// What `gbg_line_net_trial` loads and expects.
typedef struct gbg_line_net_trial_context {
    /// The model file.
    const char *path;
    /// The probe line's size: all zeros, `height` rows of `width` columns.
    int height;
    int width;
    /// The output the probe must give: `classes` finite scores every `stride` columns.
    int classes;
    int stride;
    /// The CPU time the probe may take, in microseconds.
    long cpu_budget_microseconds;
} gbg_line_net_trial_context;

/// Loads the network in `context` (a `gbg_line_net_trial_context`) and runs it once on the probe line.
/// Returns 0 when it loads and gives the expected output within the CPU budget, 1 when it does not load,
/// 2 when its output has another shape or is not finite, 3 when the probe took longer than the budget.
/// Made for a child process (the caller's trial of an untrusted file): it keeps nothing.
int gbg_line_net_trial(void *context);

#ifdef __cplusplus
}
#endif

#endif
